"""Kernels of the TensorArray ops (``devsession/ops/tensor_array.py``, which describes
the two arrays a TensorArray is: ``values`` and ``lengths``) for every device.

The bookkeeping (indices, lengths, the checks and TF1's messages) is on the host; the
elements move with the array module ``xp`` (numpy here, for the reference device and
the CPU; cupy for the GPU: ``cuda/tensor_array.py``).  Lengths and indices arrive as
host arrays (``OpDef.host_inputs``); the lengths a kernel outputs are ``xp`` arrays.
Every kernel returns new arrays: a write copies the array before writing into it.
The reads of an array that clears after them are noted (``tensor_array_clearing.py``).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...errors import UnimplementedError
from ..checks import fmt_shape, get_attr, invalid_argument
from ..registry import HOST, register_kernel
from .tensor_array_clearing import check_writes, inherit, note_reads

__all__ = ["make_builders"]


def _as_is(node, fn):
    return fn


def _unimplemented(node_name: str, op: str, message: str) -> UnimplementedError:
    """TF's ``errors::Unimplemented`` for node ``node_name`` (a zero-size array stacked or
    concatenated without a fully defined element shape)."""
    return UnimplementedError(f"{op} node '{node_name}': {message}", node_name=node_name)


def _host(x) -> np.ndarray:
    """``x`` (a host array or scalar, or a device array) as a numpy array."""
    if hasattr(x, "__cuda_array_interface__"):
        return np.asarray(x.get())
    return np.asarray(x)


def _known(element_shape) -> bool:
    return element_shape is not None and all(d is not None for d in element_shape)


def _compatible(shape: tuple, element_shape) -> bool:
    return element_shape is None or (len(shape) == len(element_shape) and all(
        d is None or d == s for d, s in zip(element_shape, shape)))


def _scalar_index(node, index) -> int:
    """A read's or write's index, which TF1 wants a scalar."""
    index = _host(index)
    if index.ndim:
        raise invalid_argument(node.name, node.op, f"TensorArray index must be scalar, but "
                               f"had shape: {fmt_shape(index.shape)}")
    return int(index)


def _fmt_partial(element_shape) -> str:
    if element_shape is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in element_shape) + "]"


class _Array:
    """One TensorArray's two arrays, read on the host where it matters.

    ``declared`` is the element shape the graph knows (the read op's ``element_shape``
    attr; None where unknown) and ``identical`` its ``identical_element_shapes``: with
    them an element not yet written reads as zeros, as TF1's does, where its shape is
    fully known (declared, or set by a write to an array of identical shapes)."""

    def __init__(self, xp, values, lengths, declared=None, identical=True):
        self.xp, self.values, self.lengths = xp, values, _host(lengths).astype(np.int32)
        self.size = len(self.lengths)
        self.settled = bool((self.lengths >= 0).any())
        self.declared = declared
        self.unwritten_shape = None     # the zeros an unwritten element reads as
        if identical and self.settled:
            self.unwritten_shape = self.element_shape(int(np.argmax(self.lengths >= 0)))
        elif _known(declared):
            self.unwritten_shape = tuple(int(d) for d in declared)

    def element_shape(self, i: int) -> tuple:
        if self.lengths[i] < 0:
            return self.unwritten_shape
        if self.values.ndim == 1:
            return ()
        return (int(self.lengths[i]),) + tuple(self.values.shape[2:])

    def element(self, i: int):
        if self.lengths[i] < 0:
            return self.xp.zeros(self.unwritten_shape, self.values.dtype)
        if self.values.ndim == 1:
            return self.values[i, ...].copy()
        return self.values[i, :int(self.lengths[i])].copy()

    def check_read(self, node, i: int) -> None:
        if i < 0 or i >= self.size:
            raise invalid_argument(node.name, node.op, f"Tried to read from index {i} but "
                                   f"array size is: {self.size}")
        if self.lengths[i] < 0 and self.values.dtype == object:
            raise invalid_argument(node.name, node.op, "tensor_array::TensorSetZero type "
                                   "not supported: string")
        if self.lengths[i] < 0 and self.unwritten_shape is None:
            raise invalid_argument(
                node.name, node.op, f"Could not read from TensorArray index {i}.  "
                f"Furthermore, the element shape is not fully defined: "
                f"{_fmt_partial(self.declared)}.  It is possible you are working "
                f"with a resizeable TensorArray and stop_gradients is not allowing the "
                f"gradients to be written.  If you set the full element_shape property on "
                f"the forward TensorArray, the proper all-zeros tensor will be returned "
                f"instead of incurring this error.")


def _write_rows(node, xp, array: _Array, indices, elements) -> tuple:
    """(values, lengths) of ``array`` with ``elements`` written at ``indices``, checked
    as TF1's ``TensorArrayWriteV3`` checks each write."""
    dynamic = bool(node.attrs.get("dynamic_size", False))
    overwrite = bool(node.attrs.get("overwrite", False))     # a TensorList's SetItem
    identical = bool(node.attrs.get("identical_element_shapes", True))
    declared = node.attrs.get("element_shape")
    lengths = array.lengths.copy()
    size = array.size
    reference = None                   # an element shape every new one must agree with
    if array.settled:
        first = int(np.argmax(lengths >= 0))
        reference = array.element_shape(first)
    for i, element in zip(indices, elements):
        i, shape = int(i), tuple(element.shape)
        if i < 0 or (i >= size and not dynamic):
            raise invalid_argument(node.name, node.op, f"Tried to write to index {i} but "
                                   f"array is not resizeable and size is: {size}")
        if i < len(lengths) and lengths[i] >= 0 and not overwrite:
            raise invalid_argument(node.name, node.op, f"Could not write to TensorArray "
                                   f"index {i} because it has already been written to.")
        if not _compatible(shape, declared) or (identical and reference is not None
                                                and shape != reference):
            expected = reference if identical and reference is not None else declared
            raise invalid_argument(
                node.name, node.op, f"Could not write to TensorArray index {i} because the "
                f"value shape is {fmt_shape(shape)} which is incompatible with the "
                f"TensorArray's inferred element shape: "
                f"{_fmt_partial(expected)} (consider setting infer_shape=False).")
        if reference is not None and (len(shape) != len(reference)
                                      or shape[1:] != reference[1:]):
            raise invalid_argument(
                node.name, node.op, f"Could not write to TensorArray index {i}: its value "
                f"has shape {fmt_shape(shape)}, the other elements "
                f"{fmt_shape(reference)}; devsession's TensorArray holds elements that "
                f"differ only in their first dimension.")
        reference = reference if reference is not None else shape
        if i >= len(lengths):
            lengths = np.concatenate([lengths, np.full(i + 1 - len(lengths), -1, np.int32)])
        lengths[i] = shape[0] if shape else 0
    values = _placed(xp, array, lengths, reference, indices, elements)
    return values, xp.asarray(lengths)


