"""Run the CUDA C of ``cupy.ElementwiseKernel``s on the host, compiled by g++.

CI has no GPU, yet the CUDA C that ``kernels/codegen/cuda.py`` renders (and any other
``ElementwiseKernel`` a GPU kernel builds) must not first execute on a user's card.  So
this module compiles the very text cupy would hand NVRTC as host C++ and calls it
through ``ctypes`` on numpy arrays:

* ``PRELUDE`` maps what a CUDA elementwise body may use onto host C++: ``__device__``
  and ``__forceinline__``; the CUDA math functions (``expf``, ``tanh``, ``isnan``...
  are the host libm's); ``CUDART_INF_F``/``CUDART_NAN`` and friends (cupy's
  ``math_constants.h``); cupy's ``float16`` (a 16-bit value converting to and from
  ``float`` with round-to-nearest-even, no arithmetic of its own); the loop index ``i``
  and ``_ind.size()``.
* Each kernel becomes one ``extern "C"`` function in its own namespace (its preamble
  and ``typedef``s stay private, as in cupy), looping over the elements with each
  parameter bound exactly as cupy binds it: ``const T &x = ...`` for inputs, ``T &y``
  for outputs.  So a body that writes an input, names an unknown function or mixes up
  types fails to compile here as it would under NVRTC.
* Signed integer overflow and bad shifts are undefined behaviour in C and CUDA alike
  (the GPU happens to wrap, an optimiser need not): the code is compiled with
  ``-fsanitize=signed-integer-overflow,shift`` and the sanitizer's hooks are defined
  in the prelude to count events, so a kernel that overflows raises
  ``UndefinedBehaviour`` instead of passing by luck.
* ``ElementwiseKernel`` here follows cupy's calling rules (``cupy/_core/_kernel.pyx``):
  parameters ``"float32 x, T y"``; an array argument must have exactly the declared
  dtype (``TypeError: Type is mismatched``), a one-letter type is bound by the first
  array that uses it; Python and numpy scalars are converted to the parameter's type;
  host arrays of another type are refused (``Unsupported type``); inputs broadcast;
  ``out`` must have the broadcast shape; the wrong number of arguments is a
  ``TypeError``.  ``raw`` parameters are indexed flat (``x[k]``, ``x.size()``) over a
  C-contiguous copy, as cupy's 1-D ``CArray``; ``size=`` sets the loop size; CUDA's
  ``atomicAdd``/``Max``/``Min``/``Exch``/``CAS`` exist for the types CUDA has them for.
  Reductions (``ReductionKernel``), ``loop_prep`` and ``after_loop`` are not emulated.

Compilation is batched: constructing a kernel only *requests* its code; the first call
of any kernel compiles every pending request into one shared library (one g++ run for
a whole test module), in a temporary directory kept for the process and removed at
exit.  Functions are named by the hash of their source, so a kernel compiled once is
never compiled again in the process.  A compile error is reported with the kernel it
belongs to and g++'s message; the other kernels of the batch still compile.

What this cannot show: NVRTC's own acceptance of the code (``ci/gpu-check`` compiles
every kernel with NVRTC), the GPU's float rounding (FMA contraction, ``expf``'s 2 ulp)
and its speed.
"""

from __future__ import annotations

import atexit
import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

import numpy as np

__all__ = ["ElementwiseKernel", "HostCompileError", "UndefinedBehaviour", "compiler",
           "compiler_missing", "build_pending", "PRELUDE", "C_TYPENAMES"]

