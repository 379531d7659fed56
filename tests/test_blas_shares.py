"""float32 products as one single-threaded OpenBLAS call per numba thread
(``kernels/cpu/blas_shares.py``): every layout and share against numpy in float64, the
edges of C left alone, what it turns away, OpenBLAS held to one thread meanwhile, and
which engine ``blas.plain_products`` picks for a CPU.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

from devsession.kernels import blas_threads
from devsession.kernels.cpu import blas, blas_shares, register_gemm, sgemm
from kernel_cases import rng_for

F32 = np.float32

pytestmark = pytest.mark.skipif(not blas_shares.usable(), reason=(
    "needs numpy's OpenBLAS with cblas_sgemm and one thread count per process"))


def operands(m, k, n, transpose_a, transpose_b, lead=0):
    """a (m, k) and b (k, n), each a transposed view when asked, with ``lead`` floats
    more than needed between rows of the memory they view."""
    rng = rng_for("blas shares", m, k, n, transpose_a, transpose_b, lead)

    def matrix(rows, columns, transposed):
        shape = (columns, rows) if transposed else (rows, columns)
        memory = rng.standard_normal((shape[0], shape[1] + lead)).astype(F32)[:, :shape[1]]
        return memory.T if transposed else memory
    return matrix(m, k, transpose_a), matrix(k, n, transpose_b)


def expected(a, b, alpha=1.0, before=None):
    product = alpha * (a.astype(np.float64) @ b.astype(np.float64))
    return product if before is None else before + product


def check(out, want, k):
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5 * max(k, 1) ** 0.5 * 4)


# m x k x n: shares of columns (n >= m) and of rows (m > n), a column share ending
# inside a vector (n = 100), each big enough to run on every thread
SHARED = [(96, 128, 200), (300, 96, 100), (64, 3136 // 4, 1024 // 4), (257, 65, 33)]


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("parallel", [True, False])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("m,k,n", SHARED)
def test_every_layout_and_share_against_numpy(m, k, n, transpose_a, transpose_b, parallel,
                                              accumulate):
    a, b = operands(m, k, n, transpose_a, transpose_b, lead=3)
    before = rng_for("before", m, n).standard_normal((m, n)).astype(F32)
    out = before.copy()
    assert blas_shares.gemm_into(a, b, out, alpha=-0.25, accumulate=accumulate,
                                 parallel=parallel)
    check(out, expected(a, b, -0.25, before if accumulate else None), k)


@pytest.mark.parametrize("m,k,n", [(1, 40, 50), (50, 40, 1), (40, 1, 50), (5, 7, 9)])
def test_narrow_products(monkeypatch, m, k, n):
    """A side under NARROW: register_gemm's kernels where they run, else one BLAS call."""
    for forced in (True, False):
        monkeypatch.setattr(register_gemm, "FORCE", forced)
        a, b = operands(m, k, n, False, True)
        out = np.empty((m, n), F32)
        assert blas_shares.gemm_into(a, b, out)
        check(out, expected(a, b), k)


def test_memory_around_c_is_left_alone():
    a, b = operands(70, 50, 90, True, False)
    frame = np.full((74, 100), 7.0, F32)
    out = frame[2:72, 5:95]
    assert blas_shares.gemm_into(a, b, out)
    check(out, expected(a, b), 50)
    frame[2:72, 5:95] = 7.0
    assert (frame == 7.0).all()


@pytest.mark.parametrize("accumulate", [False, True])
def test_empty_products(accumulate):
    out = np.full((40, 50), 3.0, F32)
    assert blas_shares.gemm_into(np.ones((40, 0), F32), np.ones((0, 50), F32), out,
                                 accumulate=accumulate)
    assert (out == (3.0 if accumulate else 0.0)).all()
    assert blas_shares.gemm_into(np.ones((0, 8), F32), np.ones((8, 50), F32),
                                 np.empty((0, 50), F32))


def _read_only(array):
    array.flags.writeable = False
    return array


