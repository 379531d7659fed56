"""``replica_device_setter``: TF1's device function for data-parallel training.

    cluster = ds.ClusterSpec({"ps": [...], "worker": [...]})
    with ds.device(replica_device_setter(cluster=cluster,
                                         worker_device="/job:worker/task:1")):
        w = ds.Variable(...)          # /job:ps/task:0
        b = ds.Variable(...)          # /job:ps/task:1   (round robin over the ps tasks)
        loss = ...                    # /job:worker/task:1

Variable ops (``ps_ops``) go to ``ps_device`` with the task chosen by ``ps_strategy``
(round robin by default, in creation order); every other op to ``worker_device``.  A
device an inner ``ds.device`` scope already asked for wins field by field
(``merge_devices``), as in TF1, so ``with ds.device("/job:ps/task:0")`` inside the setter
pins a variable.  Ops that assign to a variable run with it whatever they ask (placement
colocates them), and a variable's ``read`` follows its variable, so only the tensors the
model reads cross from a ps task to a worker.

One deliberate difference from TF1: given a ``cluster`` that lacks the job ``ps_device``
or ``worker_device`` names, TF1 silently returns None (everything local); here it is a
ValueError naming the job, since such a script would otherwise train without its ps.
"""

from __future__ import annotations

from ..device_spec import DeviceSpec
from ..distributed.cluster_spec import ClusterSpec

__all__ = ["replica_device_setter", "STANDARD_PS_OPS"]

# TF1's list, less the ops devsession does not have (they would never match anyway).
STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp",
                   "MutableHashTable", "MutableHashTableV2", "MutableHashTableOfTensors",
                   "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2")


class _RoundRobinStrategy:
    """The next ps task each time (TF1's default ``ps_strategy``)."""

    def __init__(self, num_tasks: int):
        self._num_tasks = num_tasks
        self._next = 0

    def __call__(self, op) -> int:
        task = self._next
        self._next = (self._next + 1) % self._num_tasks
        return task


class _ReplicaDeviceChooser:
    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                 ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = frozenset(ps_ops)
        self._ps_strategy = ps_strategy

    def device_function(self, op) -> str:
        current = DeviceSpec.parse(op.device or "")
        if not self._merge_devices and op.device:
            return op.device
        if self._ps_tasks and self._ps_device and op.type in self._ps_ops:
            ps = DeviceSpec.parse(self._ps_device)
            if ps.job and (current.job is None or current.job == ps.job):
                ps = ps.replace(task=self._ps_strategy(op))
            return str(ps.merge(current))
        return str(DeviceSpec.parse(self._worker_device or "").merge(current))


def _job_of(device: str | None, what: str) -> str | None:
    try:
        return DeviceSpec.parse(device or "").job
    except ValueError as e:
        raise ValueError(f"replica_device_setter: {what} {device!r} is not a device: {e}") \
            from None


def replica_device_setter(ps_tasks: int = 0, ps_device: str = "/job:ps",
                          worker_device: str = "/job:worker", merge_devices: bool = True,
                          cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for ``ds.device(...)`` (see the module docstring); None when
    there are no ps tasks (``ds.device(None)`` then places nothing), as TF1's.

    ``cluster`` (a ClusterSpec or its dict) sets ``ps_tasks`` to its number of ``ps_device``
    tasks.  Raises ValueError for a cluster that lacks the job ``ps_device`` or
    ``worker_device`` names, or for a ``ps_strategy`` given with no ps tasks.
    """
    ps_job = _job_of(ps_device, "ps_device")
    worker_job = _job_of(worker_device, "worker_device")
    if cluster is not None:
        spec = ClusterSpec(cluster)
        for job, what, device in ((ps_job, "ps_device", ps_device),
                                  (worker_job, "worker_device", worker_device)):
            if job is not None and job not in spec.jobs:
                raise ValueError(
                    f"replica_device_setter: {what} {device!r} names job '{job}', which the "
                    f"cluster lacks (jobs: {', '.join(spec.jobs)}). Add the job to the "
                    f"ClusterSpec or name one of its jobs.")
        ps_tasks = spec.num_tasks(ps_job) if ps_job is not None else 0
    if not isinstance(ps_tasks, int) or ps_tasks < 0:
        raise ValueError(f"replica_device_setter: ps_tasks must be a non-negative int, not "
                         f"{ps_tasks!r}.")
    if ps_tasks == 0:
        if ps_strategy is not None:
            raise ValueError("replica_device_setter: a ps_strategy needs ps tasks.")
        return None
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    elif not callable(ps_strategy):
        raise TypeError("replica_device_setter: ps_strategy must be callable (op -> task).")
    chooser = _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices,
                                    STANDARD_PS_OPS if ps_ops is None else ps_ops, ps_strategy)
    return chooser.device_function