PRELUDE = r"""
#include <math.h>
#include <stdint.h>
#include <string.h>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline

#define CUDART_INF_F __builtin_inff()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_INF __builtin_inf()
#define CUDART_NAN __builtin_nan("")

static inline unsigned short ds_float_to_half(float f) {
  unsigned int x; memcpy(&x, &f, 4);
  unsigned int sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
  int exponent = (int)((x >> 23) & 0xffu);
  if (exponent == 0xff) return (unsigned short)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
  int e = exponent - 127 + 15;
  if (e >= 0x1f) return (unsigned short)(sign | 0x7c00u);
  if (e <= 0) {                                   /* a subnormal half, or zero */
    if (e < -10) return (unsigned short)sign;
    mant |= 0x800000u;
    int shift = 14 - e;
    unsigned int half = mant >> shift, rest = mant & ((1u << shift) - 1u), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1u))) ++half;
    return (unsigned short)(sign | half);
  }
  unsigned int half = ((unsigned int)e << 10) | (mant >> 13), rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;   /* may carry to inf */
  return (unsigned short)(sign | half);
}

static inline float ds_half_to_float(unsigned short h) {
  unsigned int sign = ((unsigned int)h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
  if (e == 0) {
    if (m == 0) {
      bits = sign;
    } else {                                      /* subnormal: normalise */
      unsigned int shift = 0;
      while (!(m & 0x400u)) { m <<= 1; ++shift; }
      bits = sign | ((113u - shift) << 23) | ((m & 0x3ffu) << 13);
    }
  } else if (e == 0x1f) {
    bits = sign | 0x7f800000u | (m << 13);
  } else {
    bits = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f; memcpy(&f, &bits, 4); return f;
}

/* cupy's float16: converts to and from float; arithmetic is done in float. */
struct float16 {
  unsigned short bits;
  float16() = default;
  float16(float f) : bits(ds_float_to_half(f)) {}
  explicit float16(double d) : bits(ds_float_to_half((float)d)) {}
  explicit float16(int v) : bits(ds_float_to_half((float)v)) {}
  explicit float16(long long v) : bits(ds_float_to_half((float)v)) {}
  explicit float16(bool v) : bits(ds_float_to_half(v ? 1.0f : 0.0f)) {}
  operator float() const { return ds_half_to_float(bits); }
};

/* UndefinedBehaviourSanitizer hooks: count signed overflow and bad shifts. */
static int ds_undefined = 0;
extern "C" {
void __ubsan_handle_add_overflow(void*, void*, void*) { ++ds_undefined; }
void __ubsan_handle_sub_overflow(void*, void*, void*) { ++ds_undefined; }
void __ubsan_handle_mul_overflow(void*, void*, void*) { ++ds_undefined; }
void __ubsan_handle_negate_overflow(void*, void*) { ++ds_undefined; }
void __ubsan_handle_divrem_overflow(void*, void*, void*) { ++ds_undefined; }
void __ubsan_handle_shift_out_of_bounds(void*, void*, void*) { ++ds_undefined; }
int ds_undefined_behaviour(void) { int n = ds_undefined; ds_undefined = 0; return n; }
void ds_half_from_float(long long n, const float* in, unsigned short* out) {
  for (long long k = 0; k < n; ++k) out[k] = ds_float_to_half(in[k]);
}
void ds_float_from_half(long long n, const unsigned short* in, float* out) {
  for (long long k = 0; k < n; ++k) out[k] = ds_half_to_float(in[k]);
}
}

struct ds_indexer { long long n; long long size() const { return n; } };

/* A raw parameter (cupy's CArray indexed flat): C-contiguous memory and its size. */
template <typename T> struct ds_raw {
  T *data;
  long long n;
  T &operator[](long long k) const { return data[k]; }
  long long size() const { return n; }
};

/* CUDA's atomics, for exactly the types CUDA has them for (one host thread runs the
   loop, so a plain update is atomic). */
#define DS_ATOMIC_ARITH(T) \
  inline T atomicAdd(T *a, T v) { T old = *a; *a = old + v; return old; } \
  inline T atomicExch(T *a, T v) { T old = *a; *a = v; return old; }
#define DS_ATOMIC_INT(T) \
  inline T atomicMax(T *a, T v) { T old = *a; if (v > old) *a = v; return old; } \
  inline T atomicMin(T *a, T v) { T old = *a; if (v < old) *a = v; return old; } \
  inline T atomicCAS(T *a, T c, T v) { T old = *a; if (old == c) *a = v; return old; }
DS_ATOMIC_ARITH(int) DS_ATOMIC_ARITH(unsigned int) DS_ATOMIC_ARITH(unsigned long long)
DS_ATOMIC_ARITH(float) DS_ATOMIC_ARITH(double)
DS_ATOMIC_INT(int) DS_ATOMIC_INT(unsigned int) DS_ATOMIC_INT(unsigned long long)
inline long long atomicMax(long long *a, long long v) { long long o = *a; if (v > o) *a = v; return o; }
inline long long atomicMin(long long *a, long long v) { long long o = *a; if (v < o) *a = v; return o; }
"""

