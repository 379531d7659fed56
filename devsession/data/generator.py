"""``Dataset.from_generator``: elements a Python generator yields, on the host.

The generator never enters the graph: as ``py_func``'s functions (``ops/script.py``) it
is kept in this process's registry under a token the pipeline's ``generator`` stage
names, so a GraphDef holding one still is data and runs only in the process that built
it (elsewhere: ``FailedPreconditionError``).  Each time the iterator starts, the
generator is called with the values of ``args`` (tensors, fed then); each value it
yields is converted to the declared ``output_types`` as TF converts it (numpy's
``asarray``) and must then have exactly those dtypes and shapes compatible with
``output_shapes``, else the ``get_next`` is an ``InvalidArgumentError`` (and the next
one reads on).  An exception the generator raises is the error ``py_func`` makes of it
(ValueError: ``InvalidArgumentError``...), and the end of its elements.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..graph import convert_to_tensor, get_default_graph
from ..ops import nest
from ..ops.script import _register_function
from ..tensor_shape import TensorShape
from .structure import ElementSpec

__all__ = ["generator_stage"]


def generator_stage(generator, output_types, output_shapes=None, args=None) -> tuple:
    """What ``Dataset.from_generator`` (see the module docstring) is made of: (graph,
    the ``generator`` stage, its input tensors, the element structure)."""
    if not callable(generator):
        raise TypeError(f"from_generator: generator must be callable, got {generator!r}.")
    types = nest.map_structure(dtypes.as_dtype, output_types)
    if output_shapes is None:
        output_shapes = nest.map_structure(lambda _: TensorShape(None), types)
    shapes = [TensorShape(s) for s in _flat(types, output_shapes)]
    specs = [ElementSpec(t, s) for t, s in zip(nest.flatten(types), shapes)]
    graph = get_default_graph()
    inputs = [convert_to_tensor(a, graph=graph, name="generator_arg") for a in (args or ())]
    token = _register_function(_Elements(generator, types, specs))
    stage = {"kind": "generator", "token": token, "inputs": [0, len(inputs)]}
    return graph, stage, inputs, nest.pack_sequence_as(types, specs)


def _flat(structure, value) -> list:
    """``value``'s parts where ``structure`` has leaves (a list in ``value`` where
    ``structure`` has a leaf is one part: a shape, a vector), in ``nest.flatten``'s
    order; ``ValueError`` where the two differ."""
    if not nest.is_nested(structure):
        return [value]
    if isinstance(structure, dict):
        if not isinstance(value, dict) or set(value) != set(structure):
            raise ValueError(f"expected a dict with keys {sorted(structure)}, got {value!r}")
        pairs = [(structure[k], value[k]) for k in nest._sorted_keys(structure)]
    elif isinstance(value, (tuple, list)) and len(value) == len(structure):
        pairs = list(zip(structure, value))
    else:
        raise ValueError(f"expected {len(structure)} components, got {value!r}")
    return [part for s, v in pairs for part in _flat(s, v)]


class _Elements:
    """Calls the generator, and turns what it yields into checked flat elements (two
    steps: the kernel goes on past a value that does not fit, not past the generator's
    own exception, as TF's)."""

    def __init__(self, generator, types, specs):
        self.generator, self.types, self.specs = generator, types, specs

    def values(self, *args):
        """What the generator called with ``args`` (the stage's inputs) yields."""
        yield from self.generator(*[_python_value(a) for a in args])

    def element(self, value) -> list:
        try:
            flat = _flat(self.types, value)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(f"`generator` yielded an element that did not match "
                                       f"the expected structure ({e}).") from None
        out = []
        for component, spec in zip(flat, self.specs):
            dtype = spec.dtype.as_numpy_dtype
            try:
                array = dtypes.string_array(component) if spec.dtype == dtypes.string \
                    else np.asarray(component, dtype=dtype)
            except (TypeError, ValueError):
                raise InvalidArgumentError(
                    f"`generator` yielded an element that could not be converted to the "
                    f"expected type. The expected type was {spec.dtype.name}, but the "
                    f"yielded element was {component!r}.") from None
            if not spec.shape.is_compatible_with(array.shape):
                raise InvalidArgumentError(
                    f"`generator` yielded an element of shape {list(array.shape)} where an "
                    f"element of shape {spec.shape} was expected.")
            out.append(array)
        return out


def _python_value(array: np.ndarray):
    """A generator's argument as TF passes it: a numpy value (bytes for a string)."""
    return array.item() if array.ndim == 0 and array.dtype == object else array
