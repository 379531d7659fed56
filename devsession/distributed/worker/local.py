"""``LocalWorker``: a worker in this process, called directly, with ``RemoteWorker``'s
methods (``worker/client.py``).

The master calls its own task's worker this way (its partition then runs in the thread
serving the step), and tests build whole clusters of them without sockets: a
``WorkerPool`` whose ``connect`` returns LocalWorkers over in-process ``WorkerState``s
runs the master's logic exactly as a cluster of processes would.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses

from ...errors import OpError
from ..transport.messages import WorkerStatus

__all__ = ["LocalWorker"]

# RunGraph futures of in-process workers (tests' clusters without sockets).
_RUNNERS = concurrent.futures.ThreadPoolExecutor(32, thread_name_prefix="devsession-local")


class LocalWorker:
    """The worker whose ``WorkerState`` is ``state``, in this process."""

    def __init__(self, state):
        self.state = state
        self.task = state.task
        self.address = "(this process)"

    def __repr__(self) -> str:
        return f"<LocalWorker {self.task}>"

    def watch(self, lost) -> None:
        """A worker in this process never loses its connection."""

    def get_status(self, timeout: float | None = None,
                   wait_for_ready: bool = False) -> WorkerStatus:
        state = self.state
        return WorkerStatus(state.task, state.incarnation, tuple(state.devices()),
                            state.kernels())

    def register_graph(self, session, graph_def, feeds, fetches, targets, optimizer,
                       timeout: float | None = None):
        handle = self.state.register_graph(session, graph_def, feeds, fetches, targets,
                                           optimizer)
        return handle, self.state.incarnation

    def run_graph(self, handle: str, step_id: int, incarnation: int, timeout_s: float | None,
                  trace: bool, return_to: str | None = None) -> tuple[list, list]:
        """(NodeStats, returned sends) of a partition that takes no feeds."""
        _, stats, returned = self.state.run_graph(handle, step_id, (), timeout_s, trace,
                                                  incarnation, return_to)
        return [dataclasses.replace(s, device=f"{self.task}/device:{s.device}")
                for s in stats], returned

    def run_graph_future(self, handle: str, step_id: int, incarnation: int,
                         timeout_s: float | None, trace: bool, return_to: str | None = None):
        return _RUNNERS.submit(self.run_graph, handle, step_id, incarnation, timeout_s, trace,
                               return_to)

    def run_graph_result(self, future) -> tuple[list, list]:
        return future.result()

    def push(self, step_id: int, key: str, array, timeout: float) -> None:
        self.state.receive(step_id, key, array)

    def abort_step(self, step_id: int, error: OpError):
        self.state.abort_step(step_id, error)

    def deregister(self, session: str, handles=()) -> None:
        self.state.deregister(session, handles)

    def reset(self, containers=None) -> None:
        self.state.reset(containers)
