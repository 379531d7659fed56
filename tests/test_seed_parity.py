"""A TF1 program seeded only by ``set_random_seed`` gets TensorFlow's op seeds, and so its
initial weights and random draws, from devsession's builders: each of
tests/seed_parity_cases.py's constructs (initializers, tf.layers, dropout, image
augmentation, input pipelines, RNNs with dropout, samplers), built as TF 2.21 built it
(recorded by tests/data/make_tf_seed_parity.py), takes the same op seeds in the same
order (the ``probe`` built last shows the count), and its variables start from TF's
values bit for bit, its draws too.

Where devsession builds other seeded ops than TF on purpose (``cases.DIFFERS``), TF's
seeded ops (less the types only TF builds) come in the same order among devsession's,
and devsession's others take uncounted seeds, far from the counted ones.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
import seed_parity_cases as cases
from tf_recorded import DATA

TF = np.load(os.path.join(DATA, "tf_seed_parity.npz"))
COUNTED = 2**16     # the count's seeds stay far below; a hashed, uncounted seed is above


def _tfs_ops(name) -> list:
    return [(str(t), int(s), int(s2)) for t, (s, s2) in zip(TF[f"types:{name}"],
                                                            TF[f"seeds:{name}"])]


def _in_order_among(wanted: list, ours: list) -> list:
    """``ours`` less ``wanted``, which must all be there in their order."""
    rest, at = [], 0
    for op in ours:
        if at < len(wanted) and op == wanted[at]:
            at += 1
        else:
            rest.append(op)
    assert at == len(wanted), f"TF's {wanted[at]} (and after) not among ours: {ours}"
    return rest


@pytest.mark.parametrize("name", list(cases.CASES))
def test_op_seeds_are_tfs(name):
    graph, _, _, _ = cases.built(ds, name)
    ours, tfs = cases.seeded_ops(graph), _tfs_ops(name)
    assert ours[-1] == tfs[-1], "the probe: the count of op seeds after the case"
    if name not in cases.DIFFERS:
        assert ours == tfs
        return
    tf_only, _ = cases.DIFFERS[name]
    extra = _in_order_among([op for op in tfs if op[0] not in tf_only], ours)
    assert extra or tf_only, "no op differs any more: drop the case from DIFFERS"
    for op_type, seed, seed2 in extra:        # uncounted: the graph's seed, a hashed one
        assert seed == 1 and seed2 >= COUNTED, (op_type, seed, seed2)


@pytest.mark.parametrize("name", list(cases.CASES))
def test_initial_values_and_first_draws_are_tfs(name):
    graph, fetches, variables, init = cases.built(ds, name)
    want = {k.split(":", 2)[2]: TF[k] for k in TF.files
            if k.startswith((f"var:{name}:", f"run:{name}:"))}
    with ds.Session(graph=graph) as sess:
        sess.run(init)
        got = {v.op.name: sess.run(v) for v in variables}
        got.update(sess.run(fetches))
    assert sorted(got) == sorted(want)
    for key, value in got.items():
        assert value.dtype == want[key].dtype, key
        if (name, key) in cases.ROUNDED:
            np.testing.assert_allclose(value, want[key], rtol=1e-6, atol=1e-7, err_msg=key)
        else:
            np.testing.assert_array_equal(value, want[key], err_msg=key)


def test_uncounted_seeds_differ_step_to_step_and_leave_the_count():
    """An unrolled dynamic_rnn's later steps drop with seeds of their own (not the first
    step's masks again), and the ops after take TF's count."""
    ds.set_random_seed(1)
    cell = ds.nn.rnn_cell.DropoutWrapper(ds.nn.rnn_cell.BasicRNNCell(3),
                                         output_keep_prob=0.5, seed=9)
    ds.nn.dynamic_rnn(cell, ds.ones([2, 4, 3]), dtype=ds.float32)
    draws = [op for op in ds.get_default_graph().get_operations()
             if op.type == "RandomUniform"]
    seeds = [(op.get_attr("seed"), op.get_attr("seed2")) for op in draws]
    # the kernel's initializer, then the first step's dropout (its own seed), 3 steps more
    assert seeds[:2] == [(1, 0), (1, 9)] and len(set(seeds[2:])) == 3
    assert ds.get_seed(None) == (1, 1)
