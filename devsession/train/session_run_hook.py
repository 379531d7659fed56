"""The pieces every hook is built from, as TF1's ``session_run_hook``: the
``SessionRunHook`` base class, what a hook asks a run for (``SessionRunArgs``) and gets
back (``SessionRunValues``), and what it sees of the run (``SessionRunContext``)."""

from __future__ import annotations

import collections

from .training_util import get_global_step, step_read

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunValues", "SessionRunContext",
           "global_step_or_error"]

SessionRunArgs = collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"],
                                        defaults=(None, None))
SessionRunValues = collections.namedtuple("SessionRunValues",
                                          ["results", "options", "run_metadata"])


class SessionRunContext:
    """What a hook sees of one ``run``: its arguments, the session, and the stop flag."""

    def __init__(self, original_args: SessionRunArgs, session):
        self.original_args = original_args
        self.session = session
        self._stop_requested = False

    def request_stop(self) -> None:
        self._stop_requested = True

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested


class SessionRunHook:
    """Does nothing at every point of the loop; hooks override what they need."""

    def begin(self):
        """Before the session exists: the last chance to add ops to the graph."""

    def after_create_session(self, session, coord):
        """The session exists and its variables are initialized or restored."""

    def before_run(self, run_context):
        """Return ``SessionRunArgs`` to add fetches (and feeds) to this run, or None."""
        return None

    def after_run(self, run_context, run_values):
        """``run_values.results`` holds the values of what ``before_run`` asked for."""

    def end(self, session):
        """The block ended normally."""


def global_step_or_error(hook: str):
    """The global step's value as the run starts, for a hook to fetch (``step_read``):
    TF1's hooks count from it (a fetch of the variable itself gives its value after
    the run's increment)."""
    step = get_global_step()
    if step is None:
        raise RuntimeError(f"{hook} needs a global step: create one with "
                           f"ds.train.get_or_create_global_step() before the session.")
    return step_read(step)
