"""What a benchmark workload is: its inputs (``Data``) and the ``Workload`` value.

A ``Workload`` says what to compute, never how to time it (that is ``runner.py``); see
``suites.py`` for the fields' meaning and the workloads themselves.  A bottom module:
``suites``, ``startup`` and ``transfers`` all build ``Workload``s from it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

__all__ = ["Data", "Workload"]


@dataclasses.dataclass(frozen=True)
class Data:
    """A workload's inputs: ``feeds`` go in on every step, ``consts`` live in the graph."""

    feeds: tuple
    names: tuple
    consts: tuple = ()

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.feeds)


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str                         # unique within a suite, e.g. "chain_10m"
    title: str                        # one line for the table
    unit: str                         # throughput unit: "GB/s", "GFLOP/s", "steps/s", "s"
    work: float = 1.0                 # amount of ``unit``'s numerator per step (GB, GFLOP, 1)
    make_data: Callable[[np.random.Generator], Data] | None = None
    graph: Callable[[Any, Data], tuple] | None = None
    array: Callable[..., Any] | None = None
    numexpr: tuple | None = None      # (expression, {name: float32 constant})
    apis: tuple = ("make_callable",)  # how sessions (ours, TF1) are driven; "run" too
    rtol: float = 1e-4
    atol: float = 1e-5
    requires: str = ""                # "gpu": only where a GPU session runs
    measure: Callable | None = None   # special workloads: fn(workload, context) -> rows
    max_repeats: int | None = None    # fewer timed rounds where one step takes seconds
    stateful: bool = False            # each step changes state (training): only the first
                                      # step's result is checked, and every step fetches it
    params: dict = dataclasses.field(default_factory=dict)

    def reference(self, data: Data) -> np.ndarray:
        return np.asarray(self.array(np, data.feeds, data.consts))

    def throughput(self, seconds: float) -> float:
        return self.work / seconds if seconds > 0 else float("inf")