def _placed(xp, array: _Array, lengths, element_shape, indices, elements):
    """A new values array for ``lengths``, holding ``array``'s elements and ``elements``
    at ``indices``."""
    if element_shape is None:          # nothing written, nothing to write
        shape = (len(lengths),) + tuple(array.values.shape[1:])
        return xp.zeros(shape, array.values.dtype)
    if element_shape:
        width = max([int(n) for n in lengths if n >= 0] + [0])
        if array.settled:
            width = max(width, array.values.shape[1])
        shape = (len(lengths), width) + tuple(element_shape[1:])
    else:
        shape = (len(lengths),)
    values = xp.zeros(shape, array.values.dtype)
    if array.settled:
        values[tuple(slice(0, d) for d in array.values.shape)] = array.values
    for i, element in zip(indices, elements):
        # (a 0-d element goes in as its item: numpy would store a 0-d object array whole)
        values[(int(i),) + tuple(slice(0, d) for d in element.shape)] = \
            element[()] if element.ndim == 0 else element
    return values


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """The builders for array module ``xp`` (numpy or cupy); ``wrap(node, fn)`` wraps
    every kernel (the GPU's ``on_device``)."""

    def build_new(node):
        dtype = np.dtype(get_attr(node, "dtype"))
        declared = node.attrs.get("element_shape")

        def new_array(size):
            n = int(_host(size))
            if n < 0:
                raise invalid_argument(node.name, node.op, f"Size should be >= 0, not {n}.")
            placeholder = () if declared is None else tuple(d or 0 for d in declared)
            return (xp.zeros((n,) + placeholder, dtype),
                    xp.asarray(np.full(n, -1, np.int32)))
        return wrap(node, new_array)

    def written(node, values, array, indices, elements):
        """``_write_rows``, refused at an element already read of an array that clears,
        whose new array remembers what was read."""
        check_writes(node, values, indices)
        new_values, new_lengths = _write_rows(node, xp, array, indices, elements)
        inherit(node, values, new_values)
        return new_values, new_lengths

    def build_write(node):
        def write(values, lengths, index, value):
            return written(node, values, _Array(xp, values, lengths),
                           [_scalar_index(node, index)], [value])
        return wrap(node, write)

    def build_scatter(node):
        def scatter(values, lengths, indices, value):
            indices = _host(indices).reshape(-1)
            if value.ndim == 0:
                raise invalid_argument(node.name, node.op, f"Input value for unpack must be "
                                       f"at least a vector but received shape: "
                                       f"{fmt_shape(value.shape)}")
            if len(indices) != value.shape[0]:
                raise invalid_argument(node.name, node.op, f"Expected len(indices) == "
                                       f"values.shape[0], but saw: {len(indices)} vs. "
                                       f"{value.shape[0]}")
            return written(node, values, _Array(xp, values, lengths), indices,
                           [value[k, ...] for k in range(len(indices))])
        return wrap(node, scatter)

    def build_split(node):
        dynamic = bool(node.attrs.get("dynamic_size", False))

        def split(values, lengths, value, split_lengths):
            array = _Array(xp, values, lengths)
            pieces = [int(n) for n in _host(split_lengths).reshape(-1)]
            if value.ndim == 0:
                raise invalid_argument(node.name, node.op, f"Expected value to be at least a "
                                       f"vector, but received shape: "
                                       f"{fmt_shape(value.shape)}")
            if sum(pieces) != value.shape[0] or min(pieces + [0]) < 0:
                raise invalid_argument(node.name, node.op, f"Expected sum of lengths to be "
                                       f"equal to values.shape[0], but sum of lengths is: "
                                       f"{sum(pieces)} and value's shape is: "
                                       f"{fmt_shape(value.shape)}")
            if not dynamic and len(pieces) != array.size:
                raise invalid_argument(node.name, node.op, f"TensorArray's size is not equal "
                                       f"to the size of lengths ({array.size} vs. "
                                       f"{len(pieces)}), and the TensorArray is not marked "
                                       f"as dynamically resizeable")
            starts = np.concatenate([[0], np.cumsum(pieces)]).astype(int)
            elements = [value[starts[k]:starts[k + 1]] for k in range(len(pieces))]
            return written(node, values, array, range(len(pieces)), elements)
        return wrap(node, split)

    def reading(node, values, lengths) -> _Array:
        """The array a read op reads, knowing the element shape its attrs declare."""
        return _Array(xp, values, lengths, node.attrs.get("element_shape"),
                      bool(node.attrs.get("identical_element_shapes", True)))

    def build_read(node):
        def read(values, lengths, index):
            array, i = reading(node, values, lengths), _scalar_index(node, index)
            array.check_read(node, i)
            note_reads(node, values, [i])
            return array.element(i)
        return wrap(node, read)

    def build_gather(node):
        declared = node.attrs.get("element_shape")

        def gather(values, lengths, indices):
            array = reading(node, values, lengths)
            indices = [int(i) for i in _host(indices).reshape(-1)]
            for i in indices:
                array.check_read(node, i)
            note_reads(node, values, indices)
            shapes = [array.element_shape(i) for i in indices]
            for i, shape in zip(indices, shapes):
                if shape != shapes[0]:
                    raise invalid_argument(
                        node.name, node.op, f"TensorArray has inconsistent shapes.  Index "
                        f"{indices[0]} has shape: {fmt_shape(shapes[0])} but index {i} has "
                        f"shape: {fmt_shape(shape)}")
            if not indices:
                element = array.element_shape(int(np.argmax(array.lengths >= 0))) \
                    if array.settled else declared
                if not _known(element):
                    raise _unimplemented(
                        node.name, node.op, f"TensorArray has size zero, but element shape "
                        f"{_fmt_partial(element)} is not fully defined. Currently only "
                        f"static shapes are supported when packing zero-size TensorArrays.")
                return xp.zeros((0,) + tuple(element), values.dtype)
            rows = values[xp.asarray(np.array(indices, np.int64))]
            return xp.ascontiguousarray(
                rows[(slice(None),) + tuple(slice(0, d) for d in shapes[0])])
        return wrap(node, gather)

    def build_concat(node):
        declared = node.attrs.get("element_shape_except0")

        def concat(values, lengths):
            array = reading(node, values, lengths)
            for i in range(array.size):
                array.check_read(node, i)
            note_reads(node, values, range(array.size))
            if array.size and values.ndim == 1:
                raise invalid_argument(node.name, node.op, "Concat saw a scalar shape at "
                                       "index 0 but requires at least vectors.  Did you "
                                       "mean to call TensorArray::Pack instead?")
            if not array.size:
                if not _known(declared):
                    raise _unimplemented(
                        node.name, node.op, f"TensorArray has size zero, but "
                        f"element_shape_except0 {_fmt_partial(declared)} is not fully "
                        f"defined. Currently only static shapes are supported when "
                        f"concatenating zero-size TensorArrays.")
                return xp.zeros((0,) + tuple(declared), values.dtype)
            return xp.concatenate([array.element(i) for i in range(array.size)])
        return wrap(node, concat)

    def build_gather_grad(node):
        def gather_grad(like, indices, grad):
            indices = _host(indices)
            if indices.ndim == 0:
                indices, grad = indices.reshape(1), grad.reshape((1,) + grad.shape)
            out = xp.zeros(like.shape, grad.dtype)
            for k, i in enumerate(indices):
                out[(int(i),) + tuple(slice(0, d) for d in grad.shape[1:])] += grad[k]
            return out
        return wrap(node, gather_grad)

    def build_concat_grad(node):
        def concat_grad(like, lengths, grad):
            out = xp.zeros(like.shape, grad.dtype)
            start = 0
            for i, n in enumerate(_host(lengths)):
                out[i, :int(n)] = grad[start:start + int(n)]
                start += int(n)
            return out
        return wrap(node, concat_grad)

    def build_split_grad(node):
        def split_grad(grad, lengths, split_lengths):
            count = _host(split_lengths).size
            lengths = _host(lengths)
            return xp.concatenate([grad[i, :int(lengths[i])] for i in range(count)]
                                  + [xp.zeros((0,) + grad.shape[2:], grad.dtype)])
        return wrap(node, split_grad)

    def build_unwrite(node):
        def unwrite(grad, like, indices):
            out = xp.zeros(like.shape, grad.dtype)
            if grad.ndim == like.ndim:
                common = tuple(slice(0, min(a, b)) for a, b in zip(grad.shape, like.shape))
                out[common] = grad[common]
            for i in _host(indices).reshape(-1):
                if 0 <= int(i) < like.shape[0]:
                    out[int(i)] = 0
            return out
        return wrap(node, unwrite)

    return {"_TensorArray": build_new, "_TensorArrayWrite": build_write,
            "_TensorArrayScatter": build_scatter, "_TensorArraySplit": build_split,
            "_TensorArrayRead": build_read, "_TensorArrayGather": build_gather,
            "_TensorArrayConcat": build_concat, "_TensorArrayGatherGrad": build_gather_grad,
            "_TensorArrayConcatGrad": build_concat_grad,
            "_TensorArraySplitGrad": build_split_grad, "_TensorArrayUnwrite": build_unwrite}


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
