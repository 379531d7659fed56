"""The principal matrix square root and logarithm, as TF1's ops MatrixSquareRoot
(``tf.linalg.sqrtm``, ``tf.matrix_square_root``) and MatrixLogarithm
(``tf.linalg.logm``).

Both map ``[..., M, M]`` to ``[..., M, M]``.  MatrixSquareRoot takes float32, float64,
complex64 and complex128 (float16 is in TF's list but has no kernel: a run-time error,
as TF's); MatrixLogarithm only the complex types, as TF's (a float matrix is TF's
TypeError when the node is built).  Where TF's Schur-based kernel gives NaN, so do these:
a real matrix with a negative real eigenvalue has no real square root, and a matrix with
a repeated zero eigenvalue divides 0 by 0.

Gradient: MatrixSquareRoot's is TF's (``linalg_sqrtm_grad.py``: the Sylvester equation
``R dX + dX R = dA`` solved as one linear system of Kronecker products); MatrixLogarithm
has none in TF, nor here.  Kernels: ``kernels/reference/linalg_sqrtm.py`` (host).

    r = ds.linalg.sqrtm(a)                 # r @ r == a
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .common import graph_of
from .linalg_shapes import batch_of, square_matrices
from .registry import OpDef, register_op

__all__ = ["matrix_square_root", "matrix_logarithm"]

_SQRT_TYPES = (dtypes.float64, dtypes.float32, dtypes.float16, dtypes.complex64,
               dtypes.complex128)
_LOG_TYPES = (dtypes.complex64, dtypes.complex128)


def _same_square(allowed):
    def infer(inputs, attrs, node):
        (x,) = inputs
        if x.dtype not in allowed:
            names = ", ".join(d.name for d in allowed)
            raise TypeError(f"Op '{node}': Value passed to parameter 'input' has DataType "
                            f"{x.dtype.name} not in list of allowed values: {names}")
        parts = square_matrices(x, node)
        return x.dtype, (TensorShape(None) if parts is None else
                         batch_of(parts[0], parts[1], parts[1]))
    return infer


register_op(OpDef("MatrixSquareRoot", _same_square(_SQRT_TYPES), 1))
register_op(OpDef("MatrixLogarithm", _same_square(_LOG_TYPES), 1))


def _op(op_type: str, input, name) -> Tensor:  # noqa: A002
    x = convert_to_tensor(input, name="input", graph=graph_of(input))
    return x.graph.create_op(op_type, [x], {}, name=name or op_type).outputs[0]


def matrix_square_root(input, name=None) -> Tensor:  # noqa: A002  (TF's names)
    """The principal square root ``R`` (``R @ R == input``) of each square matrix."""
    return _op("MatrixSquareRoot", input, name)


def matrix_logarithm(input, name=None) -> Tensor:  # noqa: A002
    """The principal logarithm of each complex square matrix."""
    return _op("MatrixLogarithm", input, name)
