"""TF1's ``tf.train.basic_train_loop``: the simplest loop over a ``Supervisor``'s managed
session, started again when a step is aborted (a parameter server restarted)."""

from __future__ import annotations

from ..errors import AbortedError

__all__ = ["basic_train_loop"]


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master="") -> None:
    """Call ``train_step_fn(sess, *args, **kwargs)`` until ``supervisor.should_stop()``,
    in ``supervisor.managed_session(master)``; an ``AbortedError`` opens a new session
    and goes on, as TF's."""
    args, kwargs = args or [], kwargs or {}
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except AbortedError:
            should_retry = True
