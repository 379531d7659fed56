"""``ds.einsum``: values against ``np.einsum`` for static and unknown shapes, gradients
against finite differences, and the equations it refuses."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds

CASES = [("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]),
         ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
         ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]), ("i,i->", [(4,), (4,)]),
         ("i,j->ij", [(3,), (4,)]), ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]),
         ("ijk,jl,lk->i", [(2, 3, 4), (3, 5), (5, 4)]), ("bi,bi->b", [(3, 4), (3, 4)]),
         ("ab,cd->abcd", [(2, 3), (4, 5)]), ("ijk->kij", [(2, 3, 4)]),
         ("ij,kj->ik", [(2, 3), (4, 3)]), ("ij,ij->ij", [(0, 3), (0, 3)]),
         ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]), ("...ij,jk", [(2, 3, 4), (4, 5)]),
         ("i...,i...->...", [(3, 2, 4), (3, 2, 4)]), ("b...d,bd->b...", [(2, 3, 4, 5), (2, 5)]),
         ("...,...->...", [(2, 3), (2, 3)]), ("...ij->...ji", [(2, 3)]),
         # an index repeated within an operand: its diagonal (summed: a trace)
         ("ii->", [(3, 3)]), ("ii->i", [(3, 3)]), ("bii->bi", [(2, 3, 3)]),
         ("iji->j", [(3, 4, 3)]), ("iii->i", [(3, 3, 3)]), ("ij,jj->i", [(2, 3), (3, 3)]),
         ("...ii->...i", [(2, 4, 4)])]
# the ellipses' dimensions broadcast (size 1 against more, or absent): static sizes only
BROADCAST = [("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 6)]), ("...,...->...", [(2, 3), (3,)]),
             ("...i,...i", [(4, 1, 3), (2, 3)]), ("a...,...a->...", [(3, 2, 1), (1, 4, 3)])]


def inputs_for(shapes, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_matches_numpy(equation, shapes):
    xs = inputs_for(shapes)
    unknown = [ds.placeholder(ds.float32, [None] * len(s)) for s in shapes]
    fed = ds.einsum(equation, *unknown)
    static = ds.einsum(equation, *[ds.constant(x) for x in xs])
    want = np.einsum(equation, *xs)
    assert static.shape.as_list() == list(want.shape)
    with ds.Session() as sess:
        np.testing.assert_allclose(sess.run(fed, dict(zip(unknown, xs))), want, rtol=1e-5,
                                   atol=1e-5)
        np.testing.assert_allclose(sess.run(static), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("equation,shapes", BROADCAST, ids=[c[0] for c in BROADCAST])
def test_ellipses_broadcast_as_numpys(equation, shapes):
    xs = inputs_for(shapes, seed=3)
    got = ds.einsum(equation, *[ds.constant(x) for x in xs])
    want = np.einsum(equation, *xs)
    assert got.shape.as_list() == list(want.shape)
    with ds.Session() as sess:
        np.testing.assert_allclose(sess.run(got), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("equation,shapes", [CASES[2], CASES[3], CASES[8], CASES[10],
                                             CASES[17], BROADCAST[0], CASES[22], CASES[25]],
                         ids=lambda c: str(c))
def test_einsum_gradients_match_finite_differences(equation, shapes):
    xs = inputs_for(shapes, seed=1, dtype=np.float64)
    weights = np.random.default_rng(2).standard_normal(np.einsum(equation, *xs).shape)
    holders = [ds.placeholder(ds.float64, s) for s in shapes]
    loss = ds.reduce_sum(ds.einsum(equation, *holders) * weights)
    grads = ds.gradients(loss, holders)
    with ds.Session() as sess:
        feed = dict(zip(holders, xs))
        got = sess.run(grads, feed)
        for k, x in enumerate(xs):
            numeric = np.zeros_like(x)
            for index in np.ndindex(x.shape):
                step = np.zeros_like(x)
                step[index] = 1e-6
                up = sess.run(loss, {**feed, holders[k]: x + step})
                down = sess.run(loss, {**feed, holders[k]: x - step})
                numeric[index] = (up - down) / 2e-6
            np.testing.assert_allclose(got[k], numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("equation,shapes,match", [
    ("ij->ii", [(3, 3)], "repeat an index"), ("ii->i", [(2, 3)], "has sizes 2 and 3"), ("..ij,jk", [(2, 3, 4), (4, 5)], "only allowed as"),
    ("...ij,jk->ik", [(2, 3, 4), (4, 5)], "no '...'"), ("...ijk", [(3, 4)], "fewer than"),
    ("ij,jk->ik", [(3, 4)], "2 operands"), ("ij,jk->il", [(3, 4), (4, 5)], "appears in no"),
    ("ij,jk->ik", [(3, 4), (5, 6)], "sizes 4 and 5"), ("ijk,jk", [(3, 4), (4, 5)], "rank 2"),
])
def test_equations_it_refuses(equation, shapes, match):
    with pytest.raises(ValueError, match=match):
        ds.einsum(equation, *[ds.zeros(s) for s in shapes])


def test_an_ellipsis_needs_its_operands_rank():
    with pytest.raises(ValueError, match=r"'\.\.\.' in '\.\.\.ij' needs the rank"):
        ds.einsum("...ij,jk", ds.placeholder(ds.float32), ds.zeros((4, 5)))


def test_an_operand_of_unknown_rank_takes_its_subscripts_rank_checked_when_run():
    """As TF's Einsum: the output's static rank from the equation, and another rank fed
    is InvalidArgumentError (it was a sum over the wrong axes: 'ij->' of a 3-D value a
    vector)."""
    unknown = ds.placeholder(ds.float32)
    total = ds.einsum("ij->", unknown)
    product = ds.einsum("ij,jk->ik", unknown, ds.ones((4, 2)))
    assert (total.shape.as_list(), product.shape.as_list()) == ([], [None, 2])
    x = inputs_for([(3, 4)])[0]
    with ds.Session() as sess:
        np.testing.assert_allclose(sess.run(total, {unknown: x}), x.sum(), rtol=1e-5)
        np.testing.assert_allclose(sess.run(product, {unknown: x}), x @ np.ones((4, 2)),
                                   rtol=1e-5)
        for wrong in (np.ones((2, 3, 4), np.float32), np.ones(4, np.float32)):
            with pytest.raises(ds.errors.InvalidArgumentError, match="EnsureShape"):
                sess.run(total, {unknown: wrong})