# -O0: compiling fast matters more than running fast here (three times quicker than -O1
# for the registry's kernels); the sanitizer, not the optimiser, finds undefined behaviour.
FLAGS = ["-std=c++17", "-O0", "-fPIC", "-shared", "-w", "-fmax-errors=0",
         "-ffp-contract=off", "-fno-fast-math", "-fno-strict-aliasing",
         "-fsanitize=signed-integer-overflow,shift"] + \
    (["-Wl,-Bsymbolic"] if sys.platform.startswith("linux") else [])   # our own UB hooks

# cupy's C names of numpy dtypes (``_typenames_base`` in cupy/_core/_scalar.pyx).
C_TYPENAMES = {np.dtype(k): v for k, v in {
    "float64": "double", "float32": "float", "float16": "float16", "int64": "long long",
    "int32": "int", "int16": "short", "int8": "signed char", "uint64": "unsigned long long",
    "uint32": "unsigned int", "uint16": "unsigned short", "uint8": "unsigned char",
    "bool": "bool"}.items()}


class HostCompileError(RuntimeError):
    """g++ refused a kernel's code (the message holds the kernel and g++'s errors)."""


class UndefinedBehaviour(ArithmeticError):
    """A kernel hit C undefined behaviour (signed overflow, a bad shift) on these inputs."""


# ------------------------------------------------------------------ parameters

@dataclass(frozen=True)
class Param:
    name: str
    dtype: np.dtype | None      # None for a type placeholder such as "T"
    ctype: str                  # the C type, or the placeholder's letter
    is_const: bool
    raw: bool = False           # indexed by the kernel itself, not broadcast


def parse_params(text: str, is_const: bool) -> tuple:
    """cupy's ``ParameterInfo`` parsing of ``"float32 x, T y"``."""
    params = []
    for item in (text.split(",") if text.strip() else ()):
        words = item.split()
        if len(words) < 2:
            raise ValueError(f"Syntax error: {item}")
        if any(w != "raw" for w in words[:-2]):
            raise ValueError(f'Unknown keyword "{words[0]}"')
        raw = "raw" in words[:-2]
        type_name, name = words[-2:]
        if len(type_name) == 1:
            params.append(Param(name, None, type_name, is_const, raw))
            continue
        dtype = np.dtype(type_name)
        if dtype.name != type_name:
            raise ValueError(f"Wrong type {type_name}")
        params.append(Param(name, dtype, C_TYPENAMES[dtype], is_const, raw))
    return tuple(params)


def decide_types(in_params, out_params, in_dtypes, out_dtypes):
    """cupy's ``_decide_params_type_core``: (input dtypes, output dtypes, type map)."""
    bound: dict = {}

    def bind(p, a):
        if p.dtype is not None:
            if np.dtype(a) != p.dtype:
                raise TypeError(f"Type is mismatched. {p.name} {np.dtype(a).type} "
                                f"{p.dtype.type}")
        elif p.ctype in bound:
            if np.dtype(bound[p.ctype]) != np.dtype(a):
                raise TypeError(f"Type is mismatched. {p.name} {np.dtype(a).type} "
                                f"{np.dtype(bound[p.ctype]).type} {p.ctype}")
        else:
            bound[p.ctype] = np.dtype(a)

    for p, a in zip(out_params, out_dtypes):
        bind(p, a)
    for p, a in zip(in_params, in_dtypes):
        if a is not None:
            bind(p, a)
    unknown = [p.ctype for p in in_params + out_params if p.dtype is None
               and p.ctype not in bound]
    if unknown:
        raise TypeError(f"Cannot determine the type of {sorted(set(unknown))}")
    resolve = lambda p: p.dtype if p.dtype is not None else bound[p.ctype]   # noqa: E731
    return (tuple(resolve(p) for p in in_params), tuple(resolve(p) for p in out_params),
            tuple(sorted(bound.items())))


