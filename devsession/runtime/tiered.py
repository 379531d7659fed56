"""Tiered kernels: a plan's first runs use the numpy reference kernels while its numba
kernels compile on a background thread; then the compiled plan takes over.

Why: numba compiles a kernel on its first call, so a fresh process with empty kernel
caches spent about 1.7 s of its first ``run`` of a 20-node graph compiling, where the
reference kernels answer in milliseconds.  So, in a direct session whose
``kernel_compile`` is "background" (the default), a plan that has not been compiled on
this machine goes through three stages:

1. The session builds a *reference plan*: the same nodes and placement, the "REF"
   kernels, no fusion (only the compiled tier fuses).  The first run goes through it
   one step at a time, noting every value's dtype, shape and memory layout (a copy of
   small ones: shape vectors, labels).
2. The compile worker (``kernels/background_compile.py``) builds the compiled plan and
   calls each of its stateless kernels once on stand-ins of those values (zeros of the
   same dtype, shape and layout; the small ones themselves), so numba compiles exactly
   the specialisations the real runs need.  A kernel that updates variables (an
   optimizer's Apply*) runs on zero-filled copies of them; the session's state is
   never touched.  Control flow bodies compile on their first real call.
3. The compiled step replaces the reference one, in the session's cache and inside
   every callable already made from it, and a marker file in the kernel cache
   (``$DEVSESSION_CACHE_DIR/plans``) records that this plan's kernels are compiled, so
   later processes build the compiled plan at once, as a warm start should.

Both tiers read and write the same variables and give the same results to float
rounding (the reference kernels are the CPU kernels' test oracle).  Failure modes: a
compiled plan that fails to build leaves the reference plan running (logged once); a
kernel failing on stand-ins is left to compile on its first real call; a process that
exits first stops the worker (whatever numba finished is in its cache for next time).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import logging
import os
import threading
from typing import Callable

import numpy as np

from ..errors import NotFoundError
from ..kernels import background_compile
from ..kernels.reference import stateful_random, stateless_random
from ..kernels.codegen.module_cache import CACHE_VERSION, cache_dir
from ..ops.registry import get_op_def
from .local_executor import LocalExecutorFactory
from .plan import needed_ops
from .resources import ResourceMgr
from .state import variable_key

__all__ = ["TieredStep", "plan_fingerprint", "is_compiled", "mark_compiled", "COPY_LIMIT",
           "reference_factory", "big_draw", "scratch_kernels"]

_log = logging.getLogger("devsession")

COPY_LIMIT = 4096      # elements: smaller values are kept as they are, bigger ones stood in for
BIG_DRAW = 1 << 16     # values: a random draw this big takes the CPU's kernel on the first tier
BIG_SAMPLE = 1 << 10   # ... and a sampler's draw this big (20-80 us a sample in Python)
_SAMPLERS = frozenset({"RandomGamma", "RandomPoissonV2", "StatelessRandomGammaV3",
                       "StatelessRandomPoisson", "StatelessRandomBinomial",
                       "StatefulRandomBinomial", "StatelessParameterizedTruncatedNormal"})
_PHILOX_DRAWS = frozenset({"RandomUniform", "RandomStandardNormal", "TruncatedNormal",
                           "RandomUniformInt", *stateless_random.V1_OPS,
                           *stateless_random.V2_OPS, *stateful_random.DRAW_OPS})


class TieredStep:
    """A step that runs the reference plan until the compiled one is ready.

    ``tier`` is "reference" until the swap, then "compiled"; ``settled`` is set when the
    background work ended either way (``compile_error`` holds why it failed, if it did).
    ``make_recording(observe)`` returns the reference step that calls ``observe`` after
    each of its steps; ``build_compiled()`` returns the compiled step (the session's
    ordinary one) or None if it is no longer wanted; ``on_compiled(step)`` is called
    once with it, after the swap; ``scratch_kernel`` is ``warm``'s.
    """

    def __init__(self, reference_step, make_recording: Callable[[Callable], Callable],
                 feeds: tuple, build_compiled: Callable, on_compiled: Callable,
                 scratch_kernel: Callable | None = None):
        self._current = reference_step
        self._scratch_kernel = scratch_kernel
        self._make_recording = make_recording
        self._feeds = feeds
        self._build_compiled = build_compiled
        self._on_compiled = on_compiled
        self._submitted = False
        self._first = threading.Lock()
        self.tier = "reference"
        self.compile_error: BaseException | None = None
        self.settled = threading.Event()

    @property
    def plan(self):
        return self._current.plan

    @property
    def started(self) -> bool:
        """Whether the first run happened (and with it the background compile began)."""
        return self._submitted

    def __call__(self, values, deadline, stats):
        if self._submitted or not self._first.acquire(blocking=False):
            return self._current(values, deadline, stats)
        try:
            samples: dict = {}
            observe = recorder(self._current.plan, self._feeds, values, samples)
            out = self._make_recording(observe)(values, deadline, stats)
            self._submitted = background_compile.submit(
                lambda cancelled: self._compile(samples, cancelled))
            if not self._submitted:       # the process is exiting: stay on this tier
                self._submitted = True
                self.settled.set()
            return out
        finally:
            self._first.release()

    def _compile(self, samples: dict, cancelled: Callable[[], bool]) -> None:
        try:
            if cancelled():                # dropped from the queue: the process is exiting
                return
            compiled = self._build_compiled()
            if compiled is None:           # the session closed or forgot this step
                return
            warm(compiled.plan, self._feeds, samples, cancelled, self._scratch_kernel)
            if cancelled():
                return
            self._current = compiled
            self.tier = "compiled"
            self._on_compiled(compiled)
        except Exception as e:                             # noqa: BLE001 (kept, logged)
            self.compile_error = e
            _log.warning("devsession: compiling the kernels of a plan failed (%s: %s); "
                         "it keeps running on the reference kernels", type(e).__name__, e)
        finally:
            self.settled.set()


def reference_factory(resources, optimizer) -> LocalExecutorFactory:
    """The first tier's executor: numpy reference kernels for CPU nodes, unfused (fusion
    makes kernels only the compiled tier has), except large random draws (``big_draw``)."""
    return LocalExecutorFactory(resources, dataclasses.replace(optimizer, fusion=False),
                                kernel_device_types={"CPU": "REF"}, keeps_own_kernel=big_draw)


def big_draw(op) -> bool:
    """Whether the reference tier runs ``op`` with the CPU's compiled kernel: a Philox
    draw of at least ``BIG_DRAW`` values (``BIG_SAMPLE`` for the samplers: Gamma,
    Poisson, Binomial, the parameterized truncated normal), known when the graph is
    built.  The reference's draws call the C library one value at a time for TF's
    normals (0.5 s a million, in every process: a model's initializers run once, on this
    tier) and run the samplers in Python; the CPU's give the same values, a hundred to a
    thousand times faster, after numba's import (about 1 s, once a process, which the
    compiled tier needs anyway)."""
    least = BIG_SAMPLE if op.type in _SAMPLERS else BIG_DRAW if op.type in _PHILOX_DRAWS \
        else None
    if least is None or not op.outputs:
        return False
    count = op.outputs[0].shape.num_elements()
    return count is not None and count >= least


def scratch_kernels(graph, optimizer, place) -> Callable:
    """``scratch_kernel`` for a TieredStep of ``graph``: the compiled kernel of a step
    that updates variables (``ApplyAdam``), bound to zero-filled variables of its own,
    so warming it leaves the real ones alone; None when its variables' shapes are not
    fully known."""
    def scratch_kernel(step):
        try:
            op = graph.get_operation_by_name(step.name)
        except (KeyError, ValueError):
            return None
        if op.type != step.op_type:    # an op the optimizer made (a product folded in)
            return None
        scratch = ResourceMgr()
        for i in get_op_def(op.type).ref_inputs:
            ref = op.inputs[i].op
            if ref.type != "VariableV2":
                return None
            container, name, dtype, shape = variable_key(ref)
            if shape is None or None in shape:
                return None
            scratch.variable(container, name, dtype, shape).assign(
                np.zeros(shape, dtype), op.name)
        return LocalExecutorFactory(scratch, optimizer).make_kernel(op, place(op))
    return scratch_kernel


def recorder(plan, feeds: tuple, values: list, samples: dict) -> Callable:
    """An ``observe`` callback for ``execute`` that fills ``samples`` (tensor name ->
    stand-in) with the feeds and every value the plan's steps make."""
    names = slot_tensors(plan, feeds)
    for slot, value in zip(plan.feed_slots, values):
        samples[names[slot]] = _stand_in(value)

    def observe(step, slots) -> None:
        name = names.get(step.output)
        if name is not None:
            samples[name] = _stand_in(slots[step.output])
    return observe


