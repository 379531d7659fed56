"""``SyncReplicasOptimizer``: TF1's synchronous data-parallel training.

Every replica (a worker, each with its own graph and session in between-graph
replication) runs the same train op; instead of updating the variables itself, it
pushes its gradients to accumulators on the variables' devices and waits for a token.
The chief runs one more thread that averages the gradients, updates, and hands out the
next tokens.  Built by ``apply_gradients``, as TF1's:

* per variable, a ``ConditionalAccumulator`` on the variable's device, shared by every
  replica through its shared name ``<var>:0/grad_accum``;
* a local variable ``sync_rep_local_step`` per replica, on the replica's own device: the
  global step its gradients belong to; the accumulators drop gradients of an older
  step (stale: computed from variables that have since changed);
* the token queue ``sync_token_q`` (shared, on the global step's device);
* the train op: push every gradient, then take a token (waiting for one) and make its
  value the local step;
* the chief's queue runner (``get_chief_queue_runner``) running the sync op: take each
  accumulator's average of ``replicas_to_aggregate`` gradients, apply them with the
  wrapped optimizer (which increments the global step), then put
  ``max(total_num_replicas, replicas_to_aggregate)`` tokens holding the new global step
  into the queue (and update ``variable_averages`` after, when given);
* ``chief_init_op`` (the local step from the global step, and every accumulator's
  global step from it) and ``local_step_init_op`` for the others.

``make_session_run_hook(is_chief, num_tokens=-1)`` does at session start what TF1's hook
does: once the global variables are ready, run the init op, and on the chief put the
first ``num_tokens`` tokens in (``get_init_tokens_op``; -1: ``replicas_to_aggregate``)
and start the queue runner under the session's coordinator::

    opt = ds.train.SyncReplicasOptimizer(ds.train.GradientDescentOptimizer(0.1),
                                         replicas_to_aggregate=2, total_num_replicas=2)
    train_op = opt.minimize(loss, global_step=step)
    hook = opt.make_session_run_hook(is_chief=task == 0)
    with ds.train.MonitoredTrainingSession(master, is_chief=task == 0, hooks=[hook]) as s:
        while not s.should_stop():
            s.run(train_op)

As with TF1's, the initial tokens let replicas run a step ahead of the chief: a
replica's second step may then compute its gradients before the first update and see
them dropped as stale.  ``num_tokens=0`` makes every step a barrier (each gradient is
computed from the variables of its step).  The chief's runner waits in a take when
training ends; closing the session cancels it (after the monitored session's
``stop_grace_period_secs``).  Dense gradients only: devsession has no ``IndexedSlices``
(``SparseConditionalAccumulator`` takes sparse gradients directly).
"""

from __future__ import annotations

import logging

from ..accumulators import ConditionalAccumulator
from ..graph import Tensor, control_dependencies, device, name_scope
from ..graph_keys import GraphKeys
from ..ops.array_fill import fill
from ..ops.state import assign, group, no_op
from ..queues import FIFOQueue
from ..variables import Variable, global_variables, report_uninitialized_variables
from .optimizer import Optimizer
from .queue_runner import QueueRunner
from .session_manager import _ready
from .session_run_hook import SessionRunHook

__all__ = ["SyncReplicasOptimizer"]

log = logging.getLogger("devsession")


