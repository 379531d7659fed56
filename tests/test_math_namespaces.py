"""``ds.random``, ``ds.linalg`` and ``ds.debugging`` (branch tf1-math): TF1.15's spellings of
existing functions, each namespace's missing names raising ``UnsupportedTF1Error`` naming
the TF1 symbol, and a few of them run through a session.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.unsupported import TF1_NAMESPACES, UnsupportedTF1Error

SAME = [  # (namespace, name, the function it is)
    ("random", "normal", "random_normal"), ("random", "uniform", "random_uniform"),
    ("random", "truncated_normal", "truncated_normal"), ("random", "shuffle", "random_shuffle"),
    ("random", "set_random_seed", "set_random_seed"),
    ("linalg", "matmul", "matmul"), ("linalg", "norm", "norm"), ("linalg", "eye", "eye"),
    ("linalg", "trace", "trace"), ("linalg", "transpose", "matrix_transpose"),
    ("linalg", "matrix_transpose", "matrix_transpose"),
    ("linalg", "band_part", "matrix_band_part"), ("linalg", "tensordot", "tensordot"),
    ("linalg", "einsum", "einsum"), ("linalg", "det", "matrix_determinant"),
    ("linalg", "global_norm", "global_norm"), ("linalg", "diag", "matrix_diag"),
    ("linalg", "diag_part", "matrix_diag_part"), ("linalg", "tensor_diag", "diag"),
    ("debugging", "check_numerics", "check_numerics"),
    ("debugging", "assert_all_finite", "verify_tensor_all_finite"),
    ("debugging", "is_nan", "is_nan"), ("debugging", "is_inf", "is_inf"),
    ("debugging", "is_finite", "is_finite"), ("debugging", "Assert", "Assert"),
]


@pytest.mark.parametrize("namespace,name,same", SAME, ids=[f"{n}.{m}" for n, m, _ in SAME])
def test_tf1_spellings(namespace, name, same):
    assert getattr(getattr(ds, namespace), name) is getattr(ds, same)
    assert name in getattr(ds, namespace).__all__


def test_other_spellings():
    assert ds.linalg.l2_normalize is ds.nn.l2_normalize
    assert ds.random.log_uniform_candidate_sampler is ds.nn.log_uniform_candidate_sampler
    assert ds.random.uniform_candidate_sampler is ds.nn.uniform_candidate_sampler


@pytest.mark.parametrize("namespace,name", [("math", "sobol_sample"),
                                            ("signal", "fftnd"),
                                            ("linalg", "experimental"),
                                            ("debugging", "disable_traceback_filtering"),
                                            ("debugging", "enable_check_numerics")])
def test_missing_names_are_named(namespace, name):
    assert namespace not in TF1_NAMESPACES
    with pytest.raises(UnsupportedTF1Error) as info:
        getattr(getattr(ds, namespace), name)
    assert str(info.value).startswith(f"tf.{namespace}.{name} is not supported by "
                                      f"devsession yet")
    assert not hasattr(getattr(ds, namespace), name)


def test_through_a_session():
    with ds.Graph().as_default():
        ds.random.set_random_seed(3)
        draws = [ds.random.normal([2, 3], seed=1), ds.random.uniform([4], maxval=2.0, seed=1),
                 ds.random.truncated_normal([5], seed=2), ds.random.shuffle(ds.range(6), seed=4)]
        x = ds.constant([[3.0, 4.0], [0.0, 1.0]])
        algebra = [ds.linalg.norm(x, axis=1), ds.linalg.transpose(x), ds.linalg.det(x),
                   ds.linalg.band_part(x, 0, -1), ds.linalg.trace(x),
                   ds.debugging.check_numerics(x, "x")]
        with ds.Session() as sess:
            a, b = sess.run(draws), sess.run(draws)
            norm, transposed, det, upper, trace, checked = sess.run(algebra)
    assert a[0].shape == (2, 3) and ((a[1] >= 0) & (a[1] < 2)).all()
    assert np.abs(a[2]).max() <= 2 and sorted(a[3]) == list(range(6))
    assert not np.array_equal(a[0], b[0])                      # a new draw each run
    np.testing.assert_allclose(norm, [5, 1])
    np.testing.assert_array_equal(transposed, [[3, 0], [4, 1]])
    np.testing.assert_allclose(det, 3.0, rtol=1e-6)
    np.testing.assert_array_equal(upper, [[3, 4], [0, 1]])
    assert trace == 4.0 and (checked == [[3, 4], [0, 1]]).all()


def test_seeded_draws_repeat_across_graphs():
    def draw():
        with ds.Graph().as_default():
            ds.random.set_random_seed(11)
            with ds.Session() as sess:
                return sess.run(ds.random.normal([3]))
    np.testing.assert_array_equal(draw(), draw())
