"""``SparseTensor``: TF1's composite of three tensors, and ``SparseTensorValue``, what a
session returns for one.

A sparse tensor of rank ``R`` with ``N`` stored values is

* ``indices``: int64 ``[N, R]``, the coordinate of each stored value;
* ``values``: ``[N]`` of any dtype;
* ``dense_shape``: int64 ``[R]``, the shape of the dense tensor it stands for.

It is no graph element of its own: ops take its three tensors as inputs and sparse
results come back as three outputs (``ops/sparse.py``).  The session handles it as TF1's
``session.py`` does with its ``_REGISTERED_EXPANSIONS``: a fetched SparseTensor is
fetched as its three tensors and rebuilt as a ``SparseTensorValue`` (``fetches.py``), and
a fed one is fed as its three tensors from a ``SparseTensorValue`` or an ``(indices,
values, dense_shape)`` tuple (``feeds.expand_feed``).

    sp = ds.SparseTensor(indices=[[0, 1], [2, 0]], values=[1.0, 2.0], dense_shape=[3, 4])
    sess.run(sp)   # SparseTensorValue(indices=array([[0, 1], [2, 0]]), ...)

The constructor checks the static shapes as TF1's: ``indices`` of rank 2, ``values`` and
``dense_shape`` of rank 1, as many rows of indices as values and as many columns as
``dense_shape`` has elements; a mismatch is a ValueError with TF's wording.  The static
shape (``.shape``) is what the graph knows of ``dense_shape``'s value, merged with what
``set_shape`` was told (TF 2.x's ``_dense_shape_default``): a dataset iterator's element
or a sparse placeholder knows dims that its ``dense_shape`` tensor cannot say.  A new
SparseTensor built from the same three tensors knows only what the graph says, as TF's.
"""

from __future__ import annotations

import collections

from . import dtypes
from .graph import Tensor, convert_to_tensor, get_default_graph, name_scope, run_in_session
from .tensor_shape import TensorShape

__all__ = ["SparseTensor", "SparseTensorValue", "is_sparse", "convert_to_sparse_tensor"]

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])
SparseTensorValue.__doc__ = ("TF1's ``tf.SparseTensorValue``: the numpy value of a "
                             "SparseTensor (``indices``, ``values``, ``dense_shape``).")


