"""``Dataset.window``: TF's dataset of windows, each window a dataset of up to ``size``
consecutive elements (``shift`` apart, every ``stride``-th inside one).

A window is not a tensor, and devsession's pipelines carry tensors, so the ``window``
stage emits each window with its elements stacked (a component of shape ``[n, ...]``,
``n <= size``, in TF's order: ``kernels/reference/dataset.py``) and a dataset of
windows (``Windows``) hands the function of ``flat_map`` or ``interleave`` one
``Dataset.from_tensor_slices`` of each stacked component, in the element's structure:
the window datasets TF's function receives.  So TF's uses run as TF's::

    dataset.window(3, shift=1).flat_map(lambda w: w.batch(3))
    pairs.window(4).flat_map(lambda x, y: Dataset.zip((x.batch(4), y.batch(4))))

Stages that pass elements through (``take``, ``skip``, ``shuffle``, ``repeat``,
``shard``, ``cache``, ``prefetch``, ``with_options``) keep the windows; anything else on
them (``map``, ``batch``, an iterator, ``zip``...) is a TypeError naming ``flat_map``.
The elements of one window must have one shape (they are stacked).
"""

from __future__ import annotations

from ..ops import nest
from ..tensor_shape import TensorShape
from .structure import ElementSpec

__all__ = ["window_stage", "stacked", "Windows"]

# stages that never look inside an element: a dataset of windows stays one through them
_PASSING = {"take", "skip", "shuffle", "repeat", "shard", "cache", "prefetch", "options"}


def window_stage(size: int, shift: int, stride: int, drop_remainder) -> dict:
    """The pipeline stage of ``window`` (its kernel: ``kernels/reference/dataset.py``)."""
    return {"kind": "window", "size": size, "shift": shift, "stride": stride,
            "drop_remainder": bool(drop_remainder)}


def stacked(structure):
    """The structure of the stacked windows of elements of ``structure``."""
    return nest.map_structure(
        lambda s: ElementSpec(s.dtype, TensorShape([None]).concatenate(s.shape)), structure)


class Windows:
    """What makes a Dataset (``data/dataset.py``'s ``_WindowDataset``) a dataset of
    windows: its ``_structure`` is the stacked windows' (see the module docstring);
    ``flat_map`` and ``interleave`` see each as a nest of datasets."""

    def _traced_element(self, args: list):
        return nest.pack_sequence_as(self._structure,
                                     [self.from_tensor_slices(a) for a in args])

    def _then(self, stage: dict, structure=None):
        if stage["kind"] not in _PASSING:
            _refuse(stage["kind"])
        return type(self)(self._graph, self._stages + (stage,), self._inputs,
                          self._functions, self._structure, self._control)

    def _trace(self, fn, kind: str, returns_dataset=False):
        if not returns_dataset:                # map, filter, take_while
            _refuse(kind)
        return super()._trace(fn, kind, returns_dataset)

    def _check_combinable(self, kind: str) -> None:
        _refuse(kind)

    def padded_batch(self, *args, **kwargs):
        _refuse("padded_batch")

    def make_one_shot_iterator(self):
        _refuse("an iterator")

    def make_initializable_iterator(self, shared_name=None):
        _refuse("an iterator")

    def op_attrs(self) -> dict:               # what every iterator's ops ask for
        _refuse("an iterator")


def _refuse(what: str):
    raise TypeError(f"Dataset.window makes a dataset of windows (datasets), which devsession "
                    f"consumes with flat_map or interleave (e.g. "
                    f"`.flat_map(lambda w: w.batch(size))`); {what} over the windows is not "
                    f"supported.")