def warm(plan, feeds: tuple, samples: dict, cancelled: Callable[[], bool],
         scratch_kernel: Callable | None = None) -> int:
    """Call each kernel of ``plan`` that has no side effects once on stand-ins of its
    inputs; returns how many ran.  A kernel that updates variables (an optimizer's
    Apply*) runs only as ``scratch_kernel(step)`` makes it: bound to zero-filled copies
    of its variables (None: skipped), unless it has a ``warm()`` of its own (an update
    the optimizer folded a product into), which compiles it on arrays of its own and
    is called instead.  Other stateful kernels and control flow are
    skipped, and so is a kernel that fails on stand-ins: each compiles on its first
    real call."""
    names = slot_tensors(plan, feeds)
    ran = 0
    for step in plan.steps:
        if cancelled():
            break
        kernel = _warmable_kernel(step, scratch_kernel)
        if kernel is None:
            continue
        try:
            args = [samples[names[i]] for i in step.inputs]
        except KeyError:
            continue
        try:
            kernel(*[a.make() if isinstance(a, _Zeros) else a for a in args])
            ran += 1
        except Exception as e:                             # noqa: BLE001 (best effort)
            _log.debug("devsession: warming %s (%s) on stand-ins failed: %s", step.name,
                       step.op_type, e)
    return ran


