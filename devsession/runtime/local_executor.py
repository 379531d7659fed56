"""What any in-process runner of plans needs: kernels bound to state, device transfers,
the optimizer, and the run step itself.

Both the direct session and a cluster worker (``devsession.distributed``) run their
graphs through one ``LocalExecutorFactory``: it builds a ``Plan`` (``plan.build_plan``)
whose kernels read variables and random streams from the factory's resource manager,
whose cross-device values move through the GPU module's ``_Transfer`` kernels, and whose
ops went through ``devsession.optimizer`` with the session's options.  ``make_step``
wraps a plan into the ``step(values, deadline, stats)`` function sessions cache.

The factory holds no per-plan state and is safe to share between threads.
"""

from __future__ import annotations

import numpy as np

from ..device_spec import HOST, Device
from ..errors import InvalidArgumentError, NotFoundError
from ..kernels.registry import KernelNode, lookup_kernel
from ..ops.registry import get_op_def
from ..optimizer import optimize
from .functions import FunctionContext
from ..kernels import blas_threads as blas_cap
from .state import StateContext, variable_key
from .deadline import Deadline
from .executor import execute
from .placement import Placement
from .plan import build_plan, kernel_node_attrs

__all__ = ["LocalExecutorFactory", "make_step", "intra_op_setter"]


class LocalExecutorFactory:
    """Builds plans whose stateful kernels use ``resources`` (a ResourceMgr, or anything
    with its ``variable`` and ``random_stream`` methods), with the kernels of each
    placement's device type or of ``kernel_device_types[device type]``."""

    def __init__(self, resources, optimizer_options, kernel_device_types=None,
                 keeps_own_kernel=None):
        self.resources = resources
        self.optimizer_options = optimizer_options
        # Device type whose kernels a placement gets: {"CPU": "REF"} builds the numpy
        # reference kernels for CPU nodes (the first tier of ``tiered.py``), except for
        # the ops ``keeps_own_kernel(op)`` names, which keep their device type's.
        self.kernel_device_types = dict(kernel_device_types or {})
        self.keeps_own_kernel = keeps_own_kernel or (lambda op: False)

    def build_plan(self, graph_ops, feeds, fetches, targets, place, feed_device=HOST,
                   fetch_device=HOST, variables_after_step=True):
        """``plan.build_plan`` with this factory's kernels, transfers and optimizer."""
        return build_plan(graph_ops, feeds, fetches, targets, place, self.make_kernel,
                          self.make_transfer, self.optimize, feed_device, fetch_device,
                          variables_after_step)

    def make_kernel(self, op, placement: Placement):
        op_def = get_op_def(op.type)
        if op_def.function_attrs:     # control flow: it plans and runs functions
            context = FunctionContext(self, placement.device, op.name)
        else:
            context = self._state_context(op)
        node = KernelNode(
            name=op.name, op=op.type, attrs=kernel_node_attrs(op),
            input_dtypes=tuple(t.dtype.np for t in op.inputs),
            input_shapes=tuple(t.shape.dims for t in op.inputs),
            output_dtype=op.outputs[0].dtype.np if op.outputs else None,
            output_shape=op.outputs[0].shape.dims if op.outputs else None,
            output_dtypes=tuple(t.dtype.np for t in op.outputs),
            output_shapes=tuple(t.shape.dims for t in op.outputs),
            context=context, device=placement.device)
        device_type = placement.device.device_type
        if not self.keeps_own_kernel(op):
            device_type = self.kernel_device_types.get(device_type, device_type)
        return lookup_kernel(op.type, device_type)(node)

    def _state_context(self, op) -> StateContext:
        variable, refs = None, ()
        if op.type == "VariableV2":
            variable = variable_key(op)
        elif get_op_def(op.type).ref_inputs:
            refs = tuple(_ref_key(op, op.inputs[i].op) for i in get_op_def(op.type).ref_inputs)
            variable = refs[0]
        return StateContext(self.resources, variable, refs)

    def optimize(self, ops, fed, fetches, targets, placements):
        return optimize(ops, fed, fetches, targets, placements, self.optimizer_options,
                        self.evaluate_on_cpu)

    def evaluate_on_cpu(self, op, values):
        """Run one op on the CPU now (constant folding)."""
        return self.make_kernel(op, Placement(HOST))(*values)

    def make_transfer(self, src: Device, dst: Device):
        """A kernel copying a value from device ``src`` to ``dst`` (e.g. CPU:0 -> GPU:0);
        the GPU kernel module provides it, registered as ("_Transfer", "GPU")."""
        node = KernelNode(name=f"_Transfer_{src.short_name}_{dst.short_name}", op="_Transfer",
                          attrs={"src": src, "dst": dst}, input_dtypes=(), input_shapes=(),
                          output_dtype=None, output_shape=None,
                          device=dst if dst.is_gpu else src)
        return lookup_kernel("_Transfer", "GPU")(node)