class SparseTensor:
    """TF1's ``tf.SparseTensor(indices, values, dense_shape)`` (see the module
    docstring); ValueError for tensors of the wrong ranks or disagreeing sizes."""

    def __init__(self, indices, values, dense_shape):
        if not all(isinstance(t, Tensor) for t in (indices, values, dense_shape)):
            graph = _graph_of(indices, values, dense_shape)
            with graph.as_default(), name_scope("SparseTensor"):
                indices = convert_to_tensor(indices, dtype=dtypes.int64, name="indices",
                                            graph=graph)
                values = convert_to_tensor(values, name="values", graph=graph)
                dense_shape = convert_to_tensor(dense_shape, dtype=dtypes.int64,
                                                name="dense_shape", graph=graph)
        for what, tensor in (("indices", indices), ("dense_shape", dense_shape)):
            if tensor.dtype != dtypes.int64:
                raise TypeError(f"SparseTensor's {what} must be int64, but '{tensor.name}' "
                                f"is {tensor.dtype.name}.")
        _check_shapes(indices.shape, values.shape, dense_shape.shape)
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        self._dense_shape_default = None         # what set_shape added, merged

    @classmethod
    def from_value(cls, sparse_tensor_value) -> "SparseTensor":
        """A SparseTensor of constants from a ``SparseTensorValue`` (or the SparseTensor
        itself); TypeError for anything else."""
        if not is_sparse(sparse_tensor_value):
            raise TypeError(f"Neither a SparseTensor nor SparseTensorValue: "
                            f"{sparse_tensor_value!r}.")
        return cls(indices=sparse_tensor_value.indices, values=sparse_tensor_value.values,
                   dense_shape=sparse_tensor_value.dense_shape)

    indices = property(lambda self: self._indices, doc="int64 ``[N, rank]`` coordinates.")
    values = property(lambda self: self._values, doc="``[N]``: the stored values.")
    dense_shape = property(lambda self: self._dense_shape,
                           doc="int64 ``[rank]``: the dense tensor's shape.")
    dtype = property(lambda self: self._values.dtype, doc="The dtype of the values.")
    op = property(lambda self: self._values.op, doc="The op making the values (TF1's).")
    graph = property(lambda self: self._indices.graph)

    def get_shape(self) -> TensorShape:
        """The static shape: what the graph knows of ``dense_shape``'s value, with what
        ``set_shape`` added."""
        if self._dense_shape_default is not None:
            return self._dense_shape_default
        from .ops.array_operands import partial_shape_value

        dims = partial_shape_value(self._dense_shape)
        return TensorShape(None if dims is None else
                           [d if d is not None and d >= 0 else None for d in dims])

    def set_shape(self, shape) -> None:
        """Tells the static shape more than ``dense_shape``'s tensor says (TF 2.x's
        ``SparseTensor.set_shape``); ValueError when it contradicts what is known."""
        self._dense_shape_default = self.get_shape().merge_with(TensorShape(shape))

    @property
    def shape(self) -> TensorShape:
        return self.get_shape()

    def eval(self, feed_dict=None, session=None) -> SparseTensorValue:
        """Its value in ``session`` (else the default session), as a SparseTensorValue."""
        return run_in_session(self, feed_dict, session, "evaluate a SparseTensor")

    def consumers(self) -> list:
        """The operations that take any of its three tensors, in graph order."""
        mine = (self._indices, self._values, self._dense_shape)
        return [op for op in self.graph.get_operations()
                if any(t is m for t in op.inputs for m in mine)]

    def __repr__(self) -> str:
        return (f"SparseTensor(indices={self._indices!r}, values={self._values!r}, "
                f"dense_shape={self._dense_shape!r})")

    def __bool__(self):
        raise TypeError("Using a ds.SparseTensor as a Python bool is not allowed.")

    # --- what ds.cond returns and ds.while_loop carries (ops/control_flow.py) ----------

    def _loop_parts(self) -> list:
        return [self._indices, self._values, self._dense_shape]

    def _loop_invariants(self, given=None) -> list:
        """TF's SparseTensorSpec components: the number of values may change from one
        iteration to the next, the rank may not.  A shape invariant ``given`` for it is
        TF1's: the shape of ``dense_shape``, ``[rank]`` (ValueError for another rank)."""
        rank = self._dense_shape.shape.dims[0] if self._dense_shape.shape.ndims == 1 else None
        if given is not None:
            given = TensorShape(given)
            if given.ndims is not None and given.ndims != 1:
                raise ValueError(f"Expected a shape with 1 dimension. Obtained: "
                                 f"{_tf_shape(given)} which has {given.ndims} dimensions.")
            rank = given.dims[0] if given.ndims == 1 else None
        return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]

    def _with_loop_parts(self, parts, given=None) -> "SparseTensor":
        """The same kind of value on ``parts`` with this one's static shape, as TF's
        SparseTensorSpec gives it: a cond's is its true branch's, a loop's its entry
        value's, or of the rank of the shape invariant ``given`` for it."""
        value = SparseTensor(*parts)
        shape = self.get_shape()
        if given is not None:
            rank = self._loop_invariants(given)[2].dims[0]
            shape = TensorShape(None if rank is None else [None] * rank)
        if shape.ndims is not None and value.get_shape().is_compatible_with(shape):
            value.set_shape(shape)
        return value


def _graph_of(*values):
    for v in values:
        if isinstance(v, Tensor) or hasattr(v, "_as_tensor"):
            return v.graph
    return get_default_graph()


def _check_shapes(indices: TensorShape, values: TensorShape, dense_shape: TensorShape):
    """TF1's static checks of the three tensors, with its messages."""
    for shape, rank in ((indices, 2), (values, 1), (dense_shape, 1)):
        if shape.ndims is not None and shape.ndims != rank:
            raise ValueError(f"Shape {_tf_shape(shape)} must have rank {rank}")
    if indices.ndims is None:
        return
    for mine, theirs in ((indices.dims[0], values), (indices.dims[1], dense_shape)):
        other = theirs.dims[0] if theirs.ndims is not None else None
        if mine is not None and other is not None and mine != other:
            raise ValueError(f"Dimensions {mine} and {other} are not compatible")


def _tf_shape(shape: TensorShape) -> str:
    """``(2,)`` / ``(?, 3)``: a static shape as TF1 prints it in these messages."""
    dims = ["?" if d is None else str(d) for d in shape.dims]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def is_sparse(x) -> bool:
    """Whether ``x`` is a SparseTensor or a SparseTensorValue (TF1's ``is_sparse``)."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_sparse_tensor(value, what: str = "sp_input") -> SparseTensor:
    """``value`` as a SparseTensor (a SparseTensorValue becomes constants); TypeError
    for anything else, as TF1's sparse ops raise."""
    if isinstance(value, SparseTensor):
        return value
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    raise TypeError(f"Input must be a SparseTensor ({what}), got {type(value).__name__}.")