# -------------------------------------------------------------- compilation

def compiler() -> str | None:
    """The C++ compiler used (``$CXX``, else g++), or None when there is none."""
    return shutil.which(os.environ.get("CXX", "g++"))


def compiler_missing() -> str:
    """Why the host harness cannot run here, for a skip ('' when it can).  CI sets
    ``DEVSESSION_REQUIRE_CXX=1`` (``.ci/run``): then there is no excuse, and a missing
    compiler fails the tests instead of skipping them."""
    if compiler() or os.environ.get("DEVSESSION_REQUIRE_CXX") == "1":
        return ""
    return (f"no C++ compiler ({os.environ.get('CXX', 'g++')}) to run the generated CUDA C "
            f"on the host")


@dataclass
class _Function:
    symbol: str
    code: str
    label: str
    handle: object = None        # the ctypes function once compiled
    library: object = None
    error: str = ""


_lock = threading.RLock()
_functions: dict[str, _Function] = {}
_pending: list[str] = []
_workdir: list = []


def _directory() -> str:
    if not _workdir:
        path = tempfile.mkdtemp(prefix="devsession-cuda-host-")
        atexit.register(shutil.rmtree, path, True)
        _workdir.append(path)
    return _workdir[0]


def kernel_code(symbol: str, in_params, out_params, in_types, out_types, type_map,
                operation: str, preamble: str) -> str:
    """One kernel as a host function ``symbol(n, args, steps)`` (see the docstring)."""
    typedefs = "".join(f"typedef {C_TYPENAMES[d]} {c};\n" for c, d in type_map)
    raw, bindings = [], []
    for k, (p, d) in enumerate(zip(in_params + out_params, in_types + out_types)):
        if p.raw:                  # _steps[k] holds the raw array's size
            raw.append(f"  const ds_raw<{p.ctype}> {p.name} = "
                       f"{{({C_TYPENAMES[d]} *)_args[{k}], _steps[{k}]}};")
            continue
        const = "const " if p.is_const else ""
        bindings.append(f"    {const}{p.ctype} &{p.name} = "
                        f"(({const}{C_TYPENAMES[d]} *)_args[{k}])[i * _steps[{k}]];")
    return (f"namespace {symbol}_ns {{\n{typedefs}{preamble}\n"
            f'extern "C" void {symbol}(long long _n, void *const *_args, '
            f"const long long *_steps) {{\n"
            f"  const ds_indexer _ind = {{_n}};\n" + "".join(r + "\n" for r in raw) +
            f"  for (long long i = 0; i < _n; ++i) {{\n" + "\n".join(bindings) +
            f"\n    {operation};\n  }}\n}}\n}}\n")


def request(code_without_symbol: str, label: str, make_code) -> _Function:
    """The function for this code, compiled or queued for the next batch."""
    symbol = "ds_" + hashlib.sha256(code_without_symbol.encode()).hexdigest()[:20]
    with _lock:
        function = _functions.get(symbol)
        if function is None:
            function = _functions[symbol] = _Function(symbol, make_code(symbol), label)
            _pending.append(symbol)
        return function


def build_pending() -> None:
    """Compile every requested kernel not compiled yet, in one library."""
    with _lock:
        batch = [_functions[s] for s in _pending]
        _pending.clear()
        while batch:                 # again without the kernels g++ refused
            failed = _compile(batch)
            batch = [f for f in batch if f not in failed and f.handle is None]


