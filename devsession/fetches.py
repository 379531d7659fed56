"""Flatten the ``fetches`` of ``Session.run`` and rebuild results in the same shape.

``fetches`` may be a Tensor, an Operation, a Variable, a name, a SparseTensor, or any
nesting of lists, tuples, namedtuples and dicts of those.  ``FetchMapper`` resolves every
leaf against the graph once, de-duplicates them into one list of tensors and one list of
target ops (Operations fetch None), and ``build`` puts the fetched values back into the
user's structure.  A SparseTensor is fetched as its three tensors and comes back as a
``SparseTensorValue`` (TF1's fetch expansion); a RaggedTensor as its flat values and
row splits, back as a ``RaggedTensorValue``.  ``make_callable`` builds a mapper once
and reuses it on every call.
"""

from __future__ import annotations

from .graph import Graph, Operation, Tensor
from .indexed_slices import IndexedSlices, IndexedSlicesValue
from .ragged.ragged_tensor import RaggedTensor
from .ragged.ragged_tensor_value import RaggedTensorValue
from .sparse_tensor import SparseTensor, SparseTensorValue

__all__ = ["FetchMapper", "fetched"]


def fetched(value):
    """A fetched array as TF1 returns it: a 0-d result becomes a numpy scalar (``bytes``
    for a string), a quantized one (a structured dtype, ``dtypes.qint8.np``) its integers
    (TF's session returns ``qint8`` values as int8), anything else stays the array."""
    if getattr(getattr(value, "dtype", None), "names", None) is not None:
        value = value.view(value.dtype[0])
    return value[()] if getattr(value, "ndim", None) == 0 else value


class FetchMapper:
    """Resolved fetches: ``tensors`` and ``targets`` to run, and a rebuild function."""

    def __init__(self, graph: Graph, fetches):
        self.tensors: list[Tensor] = []
        self.targets: list[Operation] = []
        self.handles: list[int] = []    # of tensors: GetSessionHandle's, fetched as TensorHandles
        self._tensor_index: dict = {}
        self._target_set: set = set()
        self._template = self._resolve(graph, fetches)
        self.is_single_tensor = isinstance(self._template, int)

    def _leaf(self, graph: Graph, fetch):
        try:
            element = graph.as_graph_element(fetch)
        except (KeyError, ValueError) as e:
            raise ValueError(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. "
                             f"({_message(e)})") from None
        except TypeError as e:
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch).__name__}, "
                            f"must be a string, Tensor or Operation. ({e})") from None
        if not graph.is_fetchable(element):
            op = element if isinstance(element, Operation) else element.op
            raise ValueError(f"Operation {op.name} has been marked as not fetchable.")
        if isinstance(element, Operation):
            if element not in self._target_set:
                self._target_set.add(element)
                self.targets.append(element)
            return None
        index = self._tensor_index.get(element)
        if index is None:
            index = self._tensor_index[element] = len(self.tensors)
            self.tensors.append(element)
            if element.op.type == "GetSessionHandle":
                self.handles.append(index)
        return index

    def _resolve(self, graph: Graph, fetches):
        if fetches is None:
            raise TypeError("Fetch argument None has invalid type NoneType.")
        if isinstance(fetches, SparseTensor):
            return ("sparse", [self._leaf(graph, t) for t in
                               (fetches.indices, fetches.values, fetches.dense_shape)])
        if isinstance(fetches, RaggedTensor):     # TF fetches a RaggedTensorValue
            return ("ragged", [self._leaf(graph, t) for t in
                               (fetches.flat_values, *fetches.nested_row_splits)])
        if isinstance(fetches, IndexedSlices):     # TF1 fetches an IndexedSlicesValue
            return ("indexed", [None if t is None else self._leaf(graph, t) for t in
                                (fetches.values, fetches.indices, fetches.dense_shape)])
        if isinstance(fetches, dict):
            return (type(fetches), [(k, self._resolve(graph, v)) for k, v in fetches.items()])
        if isinstance(fetches, tuple) and hasattr(fetches, "_fields"):
            return ("namedtuple", type(fetches), [self._resolve(graph, v) for v in fetches])
        if isinstance(fetches, (list, tuple)):
            return (type(fetches), [self._resolve(graph, v) for v in fetches])
        return self._leaf(graph, fetches)

    def build(self, values: list):
        """The user's structure with each Tensor replaced by its fetched value.

        A tensor fetched in several places gets a separate copy in each, so no two
        results share memory."""
        return _fill(self._template, values, set())


def _fill(template, values, used: set):
    if template is None:
        return None
    if isinstance(template, int):
        value = fetched(values[template])
        if template in used and getattr(value, "ndim", 0) and hasattr(value, "copy"):
            return value.copy()     # (a scalar needs no copy, a TensorHandle has none)
        used.add(template)
        return value
    if template[0] == "namedtuple":
        return template[1](*[_fill(t, values, used) for t in template[2]])
    if template[0] == "sparse":
        return SparseTensorValue(*[_fill(t, values, used) for t in template[1]])
    if template[0] == "ragged":
        value, *nested_splits = [_fill(t, values, used) for t in template[1]]
        for splits in reversed(nested_splits):
            value = RaggedTensorValue(value, splits)
        return value
    if template[0] == "indexed":
        return IndexedSlicesValue(*[_fill(t, values, used) for t in template[1]])
    kind, items = template
    if issubclass(kind, dict):
        out = kind() if kind is not dict else {}
        for key, t in items:
            out[key] = _fill(t, values, used)
        return out
    filled = [_fill(t, values, used) for t in items]
    return filled if kind is list else kind(filled)


def _message(e: Exception) -> str:
    return e.args[0] if e.args else str(e)
