"""TF1's everyday ``SessionRunHook``s beyond the loop's own (``monitored_session.py``):

==========================  ==================================================================
``NanTensorHook(loss)``     after each run, a NaN loss raises ``NanLossDuringTrainingError``
                            (or, with ``fail_on_nan_loss=False``, logs and stops the loop)
``LoggingTensorHook``       logs the named tensors' values every ``every_n_iter`` runs or
                            ``every_n_secs`` seconds (and ``at_end``), ``name = value`` each
``StepCounterHook``         logs the global steps per second every ``every_n_steps``
==========================  ==================================================================

Each asks for its tensors only on the runs it reports on, so the other runs fetch
nothing more.  Messages go to the "devsession" logger at INFO (WARNING for a NaN).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from .session_run_hook import SessionRunArgs, SessionRunHook, global_step_or_error

__all__ = ["NanTensorHook", "NanLossDuringTrainingError", "LoggingTensorHook",
           "StepCounterHook"]

log = logging.getLogger("devsession")


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Stop training (by an error, or a request) when ``loss_tensor`` is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss, self._fail = loss_tensor, bool(fail_on_nan_loss)

    def before_run(self, run_context):
        return SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results).any():
            if self._fail:
                log.error("Model diverged with loss = NaN.")
                raise NanLossDuringTrainingError
            log.warning("Model diverged with loss = NaN.")
            run_context.request_stop()


class _Timer:
    """Whether a report is due: every ``every_n_iter`` runs or ``every_n_secs``."""

    def __init__(self, every_n_iter, every_n_secs, what: str):
        if (every_n_iter is None) == (every_n_secs is None):
            raise ValueError(f"{what}: exactly one of every_n_iter and every_n_secs should "
                             f"be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"{what}: invalid every_n_iter={every_n_iter}.")
        self._iter, self._secs = every_n_iter, every_n_secs
        self._last_iter, self._last_time = None, None

    def due(self, iteration: int) -> bool:
        if self._last_iter is None:
            return True
        if self._iter is not None:
            return iteration >= self._last_iter + self._iter
        return time.monotonic() >= self._last_time + self._secs

    def mark(self, iteration: int) -> float | None:
        """Record a report at ``iteration``; the seconds since the last one."""
        now = time.monotonic()
        elapsed = None if self._last_time is None else now - self._last_time
        self._last_iter, self._last_time = iteration, now
        return elapsed


class LoggingTensorHook(SessionRunHook):
    """Log ``tensors`` (a dict of name to tensor, or a list of tensors or names)."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False,
                 formatter=None):
        only_at_end = at_end and every_n_iter is None and every_n_secs is None
        self._timer = None if only_at_end else _Timer(every_n_iter, every_n_secs,
                                                      "LoggingTensorHook")
        if not isinstance(tensors, dict):
            tensors = {getattr(t, "name", t): t for t in tensors}
        self._tensors, self._at_end, self._format = tensors, at_end, formatter
        self._iteration, self._due = 0, False

    def before_run(self, run_context):
        self._due = self._timer is not None and self._timer.due(self._iteration)
        return SessionRunArgs(self._tensors) if self._due else None

    def after_run(self, run_context, run_values):
        if self._due:
            elapsed = self._timer.mark(self._iteration)
            self._log(run_values.results, elapsed)
        self._iteration += 1

    def end(self, session):
        if self._at_end:
            self._log(session.run(self._tensors), None)

    def _log(self, values: dict, elapsed) -> None:
        if self._format is not None:
            log.info(self._format(values))
            return
        line = ", ".join(f"{name} = {values[name]}" for name in self._tensors)
        if elapsed:
            line += f" ({elapsed:.3f} sec)"
        log.info("%s", line)


class StepCounterHook(SessionRunHook):
    """Log the global steps per second every ``every_n_steps`` steps (or
    ``every_n_secs``); ``steps_per_sec`` holds the last rate.  ``output_dir`` and
    ``summary_writer`` are accepted: the rate is logged, not written as a summary."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None):
        self._timer = _Timer(None if every_n_secs is not None else every_n_steps,
                             every_n_secs, "StepCounterHook")
        self._last_step = None
        self.steps_per_sec = None           # the last rate logged

    def begin(self):
        self._step = global_step_or_error("StepCounterHook")

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        step = int(run_values.results) + 1          # this run's update made the next one
        if self._last_step is None:
            self._timer.mark(step)
            self._last_step = step
        elif self._timer.due(step):
            elapsed = self._timer.mark(step)
            if elapsed:
                self.steps_per_sec = (step - self._last_step) / elapsed
                log.info("global_step/sec: %g", self.steps_per_sec)
            self._last_step = step