def _compile(batch: list) -> list:
    """Compile ``batch`` into one library; returns the functions g++ refused (with their
    ``error`` set).  Raises ``HostCompileError`` when the prelude itself fails."""
    cxx = compiler()
    if cxx is None:
        raise HostCompileError(f"no C++ compiler ({os.environ.get('CXX', 'g++')}) to run the "
                               f"generated CUDA C on the host")
    parts, ranges, line = [PRELUDE], [], PRELUDE.count("\n") + 1
    for f in batch:
        parts.append(f.code)
        ranges.append((line, line + f.code.count("\n"), f))
        line += f.code.count("\n")
    source = "".join(parts)
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    path = os.path.join(_directory(), f"kernels_{digest}")
    with open(path + ".cpp", "w") as out:
        out.write(source)
    done = subprocess.run([cxx, *FLAGS, path + ".cpp", "-o", path + ".so"],
                          capture_output=True, text=True)
    if done.returncode == 0:
        library = ctypes.CDLL(path + ".so")
        for f in batch:
            f.handle = getattr(library, f.symbol)
            f.handle.restype = None
            f.handle.argtypes = [ctypes.c_longlong, ctypes.c_void_p, ctypes.c_void_p]
            f.library = library
        return []
    errors: dict = {}
    for match in re.finditer(rf"^{re.escape(path)}\.cpp:(\d+):\d+: (?:fatal )?error: .*$",
                             done.stderr, re.M):
        at = int(match.group(1))
        owner = next((f for start, end, f in ranges if start <= at <= end), None)
        if owner is None:
            raise HostCompileError(f"the host prelude does not compile:\n{done.stderr[-4000:]}")
        errors.setdefault(owner.symbol, []).append(match.group(0).split(": ", 1)[1])
    if not errors:
        raise HostCompileError(f"{cxx} failed:\n{done.stderr[-4000:]}")
    failed = [f for f in batch if f.symbol in errors]
    for f in failed:
        f.error = "\n".join(errors[f.symbol][:20])
    return failed


def _library_call(function: _Function, n: int, pointers: list, steps: list) -> None:
    if function.handle is None and not function.error:
        build_pending()
    if function.error:
        raise HostCompileError(f"kernel {function.label} does not compile:\n{function.error}"
                               f"\n--- its code ---\n{function.code}")
    k = len(pointers)
    function.handle(n, (ctypes.c_void_p * k)(*pointers), (ctypes.c_longlong * k)(*steps))
    events = function.library.ds_undefined_behaviour()
    if events:
        raise UndefinedBehaviour(f"kernel {function.label} hit C undefined behaviour "
                                 f"{events} time(s) (signed overflow or a bad shift)")


# ---------------------------------------------------------------- the kernel

