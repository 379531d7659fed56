"""Independent branches: which steps overlap (pure logic) and that results don't change."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import devsession as ds
from devsession.runtime.branches import HEAVY_WORK, overlapping_waves
from devsession.runtime.plan import Step


def step(inputs, output, op="Tanh", work=HEAVY_WORK):
    return Step(None, tuple(inputs), output, (), f"n{output}", op, "CPU:0", work)


def test_two_heavy_independent_steps_form_a_wave():
    steps = [step([0], 1), step([0], 2), step([1, 2], 3)]
    waves = overlapping_waves(steps, keep=frozenset({3}))
    assert [w.steps for w in waves] == [(0, 1), (2,)]
    assert [w.overlap for w in waves] == [True, False]
    assert set(waves[1].frees) == {1, 2} and set(waves[0].frees) == {0}


def test_a_control_edge_puts_a_step_in_a_later_wave():
    # n2 runs under control_dependencies([n1]) (an Assert's check, say): it must not run
    # beside n1, though no data flows between them; n4 still overlaps n1
    steps = [step([0], 1), step([0], 2), step([0], 4), step([1, 2, 4], 3)]
    waves = overlapping_waves(steps, keep=frozenset({3}), controls={"n2": ("n1",)})
    assert [w.steps for w in waves] == [(0, 2), (1,), (3,)]
    fused = [step([0], 1), Step(None, (0,), 2, (), "n2", "Tanh", "CPU:0", HEAVY_WORK,
                                (("mul", "Mul"), ("n2", "Tanh"))), step([0], 4),
             step([1, 2, 4], 3)]
    waves = overlapping_waves(fused, keep=frozenset({3}), controls={"mul": ("n1",)})
    assert [w.steps for w in waves] == [(0, 2), (1,), (3,)]      # a fused member's edge
    assert [w.steps for w in overlapping_waves(steps, keep=frozenset({3}))] == \
        [(0, 1, 2), (3,)]


def test_light_or_stateful_steps_do_not_overlap():
    light = [step([0], 1, work=10), step([0], 2, work=10), step([1, 2], 3)]
    assert overlapping_waves(light) == ()
    stateful = [step([0], 1), step([0], 2), step([], 3, op="Assign")]
    assert overlapping_waves(stateful) == ()


def test_large_constants_are_not_worth_a_thread():
    # Two dense layers' weights are independent steps of one depth, big enough to look
    # heavy by size, but their kernels hand back a stored array: a thread hand-off for
    # them cost ~0.15 ms of a 4.4 ms MLP forward.  Two real branches still overlap.
    rng = np.random.default_rng(0)
    w1, w2 = rng.random((300, 400), np.float32), rng.random((400, 200), np.float32)
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 300), name="x")
        layers = ds.matmul(ds.tanh(ds.matmul(x, ds.constant(w1))), ds.constant(w2))
        branches = ds.matmul(x, ds.constant(w1[:, :40])) + \
            ds.matmul(ds.tanh(x), ds.constant(w1[:, 40:80]))
    xv = rng.random((200, 300), np.float32)
    with ds.Session(graph=g) as sess:
        assert sess._prepare((x,), (layers,), ()).plan.waves == ()
        assert any(w.overlap for w in sess._prepare((x,), (branches,), ()).plan.waves)
        np.testing.assert_allclose(sess.run(layers, {x: xv}), np.tanh(xv @ w1) @ w2, rtol=1e-4)


def test_slot_read_in_a_later_wave_is_not_freed_early():
    # slot 1 is read at depth 2 and by the last step; sequential order would free it
    # after step 2, but by depth it must live until wave 3.
    steps = [step([0], 1), step([0], 4), step([1, 4], 2), step([2, 1], 3)]
    waves = overlapping_waves(steps, keep=frozenset({3}))
    freed_at = {slot: k for k, w in enumerate(waves) for slot in w.frees}
    assert freed_at[1] == 2


def test_branchy_graph_same_result_with_and_without_threads():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None,), name="x")
        parts = [ds.reduce_sum(ds.tanh(x * float(k))) for k in range(1, 5)]
        y = parts[0] + parts[1] + parts[2] + parts[3]
    xv = np.random.default_rng(0).standard_normal(200_003).astype(np.float32)
    results = []
    for threads in (1, 0):
        options = ds.SessionOptions(inter_op_threads=threads)
        with ds.Session(graph=g, options=options) as sess:
            meta = ds.RunMetadata()
            results.append(sess.run(y, {x: xv}, options=ds.RunOptions(trace=True),
                                    run_metadata=meta))
            plan = sess._prepare((x,), (y,), ()).plan
            if threads == 0:
                assert any(w.overlap for w in plan.waves)
                assert {s.node for s in meta.step_stats} >= {p.op.name for p in parts}
    assert results[0] == results[1]
    want = sum(np.tanh(xv.astype(np.float64) * k).sum() for k in range(1, 5))
    np.testing.assert_allclose(results[0], want, rtol=1e-5)


# --- a step's branches and the end of the process ---------------------------------------

LONG_BRANCHES = """
import os, signal, sys, threading, time
import numpy as np
import devsession as ds
x = ds.placeholder(ds.float32, (40000,))
n = ds.placeholder(ds.int32, ())
def loop(k):   # a heavy loop variable: the three loops overlap on the branch pool
    s, _ = ds.while_loop(lambda s, i: i < n, lambda s, i: (s + 1.0, i + 1),
                         [x * float(k), ds.constant(0)])
    return ds.reduce_sum(s)
