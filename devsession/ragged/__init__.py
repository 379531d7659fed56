"""TF1's ``tf.ragged`` and ``tf.RaggedTensor`` in graph mode.

``RaggedTensor`` (``ragged_tensor.py``) is a composite of tensors, as ``SparseTensor``:
``Session.run`` fetches one as a ``RaggedTensorValue`` (``fetches.py``) and a ragged
placeholder is fed one (``feeds.py``).  Dense and sparse conversions use TF's ops
(``RaggedTensorToTensor``, ``RaggedTensorToSparse``, ``RaggedRange``:
``ops/ragged.py``), so TF's GraphDefs of them import; everything else composes existing
ops as TF's Python does.  Elementwise math and reductions of ragged tensors are in
``ragged_math.py``.  Any other ``tf.ragged`` name raises ``UnsupportedTF1Error``.
"""

from . import ragged_conversion, ragged_getitem, ragged_math  # noqa: F401  (RaggedTensor's
# conversions, indexing and operators are set on the class by these modules, as in TF)
from .ragged_dispatch import install as install_dispatch  # noqa: F401  (ds/__init__.py)
from .ragged_ops import (boolean_mask, constant, constant_value, map_flat_values,
                         placeholder, range, row_splits_to_segment_ids,
                         segment_ids_to_row_splits, stack_dynamic_partitions)
from .ragged_tensor import RaggedTensor, is_ragged
from .ragged_tensor_spec import RaggedTensorSpec
from .ragged_tensor_value import RaggedTensorValue
from .ragged_math import stack

__all__ = ["RaggedTensor", "RaggedTensorValue", "RaggedTensorSpec", "constant",
           "constant_value", "range", "placeholder", "row_splits_to_segment_ids",
           "segment_ids_to_row_splits", "map_flat_values", "boolean_mask",
           "stack_dynamic_partitions", "is_ragged", "stack"]


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("ragged", name)
