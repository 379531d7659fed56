"""TF1's everyday ``SessionRunHook``s beyond the loop's own (``monitored_session.py``):

==========================  ==================================================================
``NanTensorHook(loss)``     after each run, a NaN loss raises ``NanLossDuringTrainingError``
                            (or, with ``fail_on_nan_loss=False``, logs and stops the loop)
``LoggingTensorHook``       logs the named tensors' values every ``every_n_iter`` runs or
                            ``every_n_secs`` seconds (and ``at_end``), ``name = value`` each
``StepCounterHook``         logs the global steps per second every ``every_n_steps``
``FinalOpsHook``            runs ``final_ops`` when the loop ends; ``final_ops_values``
``FeedFnHook``              feeds what ``feed_fn()`` returns to every run
``GlobalStepWaiterHook``    a worker's first run waits until the global step reaches
                            ``wait_until_step`` (the chief trains alone at first)
``ProfilerHook``            traces a run every ``save_steps`` steps or ``save_secs``
                            seconds into ``<output_dir>/timeline-<step>.json``, a Chrome
                            trace (``RunMetadata.chrome_trace()``)
==========================  ==================================================================

``SecondOrStepTimer`` is the timer hooks use to decide a report is due.

Each asks for its tensors only on the runs it reports on, so the other runs fetch
nothing more.  Messages go to the "devsession" logger at INFO (WARNING for a NaN).
"""

from __future__ import annotations

import logging
import os
import time

import numpy as np

from .session_run_hook import SessionRunArgs, SessionRunHook, global_step_or_error
from .training_util import get_global_step

__all__ = ["NanTensorHook", "NanLossDuringTrainingError", "LoggingTensorHook",
           "StepCounterHook", "FinalOpsHook", "FeedFnHook", "GlobalStepWaiterHook",
           "SecondOrStepTimer", "ProfilerHook"]

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


class SecondOrStepTimer:
    """TF1's timer of hooks: triggers at most once per step, every ``every_secs``
    seconds or ``every_steps`` steps since it last triggered (always the first time)."""

    def __init__(self, every_secs=None, every_steps=None):
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")
        self._every_secs, self._every_steps = every_secs, every_steps
        self.reset()

    def reset(self) -> None:
        self._last_step, self._last_time = None, None

    def should_trigger_for_step(self, step: int) -> bool:
        if self._last_step is None:
            return True
        if self._last_step == step:
            return False
        if self._every_secs is not None:
            return time.monotonic() >= self._last_time + self._every_secs
        return step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step: int) -> tuple:
        """Record a trigger at ``step``: (seconds, steps) since the last, or (None,
        None) the first time."""
        now = time.monotonic()
        elapsed = (None, None) if self._last_time is None else \
            (now - self._last_time, step - self._last_step)
        self._last_step, self._last_time = step, now
        return elapsed

    def last_triggered_step(self):
        return self._last_step


class _Timer(SecondOrStepTimer):
    """A hook's timer, refusing its arguments with the hook's name (``what``)."""

    def __init__(self, every_n_iter, every_n_secs, what: str):
        if (every_n_iter is None) == (every_n_secs is None):
            raise ValueError(f"{what}: exactly one of every_n_iter and every_n_secs should "
                             f"be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"{what}: invalid every_n_iter={every_n_iter}.")
        super().__init__(every_secs=every_n_secs, every_steps=every_n_iter)

    due = SecondOrStepTimer.should_trigger_for_step

    def mark(self, iteration: int) -> float | None:
        """Record a report at ``iteration``; the seconds since the last one."""
        return self.update_last_triggered_step(iteration)[0]


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
    ``every_n_secs``) and, as TF's, write it as the scalar summary
    ``<global step op>/sec`` ("global_step/sec") into ``summary_writer`` or the
    ``FileWriterCache`` writer of ``output_dir`` (neither: logged only);
    ``steps_per_sec`` holds the last rate."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None):
        self._timer = _Timer(None if every_n_secs is not None else every_n_steps,
                             every_n_secs, "StepCounterHook")
        self._output_dir, self._writer = output_dir, summary_writer
        self._last_step = None
        self.steps_per_sec = None           # the last rate logged

    def begin(self):
        from ..summary import FileWriterCache

        self._step = global_step_or_error("StepCounterHook")
        self._tag = f"{get_global_step().op.name}/sec"
        if self._writer is None and self._output_dir:
            self._writer = FileWriterCache.get(self._output_dir)

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
                log.info("%s: %g", self._tag, self.steps_per_sec)
                self._record(step)
            self._last_step = step

    def end(self, session):
        if self._writer is not None:
            self._writer.flush()

    def _record(self, step: int) -> None:
        from ..summary import Summary

        if self._writer is not None:
            rate = Summary(value=[Summary.Value(tag=self._tag, simple_value=self.steps_per_sec)])
            self._writer.add_summary(rate, step)