class SyncReplicasOptimizer(Optimizer):
    """Averages the gradients of ``replicas_to_aggregate`` replicas per step and applies
    them with ``opt`` (see the module docstring).  ``total_num_replicas`` (default:
    ``replicas_to_aggregate``) may be larger (backup replicas: the slowest gradients of
    a step arrive stale and are dropped) or smaller (replicas compute several batches
    per update)."""

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None,
                 variable_averages=None, variables_to_average=None, use_locking=False,
                 name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        log.info("SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s",
                 replicas_to_aggregate, total_num_replicas)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._gradients_applied = False
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._accumulator_list: list = []       # (accumulator, device)

    def compute_gradients(self, *args, **kwargs) -> list:
        """The wrapped optimizer's (so a replica may clip its own gradients before they
        are averaged)."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The replica's train op: push the gradients, take a token into the local
        step.  Builds the rest (see the module docstring).  ValueError without pairs or
        without ``global_step`` (staleness is measured against it)."""
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        with global_step.graph.as_default():
            self._local_step = _replica_local_step(global_step)
            self.local_step_init_op = assign(self._local_step, global_step)
            chief_init_ops = [self.local_step_init_op]
            self.ready_for_local_init_op = report_uninitialized_variables(global_variables())
            with name_scope(self._name):
                train_ops, aggregated = self._accumulate(grads_and_vars)
                with device(global_step.device or None), name_scope(None):
                    update_op = self._opt.apply_gradients(
                        zip(aggregated, [v for _, v in grads_and_vars]), global_step)
                    train_op, sync_op = self._token_ops(train_ops, update_op)
                    self._chief_queue_runner = QueueRunner(self._sync_token_queue, [sync_op])
                for accumulator, where in self._accumulator_list:
                    with device(where or None):
                        chief_init_ops.append(accumulator.set_global_step(
                            global_step, name="SetGlobalStep"))
                self.chief_init_op = group(*chief_init_ops)
        self._gradients_applied = True
        return train_op

    def _accumulate(self, grads_and_vars) -> tuple:
        """(the pushes, the averaged gradients): one accumulator per variable."""
        train_ops, aggregated = [], []
        for grad, var in grads_and_vars:
            if grad is None:
                aggregated.append(None)                   # passes through, as TF1's
                continue
            if not isinstance(grad, Tensor):
                raise ValueError("Unknown grad type!")
            with device(var.device or None):
                accumulator = ConditionalAccumulator(grad.dtype, shape=var.shape,
                                                     shared_name=var.name + "/grad_accum")
                train_ops.append(accumulator.apply_grad(grad, local_step=self._local_step))
                aggregated.append(accumulator.take_grad(self._replicas_to_aggregate))
            self._accumulator_list.append((accumulator, var.device))
        return train_ops, aggregated

    def _token_ops(self, train_ops, update_op) -> tuple:
        """(the replica's train op, the chief's sync op) around the token queue."""
        step = self._global_step
        self._sync_token_queue = FIFOQueue(-1, step.dtype, shapes=[[]], name="sync_token_q",
                                           shared_name="sync_token_q")
        with control_dependencies(train_ops):
            token = self._sync_token_queue.dequeue()
        train_op = assign(self._local_step, token)
        with control_dependencies([update_op]):
            tokens = fill([self._tokens_per_step], step)   # the step after the update
            sync_op = self._sync_token_queue.enqueue_many((tokens,))
        if self._variable_averages is not None:
            with control_dependencies([sync_op]), name_scope(None):
                sync_op = self._variable_averages.apply(self._variables_to_average)
        return train_op, sync_op

    def get_chief_queue_runner(self) -> QueueRunner:
        """The runner the chief runs: aggregate, apply, increment, hand out tokens.
        ValueError before ``apply_gradients``."""
        if not self._gradients_applied:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs) -> list:
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self) -> list:
        """The wrapped optimizer's variables (not the local step), as TF1's."""
        return self._opt.variables()

    def get_init_tokens_op(self, num_tokens=-1):
        """The op putting ``num_tokens`` tokens (the global step) into the queue, for the
        chief to run once at the start (-1: ``replicas_to_aggregate``).  ValueError
        before ``apply_gradients``, or for fewer than ``replicas_to_aggregate -
        total_num_replicas`` tokens (the first step could never gather its gradients)."""
        if not self._gradients_applied:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError(f"Too few tokens to finish the first step: {num_tokens} (given) "
                             f"vs {tokens_needed} (needed)")
        with self._global_step.graph.as_default():
            if num_tokens <= 0:
                return no_op(name="no_init_tokens")
            with device(self._global_step.device or None), name_scope(None):
                tokens = fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))

    def make_session_run_hook(self, is_chief, num_tokens=-1) -> SessionRunHook:
        """The hook that readies a replica's session (see the module docstring)."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


def _replica_local_step(global_step) -> Variable:
    """``sync_rep_local_step``: a local variable where this replica's other ops run (a
    device function's worker device), not on the ps: colocated with a NoOp built there
    (its colocation group ``loc:@NoOp``, as TF1's)."""
    anchor = no_op()
    with anchor.graph.colocate_with(anchor), control_dependencies(None):
        return Variable(0, name="sync_rep_local_step", dtype=global_step.dtype,
                        trainable=False, collections=[GraphKeys.LOCAL_VARIABLES])


class _SyncReplicasOptimizerHook(SessionRunHook):
    """Runs the optimizer's init ops once a session exists; on the chief, also the
    initial tokens and the chief's queue runner (TF1's)."""

    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        opt = self._sync_optimizer
        if not opt._gradients_applied:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before "
                             "using the hook.")
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = self._init_tokens_op = None

    def after_create_session(self, session, coord):
        ready, message = _ready(self._ready_for_local_init_op, session)
        if not ready:
            raise RuntimeError(f"Init operations did not make model ready for "
                               f"SyncReplicasOptimizer local_init. Init op: "
                               f"{self._local_init_op.name}, error: {message}")
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
