"""A vectorisable float32 ``exp`` and ``tanh`` for generated CPU loops.

Why: numba from PyPI has no SVML here, so ``np.exp`` in a loop is a scalar libm call
that stops LLVM vectorising the loop; on a 10M-element chain with a sigmoid that was
3-4x the cost of the rest.  ``fexp32`` is pure arithmetic (as XLA's exp is), so the
loop around it vectorises.

Algorithm (Cephes ``expf``): clamp x to [-104, 89] (beyond that the result over- or
underflows anyway), write x = n*ln2 + r with n = round(x/ln2), |r| <= ln2/2 (ln2 split in two parts so
n*ln2 is exact), approximate exp(r) by a degree-7 minimax polynomial, and scale by 2^n
built directly from exponent bits.  2^n is applied as two factors 2^(n//2) * 2^(n-n//2)
so results near overflow (n = 128) and in the subnormal range (n down to -150) come
out right.  NaN passes through.  Accuracy against numpy's float32 exp: at most 3 ulp for
normal results, 2 for subnormal ones, exact inf/0/nan (tests/test_fastmath.py).

``ftanh32`` is TensorFlow's own float32 tanh (Eigen's ``ptanh_float`` as TF's CPU build
compiles it, without fused multiply-adds): x clamped to [-c, c] (c = 7.90738964, where
the approximation reaches exactly 1), then a [9/8] odd/even rational minimax
polynomial, p(x) / q(x).  Its values are TF's bit for bit (tests/test_fastmath.py
checks them against TF 2.21's), within 5 ulp of numpy's tanh; libm's ``tanhf`` is a
scalar call that cost an LSTM step's tanh ten times its sigmoid.
"""

from __future__ import annotations

import numpy as np

from .numba_setup import numba

__all__ = ["fexp32", "ftanh32", "exp_parts32", "pow2_32", "max32", "min32"]

_types = numba.types


@numba.extending.intrinsic
def _bits_to_float32(typingctx, bits):
    """Reinterpret an int32's bits as a float32 (an LLVM bitcast, which vectorises)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(_types.float32))
    return _types.float32(_types.int32), codegen


def _select_intrinsic(predicate: str):
    """max (">") or min ("<") of two float32s exactly as numba's builtin max/min compute
    them (``b if b > a else a``: one select, which becomes vmaxps/vminps), but typed for
    free: the builtins compile a function per type, a cost on every cold start."""
    @numba.extending.intrinsic
    def select(typingctx, a, b):
        def codegen(context, builder, signature, args):
            a, b = args
            return builder.select(builder.fcmp_ordered(predicate, b, a), b, a)
        return _types.float32(_types.float32, _types.float32), codegen
    return select


max32, min32 = _select_intrinsic(">"), _select_intrinsic("<")


@numba.njit(inline="always", cache=True)
def pow2_32(n):
    """2**n as a float32, for an int32 n in [-126, 127]."""
    return _bits_to_float32(np.int32((n + np.int32(127)) << np.int32(23)))


@numba.njit(inline="always", cache=True)
def exp_parts32(xc):
    """``(n, y)`` with exp(xc) = y * 2**n, n an integer (as a float32) and y from the
    polynomial on |r| <= ln2/2; ``xc`` must already be clamped to [-104, 89]."""
    # Round to nearest by adding and subtracting 1.5 * 2**23 (exact for |t| < 2**22):
    # np.floor here compiled to a call per element and stopped the loop vectorising.
    t = xc * np.float32(1.4426950408889634)
    n = (t + np.float32(12582912.0)) - np.float32(12582912.0)
    r = xc - n * np.float32(0.693359375) + n * np.float32(2.12194440e-4)
    p = np.float32(1.9875691500e-4)
    p = p * r + np.float32(1.3981999507e-3)
    p = p * r + np.float32(8.3334519073e-3)
    p = p * r + np.float32(4.1665795894e-2)
    p = p * r + np.float32(1.6666665459e-1)
    p = p * r + np.float32(5.0000001201e-1)
    return n, p * (r * r) + r + np.float32(1.0)


@numba.njit(inline="always", cache=True)
def fexp32(x):
    """exp(x) for a float32 x, within 3 ulp of numpy's."""
    n, y = exp_parts32(min32(max32(x, np.float32(-104.0)), np.float32(89.0)))
    ni = np.int32(n)
    half = ni >> np.int32(1)
    result = (y * pow2_32(half)) * pow2_32(ni - half)
    return x if x != x else result


_TANH_CLAMP = np.float32(7.90738964080810547)
_TANH_P = (np.float32(1.394553628e-8), np.float32(2.102733560e-5),
           np.float32(3.520756727e-3), np.float32(1.340216100e-1))
_TANH_Q = (np.float32(8.015776984e-7), np.float32(3.326951409e-4),
           np.float32(2.597254514e-2), np.float32(4.673548340e-1), np.float32(1.0))


@numba.njit(inline="always", cache=True)
def ftanh32(x):
    """tanh(x) for a float32 x, TF's values (see the module docstring); NaN passes."""
    xc = max32(min32(x, _TANH_CLAMP), -_TANH_CLAMP)   # x first: a NaN x stays NaN
    x2 = xc * xc
    p = (_TANH_P[0] * x2 + _TANH_P[1]) * x2 + _TANH_P[2]
    p = p * x2 + _TANH_P[3]
    q = ((_TANH_Q[0] * x2 + _TANH_Q[1]) * x2 + _TANH_Q[2]) * x2 + _TANH_Q[3]
    q = q * x2 + _TANH_Q[4]
    return ((x2 * xc) * p + xc) / q


def fast_exp(x):
    """exp for any float: ``fexp32`` for float32, libm otherwise (numba-only)."""
    raise NotImplementedError("fast_exp is only callable from numba-compiled code")


# Not inline="always": numba would compile the implementation anyway, to type it, and
# then inline and type its IR again at each call site (a quarter of a cold softmax
# compile); LLVM inlines the compiled call, so the loops vectorise the same.
@numba.extending.overload(fast_exp)
def _fast_exp_overload(x):
    if x == _types.float32:
        return lambda x: fexp32(x)
    return lambda x: np.exp(x)


__all__ += ["fast_exp"]