class FinalOpsHook(SessionRunHook):
    """Run ``final_ops`` (with ``final_ops_feed_dict``) once the loop ends normally;
    their values are ``final_ops_values`` then."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops, self._feed_dict = final_ops, final_ops_feed_dict
        self._values = None

    @property
    def final_ops_values(self):
        return self._values

    def end(self, session):
        if self._final_ops is not None:
            self._values = session.run(self._final_ops, feed_dict=self._feed_dict)


class FeedFnHook(SessionRunHook):
    """Feed ``feed_fn()`` (a feed dict) to every run of the loop."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class GlobalStepWaiterHook(SessionRunHook):
    """Hold a worker's first run until the global step reaches ``wait_until_step``,
    reading it every half second (TF's way of letting the chief train alone first, so
    that workers start from better weights); later runs go straight through."""

    _POLL_SECS = 0.5

    def __init__(self, wait_until_step):
        self._wait_until_step = int(wait_until_step)
        self._started = False

    def begin(self):
        self._step = global_step_or_error("GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._started or self._wait_until_step <= 0:
            self._started = True
            return None
        log.info("Waiting for global step %d before starting training.",
                 self._wait_until_step)
        logged = 0
        while True:
            step = int(run_context.session.run(self._step))
            if step >= self._wait_until_step:
                self._started = True
                return None
            if step - logged > 1000:
                log.info("Waiting for global step %d before starting training. Current "
                         "step is %d.", self._wait_until_step, step)
                logged = step
            time.sleep(self._POLL_SECS)


class ProfilerHook(SessionRunHook):
    """TF1's ``ProfilerHook(save_steps=None, save_secs=None, output_dir="",
    show_dataflow=True, show_memory=False)``: the first run after every ``save_steps``
    global steps (or ``save_secs`` seconds) is traced and written to
    ``timeline-<step>.json`` (the step after the run), as TF's; the runs between are not
    traced.  ``show_dataflow`` and ``show_memory`` are taken and ignored (devsession's trace
    has neither flows nor memory), and the trace does not go to an event file."""

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True,
                 show_memory=False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        from ..options import RunOptions

        self._next_step = None
        self._trace = RunOptions(trace_level=RunOptions.FULL_TRACE)
        self._step = global_step_or_error("ProfilerHook")

    def before_run(self, run_context):
        self._requested = self._next_step is not None and \
            self._timer.should_trigger_for_step(self._next_step)
        return SessionRunArgs({"global_step": self._step},
                              options=self._trace if self._requested else None)

    def after_run(self, run_context, run_values):
        stale = int(run_values.results["global_step"])
        if self._next_step is None:     # not due until N steps or seconds have passed
            self._timer.update_last_triggered_step(stale)
        step = stale + 1
        if self._requested:
            step = int(run_context.session.run(self._step))
            self._timer.update_last_triggered_step(step)
            path = self._output_file.format(step)
            log.info("Saving timeline for %d into '%s'.", step, path)
            with open(path, "w") as f:
                f.write(run_values.run_metadata.chrome_trace())
        self._next_step = step + 1