def _warmable_kernel(step, scratch_kernel):
    if step.op_type == "_Output":
        return None
    try:
        op_def = get_op_def(step.op_type)
    except NotFoundError:                                  # the optimizer's own ops
        return step.kernel if step.op_type == "_FusedElementwise" else None
    if op_def.function_attrs:
        return None
    if op_def.ref_inputs:
        warm = getattr(step.kernel, "warm", None)     # compiles on arrays of its own
        if warm is not None:
            return lambda *_: warm()
        return scratch_kernel(step) if scratch_kernel is not None else None
    return None if op_def.stateful else step.kernel


def slot_tensors(plan, feeds: tuple) -> dict:
    """slot -> the name of the graph tensor it holds, for the feeds and every step's
    output (a multi-output kernel's tuple has no tensor; its items do)."""
    names = {slot: t.name for slot, t in zip(plan.feed_slots, feeds)}
    tuples = {s.inputs[0] for s in plan.steps if s.op_type == "_Output"}
    for step in plan.steps:
        if step.output < 0 or step.output in tuples:
            continue
        names[step.output] = step.name if step.op_type == "_Output" else f"{step.name}:0"
    return names


class _Zeros:
    """Zeros standing in for a big array: same dtype, shape, memory layout and
    writeability (numba compiles read-only arrays, constants, apart)."""

    def __init__(self, value: np.ndarray):
        self.dtype, self.shape = value.dtype, value.shape
        self.writeable = value.flags.writeable
        self.layout = "C" if value.flags.c_contiguous else \
            "F" if value.flags.f_contiguous else "strided"

    def make(self) -> np.ndarray:
        if self.layout == "strided":
            made = np.zeros(self.shape + (2,), self.dtype)[..., 0]
        else:
            made = np.zeros(self.shape, self.dtype, order=self.layout)
        made.flags.writeable = self.writeable
        return made


def _stand_in(value):
    if not isinstance(value, np.ndarray):
        return value
    if value.size > COPY_LIMIT:
        return _Zeros(value)
    copy = value.copy(order="K")
    copy.flags.writeable = value.flags.writeable
    return copy


# --- which plans are compiled on this machine ----------------------------------------------

def plan_fingerprint(graph_ops, feeds, fetches, targets) -> str:
    """A hash of what decides a plan's compiled kernels: its nodes' op types, attributes
    (arrays by dtype and shape) and static dtypes and shapes, the feeds and fetches, and
    the versions of the generated code and of numba.  Node names do not count (the
    names of functions that control flow runs do)."""
    needed = needed_ops(fetches, targets, set(feeds))
    index = {}
    parts = [f"v{CACHE_VERSION}", _numba_version(), os.environ.get("NUMBA_CACHE_DIR", "")]
    for op in graph_ops:
        if op not in needed:
            continue
        index[op.name] = len(index)
        inputs = [(index.get(t.op.name, t.op.name) if t.op in needed else "fed",
                   t.value_index, t.dtype.name, t.shape.dims) for t in op.inputs]
        outputs = [(t.dtype.name, t.shape.dims) for t in op.outputs]
        attrs = sorted((k, _describe(v)) for k, v in op.attrs.items() if not k.startswith("_"))
        parts.append(repr((op.type, inputs, outputs, attrs, str(op.device_spec))))
    parts.append(repr([(t.op.name in index and index[t.op.name], t.value_index)
                       for t in (*feeds, *fetches)]))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def is_compiled(fingerprint: str) -> bool:
    """Whether a process on this machine compiled the plan with this fingerprint."""
    return (_markers() / fingerprint).exists()


def mark_compiled(fingerprint: str) -> None:
    """Record that the plan's kernels are in the caches (best effort: a read-only
    cache only means the next process compiles in the background again)."""
    try:
        _markers().mkdir(parents=True, exist_ok=True)
        (_markers() / fingerprint).touch()
    except OSError as e:
        _log.debug("devsession: cannot mark a plan compiled: %s", e)


def _markers():
    return cache_dir() / "plans"


def _describe(value):
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape)
    if isinstance(value, (bool, int, float, str, bytes, type(None))):
        return value
    if isinstance(value, (tuple, list)):
        return tuple(_describe(v) for v in value)
    dims = getattr(value, "dims", None)          # a TensorShape
    if dims is not None or type(value).__name__ == "TensorShape":
        return ("shape", dims)
    name = getattr(value, "name", None)          # a DType; functions by name
    return (type(value).__name__, name if isinstance(name, str) else None)


_NUMBA_VERSION: str | None = None


def _numba_version() -> str:
    """numba's version from its metadata: importing numba costs this process 0.2-0.5 s."""
    global _NUMBA_VERSION
    if _NUMBA_VERSION is None:
        try:
            _NUMBA_VERSION = importlib.metadata.version("numba")
        except importlib.metadata.PackageNotFoundError:
            _NUMBA_VERSION = "none"
    return _NUMBA_VERSION
