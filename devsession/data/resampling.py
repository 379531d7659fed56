"""TF's ``rejection_resample`` (``Dataset.rejection_resample`` and
``tf.data.experimental.rejection_resample``): the input resampled so that its classes
follow ``target_dist``, each element as ``(class, element)``:

    balanced = dataset.apply(ds.data.experimental.rejection_resample(
        lambda image, label: label, target_dist=[0.5, 0.5], seed=1))

One ``rejection_resample`` stage runs TF's algorithm (the class distribution given or
estimated as TF estimates it, acceptance probabilities and the mixing with the input
as it is: ``kernels/reference/dataset_resampling.py``).  The draws are numpy's, seeded
as ``shuffle``: TF's proportions, not TF's sequence.  ``target_dist`` and
``initial_dist`` are lists or constant tensors.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value
from .structure import ElementSpec

__all__ = ["rejection_resample"]


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """TF's ``rejection_resample``, for ``apply`` (see the module docstring)."""
    return lambda dataset: resampled(dataset, class_func, target_dist, initial_dist, seed)


def resampled(dataset, class_func, target_dist, initial_dist=None, seed=None):
    """``dataset`` resampled to ``target_dist`` (see the module docstring); raises
    ``ValueError`` for distributions that are not constant vectors of one length, or a
    ``class_func`` that returns no integer scalar."""
    from ..ops.random import _seeds

    target = _distribution(target_dist, "target_dist")
    initial = None if initial_dist is None else _distribution(initial_dist, "initial_dist")
    if initial is not None and len(initial) != len(target):
        raise ValueError(f"rejection_resample: initial_dist has {len(initial)} classes, "
                         f"target_dist {len(target)}.")
    function, _ = dataset._trace(class_func, "rejection_resample")
    out = function.outputs
    if len(out) != 1 or not out[0].dtype.is_integer or \
            not out[0].shape.is_compatible_with([]):
        raise ValueError(f"rejection_resample: class_func must return an integer scalar, "
                         f"got {[(t.dtype.name, str(t.shape)) for t in out]}.")
    with dataset._graph.as_default():
        seeds = list(_seeds(seed))
    structure = (ElementSpec(dtypes.int32, []), dataset._structure)
    stage_dataset = dataset._then_function("rejection_resample", function, structure)
    stage = {**stage_dataset._stages[-1], "target": target, "initial": initial,
             "seeds": seeds}
    return type(stage_dataset)(stage_dataset._graph, stage_dataset._stages[:-1] + (stage,),
                               stage_dataset._inputs, stage_dataset._functions, structure,
                               stage_dataset._control)


def _distribution(value, what: str) -> list:
    known = constant_value(value) if isinstance(value, Tensor) else value
    if known is None:
        raise ValueError(f"rejection_resample: devsession needs {what} as a list or a "
                         f"constant tensor.")
    array = np.asarray(known, np.float32)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"rejection_resample: {what} must be a non-empty vector, got "
                         f"shape {list(array.shape)}.")
    return array.tolist()