total = ds.add_n([loop(1), loop(2), loop(3)])
sess = ds.Session(config=ds.ConfigProto(inter_op_parallelism_threads=4))
feed = {x: np.ones(40000, np.float32)}
sess.run(total, {**feed, n: 3})
assert sess.wait_compiled(120)
long_step = {**feed, n: 10_000_000}
"""


def _run_script(body: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", LONG_BRANCHES + body], timeout=60,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)


def test_a_step_still_running_when_the_script_ends_does_not_keep_the_process():
    """The branch pool's threads are daemons: a long step started on another thread
    does not hold the process once its script is done (a ThreadPoolExecutor's threads
    were joined at exit, for as long as the step computed)."""
    done = _run_script("""
threading.Thread(target=lambda: sess.run(total, long_step), daemon=True).start()
time.sleep(1.0)
print("done")
""")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["done"]


def test_ctrl_c_stops_the_branches_of_the_interrupted_step():
    """After a KeyboardInterrupt the pool's branches stop before their next kernel
    (they computed on for the abandoned step), and the session still runs."""
    done = _run_script("""
threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    sess.run(total, long_step)
    print("not interrupted")
except KeyboardInterrupt:
    pass
time.sleep(0.3)                 # the branches reach their next kernel
start = time.process_time()
time.sleep(1.0)
print(f"{time.process_time() - start:.2f}", sess.run(total, {**feed, n: 2}))
""")
    assert done.returncode == 0, done.stderr[-2000:]
    busy, value = done.stdout.split()
    assert float(busy) < 0.3, f"the interrupted step's branches still ran: {busy} s of CPU"
    assert float(value) == 40000 * (1 + 2 + 3 + 3 * 2)


def test_a_branch_cancelled_on_the_pool_is_the_librarys_cancelled_error():
    """A branch the pool cancelled before it ran (its session closing) fails the step
    with ``ds.errors.CancelledError``, not concurrent.futures' own."""
    import concurrent.futures

    from devsession.runtime.executor import execute

    class CancellingPool:
        def submit(self, fn, *args):
            future = concurrent.futures.Future()
            future.cancel()
            return future

    x = ds.placeholder(ds.float32, (40000,))
    heavy = [ds.reduce_sum(ds.tanh(x * float(k))) for k in (1, 2, 3)]
    sess = ds.Session(config=ds.ConfigProto(inter_op_parallelism_threads=3))
    step = sess._prepare((x,), (ds.add_n(heavy),), ())
    assert step.plan.waves, "the three branches should overlap"
    with pytest.raises(ds.errors.CancelledError, match="closed"):
        execute(step.plan, [np.ones(40000, np.float32)], None, None, CancellingPool())