@pytest.mark.parametrize("why,make", [
    ("float64", lambda a, b, out: (a.astype(np.float64), b.astype(np.float64),
                                   out.astype(np.float64))),
    ("batched", lambda a, b, out: (a[None], b[None], out[None])),
    ("C overlaps A", lambda a, b, out: (a, b, a[:, :b.shape[1]])),
    ("read-only C", lambda a, b, out: (a, b, _read_only(out))),
    ("reversed rows", lambda a, b, out: (a[::-1], b, out)),
    ("A neither way contiguous", lambda a, b, out: (np.ones((80, 80), F32)[::2, ::2], b, out)),
    ("C's columns strided", lambda a, b, out: (a, b, np.empty((40, 80), F32)[:, ::2])),
    ("C's rows overlap", lambda a, b, out: (a, b, np.lib.stride_tricks.as_strided(
        out, (40, 40), (4, 4)))),
])
def test_what_it_turns_away(why, make):
    a, b = np.ones((40, 40), F32), np.ones((40, 40), F32)
    a, b, out = make(a, b, np.full((40, 40), 5.0, F32))
    before = np.array(out)
    assert not blas_shares.gemm_into(a, b, out), why
    np.testing.assert_array_equal(out, before)


def test_openblas_is_held_to_one_thread_while_the_shares_run(monkeypatch):
    """Else each share's call would wake OpenBLAS's own threads, which then busy-wait on
    the cores numba's threads compute on."""
    calls = []
    real_hold, real_release = blas_threads.hold, blas_threads.release
    monkeypatch.setattr(blas_threads, "hold", lambda cap: (calls.append(("hold", cap)),
                                                           real_hold(cap)))
    monkeypatch.setattr(blas_threads, "release", lambda cap: (calls.append(("release", cap)),
                                                              real_release(cap)))
    a, b = operands(128, 128, 128, False, False)
    out = np.empty((128, 128), F32)
    assert blas_shares.gemm_into(a, b, out)
    assert calls == [("hold", 1), ("release", 1)]
    assert blas_threads.held_cap() is None


# --- which engine takes plain products -----------------------------------------------------

@pytest.fixture
def choosing(monkeypatch):
    """plain_products chosen afresh, on a CPU named as each test says."""
    monkeypatch.setattr(register_gemm, "FORCE", True)
    monkeypatch.setattr(register_gemm, "_ENABLED", True)
    monkeypatch.delenv("DEVSESSION_PRODUCTS", raising=False)
    blas._chosen_engine.cache_clear()
    yield lambda name: monkeypatch.setattr(register_gemm, "host_cpu_name", lambda: name)
    blas._chosen_engine.cache_clear()


@pytest.mark.parametrize("cpu,setting,engine", [
    ("znver4", None, "register_gemm"), ("sapphirerapids", None, "blas_shares"),
    ("znver4", "blas", "blas_shares"), ("sapphirerapids", "register", "register_gemm"),
])
def test_the_engine_for_each_cpu_and_setting(monkeypatch, choosing, cpu, setting, engine):
    choosing(cpu)
    if setting:
        monkeypatch.setenv("DEVSESSION_PRODUCTS", setting)
    assert blas.plain_products().__name__.rsplit(".", 1)[1] == engine


def test_an_unknown_setting_is_logged_and_auto_used(monkeypatch, choosing, caplog):
    choosing("sapphirerapids")
    monkeypatch.setenv("DEVSESSION_PRODUCTS", "fastest")
    with caplog.at_level(logging.WARNING, logger="devsession"):
        assert blas.plain_products() is blas_shares
    assert "DEVSESSION_PRODUCTS='fastest'" in caplog.text


def test_without_register_gemm_products_go_to_blas_threaded_by_itself(monkeypatch, choosing):
    choosing("sapphirerapids")
    monkeypatch.setattr(register_gemm, "_ENABLED", False)
    assert blas.plain_products() is None


def test_matmul_and_the_sgd_fold_go_through_the_chosen_engine(monkeypatch, choosing):
    choosing("sapphirerapids")
    seen = []
    real = blas_shares.gemm_into
    monkeypatch.setattr(blas_shares, "gemm_into", lambda a, b, out, **options: (
        seen.append(options), real(a, b, out, **options))[1])
    a, b = operands(100, 120, 90, False, True)
    out = np.empty((100, 90), F32)
    blas.matmul_into(a, b, out)
    check(out, expected(a, b), 120)
    var = rng_for("fold var").standard_normal((100, 90)).astype(F32)
    want = var - 0.1 * expected(a, b)
    sgemm.sgemm_update(var, 0.1, np.ascontiguousarray(a.T), True, b, False)
    check(var, want, 120)
    assert seen == [{"parallel": True}, {"alpha": pytest.approx(-0.1), "accumulate": True,
                                         "parallel": True}]
