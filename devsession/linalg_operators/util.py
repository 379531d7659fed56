"""Small helpers the linear operators share: adjoint products over devsession's
``matmul`` (which has TF1's ``transpose_a``/``transpose_b`` but not TF 2's
``adjoint_a``), batch broadcasting for the solves whose ops (MatrixSolve,
MatrixTriangularSolve) want equal batch shapes, and TF's run-time assertions on
operator entries (``linear_operator_util``'s)."""

from __future__ import annotations

from . import tf_api as ds


def conj(x):
    """The conjugate of a complex tensor; real tensors pass through untouched, so
    real graphs gain no Conj nodes."""
    return ds.conj(x) if x.dtype.is_complex else x


def adjoint(x):
    """The conjugate transpose of the last two axes (TF's ``tf.linalg.adjoint``)."""
    return ds.matrix_transpose(conj(x))


def matmul(a, b, adjoint_a=False, adjoint_b=False):
    """``a @ b`` with either factor's adjoint, broadcasting batch axes as TF's
    BatchMatMulV2."""
    return ds.matmul(a, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)


def broadcast_matrix_batch_dims(matrices):
    """The matrices with their batch axes (all but the last two) broadcast against
    each other: statically when every shape is known, else through their run-time
    shapes."""
    matrices = [ds.convert_to_tensor(m) for m in matrices]
    shapes = [m.shape for m in matrices]
    if all(s.is_fully_defined() for s in shapes):
        batch = ds.TensorShape([])
        for s in shapes:
            batch = ds.broadcast_static_shape(batch, s[:-2])
        return [m if m.shape[:-2] == batch else
                ds.broadcast_to(m, batch.concatenate(m.shape[-2:]).as_list())
                for m in matrices]
    batch = ds.shape(matrices[0])[:-2]
    for m in matrices[1:]:
        batch = ds.broadcast_dynamic_shape(batch, ds.shape(m)[:-2])
    return [ds.broadcast_to(m, ds.concat([batch, ds.shape(m)[-2:]], 0))
            for m in matrices]


def matrix_solve_with_broadcast(matrix, rhs, adjoint=False):
    """MatrixSolve of ``matrix`` and ``rhs`` after broadcasting their batch axes."""
    matrix, rhs = broadcast_matrix_batch_dims([matrix, rhs])
    return ds.matrix_solve(matrix, rhs, adjoint=adjoint)


def triangular_solve_with_broadcast(matrix, rhs, lower=True, adjoint=False):
    """MatrixTriangularSolve after broadcasting the batch axes."""
    matrix, rhs = broadcast_matrix_batch_dims([matrix, rhs])
    return ds.matrix_triangular_solve(matrix, rhs, lower=lower, adjoint=adjoint)


def assert_no_entries_with_modulus_zero(x, message=None, name=None):
    """TF's ``assert_no_entries_with_modulus_zero``: every ``|x| > 0``."""
    x = ds.convert_to_tensor(x)
    return ds.debugging.assert_less(ds.zeros([], x.dtype.real_dtype), ds.abs(x),
                                    message=message, name=name)


def assert_zero_imag_part(x, message=None, name=None):
    """TF's ``assert_zero_imag_part``: a no-op for real ``x``."""
    x = ds.convert_to_tensor(x)
    if not x.dtype.is_complex:
        return ds.no_op(name=name)
    return ds.debugging.assert_equal(ds.zeros([], x.dtype.real_dtype), ds.imag(x),
                                     message=message, name=name)


def static_int(value):
    """``value`` as a Python int when it is known when the graph is built, else None."""
    if isinstance(value, int):
        return value
    if ds.is_tensor(value):
        v = ds.get_static_value(value)
        return None if v is None else int(v)
    return int(value)


def eye(n, batch_shape, dtype):
    """``tf.eye(n, batch_shape=...)`` for sizes known only when the graph runs too
    (devsession's ``eye`` wants Python ints): a diagonal of ones then."""
    if isinstance(n, int) and isinstance(batch_shape, (list, tuple)):
        return ds.eye(n, batch_shape=list(batch_shape), dtype=dtype)
    if isinstance(batch_shape, (list, tuple)):
        batch_shape = ds.constant(list(batch_shape), ds.int32)
    n = ds.reshape(ds.cast(n, ds.int32), [1])
    return ds.matrix_diag(ds.ones(ds.concat([ds.cast(batch_shape, ds.int32), n], 0), dtype))


def dims_compatible(a, b):
    """Whether two static dimensions (ints, Dimensions or None) may be equal."""
    a, b = ds.dimension_value(a), ds.dimension_value(b)
    return a is None or b is None or a == b


def check_dims_compatible(a, b):
    """TF's ``assert_is_compatible_with`` of two dimensions: its ValueError."""
    if not dims_compatible(a, b):
        raise ValueError("Dimensions %s and %s are not compatible"
                         % (ds.dimension_value(a), ds.dimension_value(b)))
