"""TF1's ``tf.TensorArray`` as ``ds.TensorArray``: the graph-building side of
``ops/tensor_array.py`` (which says what the array is: two tensors, ``values`` and
``lengths``, that every write outputs anew).

As in TF1, ``write``, ``scatter``, ``unstack`` and ``split`` return a new TensorArray
(use it: the old one does not see the write), and a TensorArray is a loop variable of
``ds.while_loop`` (and a result of ``ds.cond``), carried as its two tensors.  The
element shape known when building is shared by every TensorArray made from the same
one, as TF1's is, so ``stack()`` after a loop knows what the body wrote; a value whose
static shape does not fit it is a ValueError at build time.

    ta = ds.TensorArray(ds.float32, size=n)
    _, ta = ds.while_loop(lambda t, ta: t < n,
                          lambda t, ta: (t + 1, ta.write(t, x[t] * 2.0)), (0, ta))
    doubled = ta.stack()

``flow`` is the ``values`` tensor and ``handle`` the ``lengths`` tensor, so
``ds.TensorArray(dtype, handle=ta.handle, flow=ta.flow)`` is ``ta`` again (but fixed in
size: TF1 takes no ``dynamic_size`` with a handle).  A loop that carries only
``ta.flow`` loses the writes' lengths: carry the TensorArray itself.

``clear_after_read`` (TF1's default, True) makes a second read of an element in one run
(``read``, ``gather``, ``stack``, ``concat``) or a write after its read TF1's
InvalidArgumentError: the ops of such an array carry the attr and the array's name, and
their kernels note what was read (``kernels/reference/tensor_array.py``).  An array
made from a ``handle`` does not clear.  Accepted and without effect:
``tensor_array_name``, ``colocate_with_first_write_call``; ``close()`` is a no-op.
"""

from __future__ import annotations

from . import dtypes
from .graph import Tensor, constant_value, convert_to_tensor, get_default_graph, name_scope
from .ops.array import identity as identity_op
from .ops.array_fill import shape as shape_op, size as size_op
from .ops.elementwise import cast
from .ops.sequence import range as range_op
from .ops.state import no_op
from .ops.tensor_array import element_shape_of_values
from .tensor_shape import TensorShape, as_shape

__all__ = ["TensorArray"]


