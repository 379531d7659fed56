"""Independent branches: which steps overlap (pure logic) and that results don't change."""

from __future__ import annotations

import numpy as np

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


def test_light_or_stateful_steps_do_not_overlap():
    light = [step([0], 1, work=10), step([0], 2, work=10), step([1, 2], 3)]
    assert overlapping_waves(light) == ()
    stateful = [step([0], 1), step([0], 2), step([], 3, op="Assign")]
    assert overlapping_waves(stateful) == ()


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