class ElementwiseKernel:
    """``cupy.ElementwiseKernel`` run on the host (see the module docstring).

    ``array_type`` is what counts as a device array (``np.ndarray`` by default; the
    cupy stand-in passes its own); ``allocate(shape, dtype)`` makes outputs.
    """

    def __init__(self, in_params: str, out_params: str, operation: str, name: str = "kernel",
                 reduce_dims: bool = True, preamble: str = "", no_return: bool = False,
                 return_tuple: bool = False, loop_prep: str = "", after_loop: str = "",
                 options=(), *, array_type=np.ndarray, allocate=np.empty):
        if loop_prep or after_loop:
            raise NotImplementedError("the host harness does not emulate loop_prep/after_loop")
        self.in_params = parse_params(in_params, True)
        self.out_params = parse_params(out_params, False)
        names = [p.name for p in self.in_params + self.out_params]
        if len(set(names)) != len(names):
            raise ValueError(f"parameter names must differ: {names}")
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        self.name, self.operation, self.preamble = name, operation, preamble
        self.no_return, self.return_tuple = no_return, return_tuple
        self._array_type, self._allocate = array_type, allocate
        self._by_types: dict = {}
        if all(p.dtype is not None for p in self.in_params + self.out_params):
            self._function(tuple(p.dtype for p in self.in_params),
                           tuple(p.dtype for p in self.out_params), ())   # queue it now

    def _function(self, in_types, out_types, type_map) -> _Function:
        found = self._by_types.get((in_types, out_types, type_map))
        if found is not None:
            return found
        key = repr((self.in_params, self.out_params, in_types, out_types, type_map,
                    self.operation, self.preamble))
        make = lambda symbol: kernel_code(symbol, self.in_params, self.out_params,   # noqa
                                          in_types, out_types, type_map, self.operation,
                                          self.preamble)
        found = self._by_types[(in_types, out_types, type_map)] = request(
            key, f"{self.name}({', '.join(d.name for d in in_types)} -> "
                 f"{', '.join(d.name for d in out_types)})", make)
        return found

    def __call__(self, *args, size=None, block_size=None, stream=None):
        if len(args) not in (self.nin, self.nin + self.nout):
            raise TypeError(f"Wrong number of arguments for {self.name}")
        for a in args:
            if not isinstance(a, (self._array_type, bool, int, float, np.generic)):
                raise TypeError(f"Unsupported type {type(a)}")
        ins, outs = args[:self.nin], list(args[self.nin:])
        if any(not isinstance(o, self._array_type) for o in outs):
            raise TypeError("Output arguments must be cupy.ndarray")
        in_types, out_types, type_map = decide_types(
            self.in_params, self.out_params,
            [a.dtype if isinstance(a, self._array_type) else None for a in ins],
            [o.dtype for o in outs])
        params = self.in_params + self.out_params
        looped = [a for p, a in zip(params, args)
                  if isinstance(a, self._array_type) and not p.raw]
        if size is not None:
            if looped:
                raise ValueError("Specified 'size' can be used only if all of the ndarray "
                                 "are 'raw'.")
            shape = (int(size),)
        elif not looped:
            raise ValueError("Loop size is Undecided")
        else:
            shape = np.broadcast_shapes(*[a.shape for a in looped])
        if any(o.shape != shape for p, o in zip(self.out_params, outs) if not p.raw):
            raise ValueError("Out shape is mismatched")
        if not outs:
            if size is None and any(p.raw for p in self.out_params):
                raise ValueError("Output array size is Undecided")
            outs = [self._allocate(shape, t) for t in out_types]
        self._launch(ins, outs, in_types, out_types, type_map, shape)
        if self.no_return:
            return None
        return tuple(outs) if (self.return_tuple or self.nout > 1) else outs[0]

    def _launch(self, ins, outs, in_types, out_types, type_map, shape) -> None:
        n = int(np.prod(shape, dtype=np.int64))
        if n == 0:
            return
        pointers, steps, keep, write_back = [], [], [], []

        def writable(a):
            """Memory the kernel may write: the array's own when C-contiguous (so aliasing
            behaves as on the GPU), else a copy written back after."""
            target = np.asarray(a).view(np.ndarray)
            if target.flags.c_contiguous:
                return target
            buffer = np.ascontiguousarray(target)
            write_back.append((target, buffer))
            return buffer

        for p, a, t in zip(self.in_params, ins, in_types):
            if p.raw:
                host, step = writable(a), np.asarray(a).size
            elif isinstance(a, self._array_type) and a.size != 1:
                host, step = np.ascontiguousarray(
                    np.broadcast_to(np.asarray(a).view(np.ndarray), shape)), 1
            else:                                   # a scalar, or one element: step 0
                host = np.array(np.asarray(a).reshape(-1)[:1], dtype=t) \
                    if isinstance(a, self._array_type) else np.array([a]).astype(t)
                step = 0
            keep.append(host)
            pointers.append(host.ctypes.data)
            steps.append(step)
        for p, o in zip(self.out_params, outs):
            host = writable(o)
            pointers.append(host.ctypes.data)
            steps.append(host.size if p.raw else 1)
        _library_call(self._function(tuple(in_types), tuple(out_types), type_map), n,
                      pointers, steps)
        for target, buffer in write_back:
            target[...] = buffer


_prelude: list = []


def prelude_library():
    """The prelude alone, compiled (its float16 conversions are tested directly)."""
    with _lock:
        if not _prelude:
            probe = _Function("ds_prelude_probe", 'extern "C" void ds_prelude_probe() {}\n',
                              "prelude")
            _compile([probe])
            if probe.error:
                raise HostCompileError(probe.error)
            _prelude.append(probe.library)
        return _prelude[0]