def _ref_key(op, ref) -> tuple:
    if ref.type != "VariableV2":
        raise InvalidArgumentError(f"Op '{op.name}' must assign to a Variable, not to "
                                   f"'{ref.name}' ({ref.type}).", op.name)
    return variable_key(ref)


def make_step(plan, pool=None, threads: int = 0, observe=None, in_flight=None):
    """``step(values, deadline, stats) -> fetched arrays``, each the caller's own.

    ``pool`` runs the plan's independent branches at once (``plan.waves``); a cluster
    partition passes none: its receives and sends must keep plan order (see
    distributed/partition.py).  ``threads`` (0: no cap; a session's ``intra_op_threads``)
    holds numba's threads on the running thread to that many while the step runs, and
    then gives the thread back its previous count (numba's setting is per thread, and a
    thread may serve other sessions next), and caps the BLAS library's process-wide
    thread count meanwhile (``blas_threads.py``).  ``observe`` goes to ``execute`` (which
    then runs the steps one by one).  ``in_flight`` (a ``StepsInFlight``) tracks the runs
    of a plan that may run long (loops, conditionals, overlapped branches), so that
    closing their session ends them with its error; other plans finish within their few
    kernels anyway, and keep their hot path.
    """
    copies = plan.fetch_needs_copy
    any_copy = any(copies)
    pool = pool if plan.waves else None
    after_step = plan.fetch_after_step

    def step(values, deadline, stats):
        out = execute(plan, values, deadline, stats, pool, observe)
        for index, read_variable in after_step:    # as the step left it (plan.py)
            out[index] = read_variable()
        if any_copy:
            return [np.array(v, copy=True) if c else v for v, c in zip(out, copies)]
        return out

    chosen = _capped(step, threads) if threads else step
    if in_flight is not None and _may_run_long(plan):
        chosen = _tracked(chosen, in_flight)
    chosen.plan = plan
    return chosen


def _numba():
    from ..kernels.cpu.numba_setup import numba     # imported here: the CPU's plans only

    return numba


def _numba_threads(threads: int) -> int:
    """``threads`` as numba can take it: at least one, at most its pool's size."""
    return max(1, min(threads, _numba().config.NUMBA_NUM_THREADS))


def _capped(step, threads: int):
    numba, numba_threads = _numba(), _numba_threads(threads)

    def capped_step(values, deadline, stats):
        previous = numba.get_num_threads()
        numba.set_num_threads(numba_threads)
        blas_cap.hold(threads)
        try:
            return step(values, deadline, stats)
        finally:
            blas_cap.release(threads)
            numba.set_num_threads(previous)
    return capped_step


def intra_op_setter(threads: int):
    """A function capping numba's threads for the calling thread (numba's setting is
    per thread), or None when ``threads`` is 0 (numba's default: every core): the
    initializer of a pool whose threads only ever run one session's kernels."""
    if not threads:
        return None
    numba, n = _numba(), _numba_threads(threads)
    return lambda: numba.set_num_threads(n)


def _may_run_long(plan) -> bool:
    return bool(plan.waves) or any(_runs_functions_or_blocks(op_type)
                                   for op_type in {s.op_type for s in plan.steps})


def _runs_functions_or_blocks(op_type: str) -> bool:
    """Whether ``op_type`` runs functions (control flow) or may wait for another step
    (a queue's enqueue or dequeue: ``OpDef.blocks``)."""
    try:
        op_def = get_op_def(op_type)
    except NotFoundError:          # the plan's own steps (_FusedElementwise, _Output)
        return False
    return bool(op_def.function_attrs) or op_def.blocks


def _tracked(step, in_flight):
    """``step`` under an abortable deadline that ``in_flight`` knows while it runs; a
    step ended that way raises the error it was ended with."""
    def tracked(values, deadline, stats):
        deadline = deadline or Deadline()
        in_flight.start(deadline)
        try:
            return step(values, deadline, stats)
        except Exception as e:  # noqa: BLE001 - once ended, whatever broke says so
            if deadline.error is None:
                raise
            raise type(deadline.error)(deadline.error.message,
                                       getattr(e, "node_name", None)) from None
        finally:
            in_flight.finish(deadline)
    return tracked
