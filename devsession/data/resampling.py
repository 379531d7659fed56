"""TF's ``rejection_resample`` (``Dataset.rejection_resample`` and
``tf.data.experimental.rejection_resample``): the input resampled so that its classes
follow ``target_dist``, each element as ``(class, element)``:

    balanced = dataset.apply(ds.data.experimental.rejection_resample(
        lambda image, label: label, target_dist=[0.5, 0.5], seed=1))

One ``rejection_resample`` stage runs TF's algorithm (the class distribution given or
estimated as TF estimates it, acceptance probabilities and the mixing with the input
as it is: ``kernels/reference/dataset_resampling.py``), TF's elements for a seed: the
filter's seeds are those of TF's ``random_uniform`` in its traced function (the graph's
seed, the function's own count of op seeds), the mixing's those of TF's
``sample_from_datasets``, which takes an op seed of the graph where it is built (not
where ``initial_dist`` makes one pass enough).  ``target_dist`` and ``initial_dist``
are lists or constant tensors.
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
    filter_seeds = _function_seeds(dataset._graph, seed)
    with dataset._graph.as_default():        # TF's selector takes an op seed if it mixes
        selector_seeds = [0, 0] if _static_chance(target, initial) in (0, 1) else \
            list(_seeds(seed))
    structure = (ElementSpec(dtypes.int32, []), dataset._structure)
    stage_dataset = dataset._then_function("rejection_resample", function, structure)
    stage = {**stage_dataset._stages[-1], "target": target, "initial": initial,
             "filter_seeds": filter_seeds, "selector_seeds": selector_seeds}
    return type(stage_dataset)(stage_dataset._graph, stage_dataset._stages[:-1] + (stage,),
                               stage_dataset._inputs, stage_dataset._functions, structure,
                               stage_dataset._control)


def _function_seeds(graph, seed) -> list:
    """The seeds of TF's filter's ``random_uniform(seed=seed)``: ``get_seed`` in a
    function graph, which has the outer graph's seed and its own count of op seeds."""
    from ..graph import Graph
    from ..ops.random import _seeds

    function_graph = Graph()
    function_graph.seed = graph.seed
    with function_graph.as_default():
        return list(_seeds(seed))


def _static_chance(target: list, initial: list | None):
    """TF's ``_get_prob_original_static``: min(target / initial) where both are known."""
    if initial is None:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.min(np.float32(target) / np.float32(initial)))


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
