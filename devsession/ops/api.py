"""The op-building functions users call (``ds.add``, ``ds.matmul``, ...) and the Tensor
operators that use them.

Each function converts its arguments to Tensors (a Python scalar next to a tensor takes
the tensor's dtype, as in TF1), normalises attributes that need the input's rank (axes
become non-negative) and calls ``Graph.create_op``; dtype and shape checks live in the
op's ``OpDef`` (``definitions.py``), not here.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Operation, Tensor, convert_to_tensor, get_default_graph
from ..tensor_shape import TensorShape, as_shape
from .definitions import normalise_axis
from .registry import InferError

__all__ = [
    "constant", "placeholder", "identity", "add", "subtract", "multiply", "divide",
    "negative", "abs", "exp", "log", "sqrt", "square", "pow", "maximum", "minimum", "tanh",
    "sigmoid", "relu", "where", "cast", "equal", "less", "less_equal", "greater",
    "greater_equal", "matmul", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
    "argmax", "reshape", "transpose", "concat", "softmax", "random_uniform",
    "random_normal", "no_op", "group", "truediv",
]


def _graph_of(*values):
    for v in values:
        if hasattr(v, "_as_tensor"):
            v = v._as_tensor()
        if isinstance(v, (Tensor, Operation)):
            return v.graph
    return get_default_graph()


def _op(op_type: str, inputs, attrs=None, name=None) -> Tensor | Operation:
    graph = _graph_of(*inputs)
    op = graph.create_op(op_type, inputs, attrs, name=name)
    return op.outputs[0] if op.outputs else op


def _operands(*values):
    """Tensors for the operands of an elementwise op: Python values take the dtype of
    the first Tensor among them (float64_tensor * 3.0 stays float64)."""
    graph = _graph_of(*values)
    hint = None
    for v in values:
        t = v._as_tensor() if hasattr(v, "_as_tensor") else v
        if isinstance(t, Tensor):
            hint = t.dtype
            break
    return [convert_to_tensor(v, dtype_hint=hint, graph=graph) for v in values]


# --- sources ---------------------------------------------------------------------------

def constant(value, dtype=None, shape=None, name: str = "Const", graph=None) -> Tensor:
    """A Const node holding ``value`` (broadcast to ``shape`` when given)."""
    from ..graph import _python_value_to_array

    array = _python_value_to_array(value, dtype, strict=dtype is not None)
    if shape is not None:
        shape = tuple(as_shape(shape).as_list())
        if array.size == 1:
            array = np.broadcast_to(array.reshape(()), shape)
        elif array.size == int(np.prod(shape)):
            array = array.reshape(shape)
        else:
            raise ValueError(f"Cannot make a constant of shape {list(shape)} from a value with "
                             f"{array.size} elements.")
    array = np.array(array, copy=True, order="C")
    array.setflags(write=False)
    dtypes.as_dtype(array.dtype)
    graph = graph or get_default_graph()
    return graph.create_op("Const", (), {"value": array, "dtype": dtypes.as_dtype(array.dtype)},
                           name=name).outputs[0]


def placeholder(dtype, shape=None, name: str | None = None) -> Tensor:
    """A value fed at run time; ``shape`` may hold None for unknown dimensions."""
    return _op("Placeholder", (), {"dtype": dtypes.as_dtype(dtype), "shape": as_shape(shape)},
               name or "Placeholder")


def identity(x, name=None) -> Tensor:
    return _op("Identity", _operands(x), name=name)


def no_op(name=None) -> Operation:
    return get_default_graph().create_op("NoOp", (), name=name)


def group(*inputs, name=None) -> Operation:
    """An op that runs after all ``inputs`` (Tensors or Operations)."""
    flat = []
    for item in inputs:
        flat.extend(item if isinstance(item, (list, tuple)) else [item])
    graph = _graph_of(*flat)
    ops = []
    for item in flat:
        element = graph.as_graph_element(item)
        ops.append(element.op if isinstance(element, Tensor) else element)
    return graph.create_op("NoOp", (), name=name or "group_deps", control_inputs=ops)


# --- elementwise ------------------------------------------------------------------------

def _unary(op_type):
    def build(x, name=None):
        return _op(op_type, _operands(x), name=name)
    build.__name__ = op_type.lower()
    build.__doc__ = f"Elementwise {op_type}."
    return build


def _binary(op_type):
    def build(x, y, name=None):
        return _op(op_type, _operands(x, y), name=name)
    build.__name__ = op_type.lower()
    build.__doc__ = f"Elementwise {op_type} with numpy broadcasting."
    return build


negative = _unary("Neg")
abs = _unary("Abs")  # noqa: A001  (TF1's name)
exp = _unary("Exp")
log = _unary("Log")
sqrt = _unary("Sqrt")
square = _unary("Square")
tanh = _unary("Tanh")
sigmoid = _unary("Sigmoid")
relu = _unary("Relu")
add = _binary("Add")
subtract = _binary("Sub")
multiply = _binary("Mul")
divide = truediv = _binary("RealDiv")
pow = _binary("Pow")  # noqa: A001
maximum = _binary("Maximum")
minimum = _binary("Minimum")
equal = _binary("Equal")
less = _binary("Less")
less_equal = _binary("LessEqual")
greater = _binary("Greater")
greater_equal = _binary("GreaterEqual")


def where(condition, x, y, name=None) -> Tensor:
    """Elements of ``x`` where ``condition`` holds, else of ``y`` (broadcasting)."""
    graph = _graph_of(condition, x, y)
    cond = convert_to_tensor(condition, dtype=dtypes.bool_, graph=graph)
    x, y = _operands(x, y)
    return _op("SelectV2", [cond, x, y], name=name)


def cast(x, dtype, name=None) -> Tensor:
    x = convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype == dtype:
        return identity(x, name=name)
    return _op("Cast", [x], {"DstT": dtype}, name=name)


# --- linear algebra, reductions, shapes ---------------------------------------------------

def matmul(a, b, transpose_a: bool = False, transpose_b: bool = False, name=None) -> Tensor:
    return _op("MatMul", _operands(a, b),
               {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}, name)


def _axes(x: Tensor, axis, name: str) -> tuple:
    rank = x.shape.ndims
    if axis is None:
        if rank is None:
            raise ValueError(f"Reducing '{x.name}' over all axes needs a known rank; "
                             f"pass axis= explicitly.")
        return tuple(range(rank))
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    try:
        out = tuple(sorted({normalise_axis(int(a), rank, name) for a in axes}))
    except InferError as e:
        raise ValueError(str(e)) from None
    return out


def _reduction(op_type):
    def build(input_tensor, axis=None, keepdims=False, name=None, keep_dims=None):
        x = convert_to_tensor(input_tensor)
        keep = bool(keep_dims if keep_dims is not None else keepdims)
        return _op(op_type, [x], {"axis": _axes(x, axis, name or op_type), "keepdims": keep},
                   name)
    build.__name__ = f"reduce_{op_type.lower()}"
    build.__doc__ = f"{op_type} over ``axis`` (all axes when None), as tf.reduce_*."
    return build


reduce_sum = _reduction("Sum")
reduce_mean = _reduction("Mean")
reduce_max = _reduction("Max")
reduce_min = _reduction("Min")


def argmax(input, axis=None, name=None, output_type=dtypes.int64) -> Tensor:  # noqa: A002
    """Index of the largest value along ``axis`` (default 0, as TF1), as int64."""
    x = convert_to_tensor(input)
    try:
        axis = normalise_axis(int(0 if axis is None else axis), x.shape.ndims, name or "ArgMax")
    except InferError as e:
        raise ValueError(str(e)) from None
    if dtypes.as_dtype(output_type) != dtypes.int64:
        raise TypeError("argmax returns int64; cast the result for another type.")
    return _op("ArgMax", [x], {"axis": axis}, name)


def reshape(tensor, shape, name=None) -> Tensor:
    """``tensor`` with a new shape (a list of ints, one of which may be -1)."""
    if isinstance(shape, Tensor) or hasattr(shape, "_as_tensor"):
        raise TypeError("reshape takes the new shape as a list of ints (one may be -1); a "
                        "shape computed in the graph is not supported.")
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    elif not isinstance(shape, (list, tuple)):
        shape = np.atleast_1d(np.asarray(shape)).tolist()
    return _op("Reshape", [convert_to_tensor(tensor)], {"shape": tuple(int(d) for d in shape)},
               name)


def transpose(a, perm=None, name=None) -> Tensor:
    x = convert_to_tensor(a)
    if perm is None:
        if x.shape.ndims is None:
            raise ValueError(f"transpose of '{x.name}' without perm needs a known rank.")
        perm = tuple(reversed(range(x.shape.ndims)))
    return _op("Transpose", [x], {"perm": tuple(int(p) for p in perm)}, name)


def concat(values, axis, name=None) -> Tensor:
    tensors = _operands(*values)
    rank = next((t.shape.ndims for t in tensors if t.shape.ndims is not None), None)
    try:
        axis = normalise_axis(int(axis), rank, name or "concat")
    except InferError as e:
        raise ValueError(str(e)) from None
    return _op("ConcatV2", tensors, {"axis": axis}, name)


def softmax(logits, axis=-1, name=None) -> Tensor:
    """Numerically stable softmax along ``axis`` (default: the last)."""
    x = convert_to_tensor(logits)
    try:
        axis = normalise_axis(int(axis), x.shape.ndims, name or "Softmax")
    except InferError as e:
        raise ValueError(str(e)) from None
    return _op("Softmax", [x], {"axis": axis}, name)


# --- random ---------------------------------------------------------------------------------

_DEFAULT_GRAPH_SEED = 87654321


def _seeds(seed) -> tuple[int, int]:
    """(graph seed, op seed) as TF1 derives them; (0, 0) means "not seeded"."""
    graph = get_default_graph()
    if graph.seed is None and seed is None:
        return 0, 0
    if seed is None:
        seed = graph.version  # distinct per op, repeatable for the same graph
    pair = int(graph.seed if graph.seed is not None else _DEFAULT_GRAPH_SEED), int(seed)
    return (0, 2**31 - 1) if pair == (0, 0) else pair  # (0, 0) means unseeded, as in TF


def _random_shape(shape) -> tuple:
    dims = as_shape(shape)
    if not dims.is_fully_defined():
        raise ValueError(f"Random ops need a fully defined shape, got {dims}.")
    return dims.as_tuple()


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=dtypes.float32, seed=None,
                   name=None) -> Tensor:
    """Uniform values in [minval, maxval); a seeded op repeats its sequence per session."""
    seed1, seed2 = _seeds(seed)
    return _op("RandomUniform", (), {"shape": _random_shape(shape), "dtype": dtypes.as_dtype(dtype),
                                     "minval": float(minval), "maxval": float(maxval),
                                     "seed": seed1, "seed2": seed2}, name)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None,
                  name=None) -> Tensor:
    """Normal values; a seeded op repeats its sequence per session."""
    seed1, seed2 = _seeds(seed)
    return _op("RandomStandardNormal", (), {"shape": _random_shape(shape),
                                            "dtype": dtypes.as_dtype(dtype), "mean": float(mean),
                                            "stddev": float(stddev), "seed": seed1,
                                            "seed2": seed2}, name)


# --- Tensor operators -------------------------------------------------------------------------

def _install_operators() -> None:
    def binary(fn, reflected=False):
        if reflected:
            return lambda self, other: fn(other, self)
        return lambda self, other: fn(self, other)

    for method, fn in (("add", add), ("sub", subtract), ("mul", multiply),
                       ("truediv", divide), ("pow", pow), ("matmul", matmul)):
        setattr(Tensor, f"__{method}__", binary(fn))
        setattr(Tensor, f"__r{method}__", binary(fn, reflected=True))
    Tensor.__lt__ = binary(less)
    Tensor.__le__ = binary(less_equal)
    Tensor.__gt__ = binary(greater)
    Tensor.__ge__ = binary(greater_equal)
    Tensor.__neg__ = lambda self: negative(self)
    Tensor.__abs__ = lambda self: abs(self)


_install_operators()
