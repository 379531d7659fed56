"""The kernel of ``RestoreV2`` (``devsession/ops/checkpoint_io.py``), for the reference
device and the CPU (``HOST``): each named tensor read from the checkpoint, devsession's or
TensorFlow's (``train/saver.open_checkpoint``, which checks what it reads)."""

from __future__ import annotations

import numpy as np

from devsession import dtypes
from devsession.errors import InvalidArgumentError, UnimplementedError

from ..registry import HOST, register_kernel


@register_kernel("RestoreV2", HOST)
def build_restore_v2(node):
    wanted = [dtypes.as_dtype(t) for t in node.attrs["dtypes"]]

    def restore(prefix, tensor_names, shape_and_slices):
        from devsession.train.saver import open_checkpoint   # train imports the ops

        prefix = _text(np.asarray(prefix, dtype=object).item())
        names = [_text(n) for n in np.asarray(tensor_names, dtype=object).reshape(-1)]
        slices = [_text(s) for s in np.asarray(shape_and_slices, dtype=object).reshape(-1)]
        if len(names) != len(wanted) or len(slices) != len(wanted):
            raise InvalidArgumentError(
                f"'{node.name}': {len(names)} tensor_names and {len(slices)} "
                f"shape_and_slices for {len(wanted)} dtypes.", node.name)
        if any(slices):
            raise UnimplementedError(f"'{node.name}': restoring a slice of a tensor "
                                     f"(a partitioned variable) is not supported.", node.name)
        checkpoint = open_checkpoint(prefix)
        values = []
        for name, dtype in zip(names, wanted):
            stored = checkpoint.dtype(name)         # NotFoundError for a missing name
            if stored != dtype:
                raise InvalidArgumentError(
                    f"'{node.name}': tensor_name = {name}; expected dtype {dtype.name} "
                    f"does not equal original dtype {stored.name}", node.name)
            values.append(checkpoint.tensor(name))
        return values[0] if len(values) == 1 else tuple(values)
    return restore


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