class TensorArray:
    """See the module docstring; the constructor's arguments are TF1's.

    Raises ValueError for a missing ``size`` (without ``handle``), a ``handle`` with
    ``size``, ``element_shape``, ``dynamic_size`` or ``clear_after_read``, or one
    without ``flow``; TypeError for a ``handle`` that is not a tensor.
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        _check_arguments(size, dynamic_size, clear_after_read, tensor_array_name, handle,
                         flow, element_shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._infer_shape = bool(infer_shape)
        self._dynamic_size = bool(dynamic_size)
        self._clearing = {}                # the attrs of an array that clears after reads
        if handle is not None:
            self._values, self._lengths = convert_to_tensor(flow), handle
            self._size = None
            self._element_shape = [element_shape_of_values(self._values.shape,
                                                           self._infer_shape)]
            self._check_flow()
            return
        self._size = size
        self._element_shape = [as_shape(element_shape)]
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        op = get_default_graph().create_op(
            "_TensorArray", [size],
            {"dtype": self._dtype, "element_shape": self._element_shape[0],
             "dynamic_size": self._dynamic_size,
             "clear_after_read": True if clear_after_read is None else bool(clear_after_read),
             "identical_element_shapes": self._infer_shape,
             "tensor_array_name": tensor_array_name or ""},
            name=name or "TensorArray")
        self._values, self._lengths = op.outputs
        if op.attrs["clear_after_read"]:
            self._clearing = {"clear_after_read": True, "array_name": op.name}

    def _check_flow(self) -> None:
        if self._values.dtype != self._dtype:
            raise TypeError(f"A TensorArray of {self._dtype.name} cannot take flow "
                            f"'{self._values.name}' of {self._values.dtype.name}.")
        if self._lengths.dtype != dtypes.int32:
            raise TypeError(f"A TensorArray's handle is its int32 lengths (ta.handle), "
                            f"not '{self._lengths.name}' of {self._lengths.dtype.name}.")

    def _new(self, values, lengths) -> "TensorArray":
        """This array with other tensors, sharing what is known of its element shape."""
        new = object.__new__(TensorArray)
        new.__dict__.update(self.__dict__)
        new._values, new._lengths = values, lengths
        return new

    # --- properties -------------------------------------------------------------------

    dtype = property(lambda self: self._dtype)
    flow = property(lambda self: self._values)
    handle = property(lambda self: self._lengths)
    element_shape = property(lambda self: self._element_shape[0])
    dynamic_size = property(lambda self: self._dynamic_size)

    def __repr__(self) -> str:
        return (f"<ds.TensorArray '{self._values.name}' dtype={self._dtype.name} "
                f"element_shape={self.element_shape}>")

    # --- what ds.while_loop and ds.cond carry -------------------------------------------

    def _loop_parts(self) -> list:
        return [self._values, self._lengths]

    def _loop_invariants(self, given=None) -> list:
        """The shapes the parts keep through a loop's iterations: a dynamic array may
        grow, and elements not yet written may take any shape that fits (a shape
        invariant ``given`` for it is not used, as TF1's)."""
        element = self.element_shape if self._infer_shape else TensorShape(None)
        size = None if self._dynamic_size else self._values.shape.dims[0] \
            if self._values.shape.ndims else None
        values = TensorShape(None) if element.ndims is None \
            else TensorShape([size]).concatenate(element)
        return [values, TensorShape([size])]

    def _with_loop_parts(self, parts, given=None) -> "TensorArray":
        return self._new(*parts)

    # --- writes -------------------------------------------------------------------------

    def _merge_element_shape(self, shape: TensorShape) -> None:
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected "
                             f"{self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    def _value(self, value) -> Tensor:
        return convert_to_tensor(value, dtype=self._dtype, name="value")

    def _write_op(self, op_type, inputs, name) -> "TensorArray":
        attrs = {"element_shape": self._declared_shape(),
                 "dynamic_size": self._dynamic_size,
                 "identical_element_shapes": self._infer_shape, **self._clearing}
        op = get_default_graph().create_op(op_type, [self._values, self._lengths, *inputs],
                                           attrs, name=name)
        return self._new(*op.outputs)

    def _declared_shape(self) -> TensorShape:
        """The element shape the run-time checks hold writes to."""
        return self.element_shape

    def write(self, index, value, name=None) -> "TensorArray":
        """This array with ``value`` at ``index`` (a new TensorArray)."""
        with name_scope(name or "TensorArrayWrite"):
            value = self._value(value)
            self._merge_element_shape(value.shape)
            index = convert_to_tensor(index, dtype=dtypes.int32, name="index")
            return self._write_op("_TensorArrayWrite", [index, value], "write")

    def scatter(self, indices, value, name=None) -> "TensorArray":
        """This array with ``value[k]`` at ``indices[k]``."""
        with name_scope(name or "TensorArrayScatter"):
            value = self._value(value)
            if value.shape.ndims is not None:
                self._merge_element_shape(TensorShape(value.shape.dims[1:]))
            indices = convert_to_tensor(indices, dtype=dtypes.int32, name="indices")
            return self._write_op("_TensorArrayScatter", [indices, value], "scatter")

    def unstack(self, value, name=None) -> "TensorArray":
        """This array with ``value``'s rows at 0, 1, ..."""
        with name_scope(name or "TensorArrayUnstack"):
            value = self._value(value)
            return self.scatter(range_op(0, shape_op(value)[0]), value, name="unstack")

    def split(self, value, lengths, name=None) -> "TensorArray":
        """This array with ``value`` cut along its first dimension into pieces of
        ``lengths``, at 0, 1, ..."""
        with name_scope(name or "TensorArraySplit"):
            value = self._value(value)
            lengths = convert_to_tensor(lengths, name="lengths")
            known = constant_value(lengths)
            lengths = cast(lengths, dtypes.int64)
            if value.shape.ndims is not None and known is not None and known.size \
                    and known.max() == known.min():
                self._merge_element_shape(
                    TensorShape([int(known[0])]).concatenate(value.shape.dims[1:]))
            return self._write_op("_TensorArraySplit", [value, lengths], "split")

    # --- reads --------------------------------------------------------------------------

    def _read_op(self, op_type, inputs, attrs, name) -> Tensor:
        return get_default_graph().create_op(
            op_type, [self._values, self._lengths, *inputs], {**attrs, **self._clearing},
            name=name).outputs[0]

    def read(self, index, name=None) -> Tensor:
        """The element at ``index``: zeros where it has not been written and its shape
        is fully known (as TF1's), else InvalidArgumentError at run time, as past the
        size."""
        index = convert_to_tensor(index, dtype=dtypes.int32, name="index")
        value = self._read_op("_TensorArrayRead", [index],
                              {"element_shape": self.element_shape,
                               "identical_element_shapes": self._infer_shape},
                              name or "TensorArrayRead")
        value.set_shape(self.element_shape)
        return value

    def gather(self, indices, name=None) -> Tensor:
        """The elements at ``indices``, stacked."""
        indices = convert_to_tensor(indices, dtype=dtypes.int32, name="indices")
        value = self._read_op("_TensorArrayGather", [indices],
                              {"element_shape": self.element_shape,
                               "identical_element_shapes": self._infer_shape},
                              name or "TensorArrayGather")
        if self.element_shape.ndims is not None:
            value.set_shape(TensorShape([None]).concatenate(self.element_shape))
        return value

    def stack(self, name=None) -> Tensor:
        """Every element, stacked (each must have been written)."""
        with name_scope(name or "TensorArrayStack"):
            value = self.gather(range_op(0, self.size()), name="stack")
            size = _static_size(self._size) if not self._dynamic_size else None
            if size is not None and self.element_shape.ndims is not None:
                value.set_shape(TensorShape([int(size)]).concatenate(self.element_shape))
            return value

    def concat(self, name=None) -> Tensor:
        """Every element, concatenated along the first dimension."""
        element = self.element_shape
        rest = TensorShape(None if element.ndims is None else element.dims[1:])
        value = self._read_op("_TensorArrayConcat", [],
                              {"element_shape_except0": rest, "element_shape": element,
                               "identical_element_shapes": self._infer_shape},
                              name or "TensorArrayConcat")
        if element.ndims is not None:
            value.set_shape(TensorShape([None]).concatenate(rest))
        return value

    def size(self, name=None) -> Tensor:
        """The number of elements (int32 scalar); a dynamic array's grows with writes."""
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=dtypes.int32)
        return size_op(self._lengths, name=name or "TensorArraySize")

    # --- the rest -----------------------------------------------------------------------

    def identity(self) -> "TensorArray":
        """This array through Identity ops (for control dependencies)."""
        return self._new(identity_op(self._values), identity_op(self._lengths))

    def close(self, name=None):
        """A no-op: an array is freed with the step's other values."""
        return no_op(name=name or "TensorArrayClose")

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError("TensorArray.grad: devsession's TensorArray is values; "
                                  "take gradients with ds.gradients.")


def _static_size(size):
    if isinstance(size, Tensor):
        return constant_value(size)
    return size


def _check_arguments(size, dynamic_size, clear_after_read, tensor_array_name, handle, flow,
                     element_shape) -> None:
    """TF1's checks of the constructor's arguments, and its messages."""
    if handle is not None and tensor_array_name:
        raise ValueError("Cannot provide both `handle` and `tensor_array_name` arguments at "
                         "the same time.")
    if handle is not None and not isinstance(handle, Tensor):
        raise TypeError(f"Expected `handle` to be a Tensor, but got `{handle}` of type "
                        f"`{type(handle)}` instead.")
    if handle is None and size is None:
        raise ValueError("Argument `size` must be provided if handle is not provided.")
    for given, what in ((size, "size"), (element_shape, "element_shape"),
                        (dynamic_size, "dynamic_size"), (clear_after_read, "clear_after_read")):
        if handle is not None and given is not None:
            raise ValueError(f"Cannot provide both a `handle` and `{what}` arguments at the "
                             f"same time.")
    if handle is not None and flow is None:
        raise ValueError("flow must not be None if handle is not None.")
    if handle is None and flow is not None:
        raise ValueError("A TensorArray's flow comes with its handle (ta.handle): pass both "
                         "or neither.")
