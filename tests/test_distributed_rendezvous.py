"""The rendezvous (no sockets): values wait for their receiver, aborts wake waiters,
deadlines bound waits, and ended steps cannot be resurrected by late pushes."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import devsession as ds
from devsession.distributed.worker.rendezvous import Rendezvous


def test_put_then_get_and_get_then_put():
    rv = Rendezvous()
    rv.put(1, "k", np.ones(2))
    np.testing.assert_array_equal(rv.get(1, "k"), [1, 1])
    got = []
    waiter = threading.Thread(target=lambda: got.append(rv.get(2, "k")))
    waiter.start()
    rv.put(2, "k", np.zeros(3))
    waiter.join(timeout=10)
    assert not waiter.is_alive() and got[0].shape == (3,)


def test_steps_are_independent():
    rv = Rendezvous()
    rv.put(1, "k", 1)
    rv.put(2, "k", 2)
    assert rv.get(2, "k") == 2 and rv.get(1, "k") == 1


def test_deadline_bounds_the_wait():
    rv = Rendezvous()
    start = time.monotonic()
    with pytest.raises(ds.errors.DeadlineExceededError, match="tensor 'x:0'"):
        rv.get(1, "k", deadline=time.monotonic() + 0.05, what="tensor 'x:0'")
    assert time.monotonic() - start < 5


def test_abort_wakes_every_waiter_with_its_own_copy_of_the_error():
    rv = Rendezvous()
    errors = []
    entered = threading.Barrier(3)

    def wait(key):
        entered.wait()
        try:
            rv.get(5, key)
        except ds.errors.OpError as e:
            errors.append(e)

    threads = [threading.Thread(target=wait, args=(k,)) for k in ("a", "b")]
    for t in threads:
        t.start()
    entered.wait()
    cause = ds.errors.UnavailableError("task 1 died", "node")
    rv.abort(5, cause)
    for t in threads:
        t.join(timeout=10)
    assert len(errors) == 2 and errors[0] is not errors[1]
    assert all(type(e) is ds.errors.UnavailableError and e.node_name == "node" for e in errors)
    with pytest.raises(ds.errors.UnavailableError):
        rv.get(5, "c")                 # later receives fail at once
    assert rv.put(5, "a", 1) is False  # late pushes are dropped
    assert rv.active_steps() == 0


def test_abort_before_anything_arrived_is_remembered():
    rv = Rendezvous()
    rv.abort(9, ds.errors.CancelledError("gone"))
    assert isinstance(rv.error_of(9), ds.errors.CancelledError)
    assert rv.put(9, "k", 1) is False


def test_finish_drops_leftovers_and_tombstones_the_step():
    rv = Rendezvous(tombstones=2)
    rv.put(1, "k", np.ones(10))
    assert rv.pending_bytes() == 80
    rv.finish(1)
    assert rv.active_steps() == 0 and rv.put(1, "k", 1) is False
    rv.finish(2)
    rv.finish(3)                        # 1 falls out of the tombstones
    assert rv.put(1, "k", 1) is True


def test_a_key_delivered_twice_is_an_error():
    rv = Rendezvous()
    rv.put(1, "k", 1)
    with pytest.raises(ds.errors.InvalidArgumentError, match="twice"):
        rv.put(1, "k", 2)


def test_idle_entries_are_swept():
    now = [0.0]
    rv = Rendezvous(clock=lambda: now[0], idle_ttl_s=10)
    rv.put(1, "k", 1)                  # a push whose step never runs here
    now[0] = 11
    rv.put(2, "k", 2)                  # the next new entry sweeps the idle one
    assert rv.active_steps() == 1 and rv.put(1, "k", 1) is False
