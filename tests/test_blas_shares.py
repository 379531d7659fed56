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
from kernel_cases import PRODUCTS_TURNED_AWAY, rng_for

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


@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("m,k,n", [(1, 40, 50), (50, 40, 1), (40, 1, 50), (5, 7, 9)])
def test_narrow_products(monkeypatch, m, k, n, transpose_a, transpose_b):
    """A side under NARROW: register_gemm's kernels where they run, else one BLAS call
    (vectors with strides, a transposed operand of one row)."""
    a, b = operands(m, k, n, transpose_a, transpose_b, lead=5)
    for register in (True, False):
        monkeypatch.setattr(register_gemm, "FORCE", True)
        monkeypatch.setattr(register_gemm, "_ENABLED", register)
        out = np.full((m, n), 2.0, F32)
        assert blas_shares.gemm_into(a, b, out, alpha=0.5, accumulate=True)
        check(out, expected(a, b, 0.5, np.full((m, n), 2.0)), k)


@pytest.mark.parametrize("tasks", [3, 5, 7])
@pytest.mark.parametrize("by_columns", [True, False])
@pytest.mark.parametrize("transpose_a,transpose_b", [(False, False), (True, True)])
def test_any_number_of_shares(tasks, by_columns, transpose_a, transpose_b):
    """The share loop itself, whatever the machine's thread count: shares that end
    inside a vector or hold nothing, C's rows further apart than its width."""
    m, k, n = 37, 29, 45
    a, b = operands(m, k, n, transpose_a, transpose_b, lead=2)
    frame = np.full((m, n + 11), 7.0, F32)
    out = frame[:, 3:3 + n]
    (trans_a, lda), (trans_b, ldb) = blas_shares._layout(a), blas_shares._layout(b)
    address, wide = blas_shares._cblas()
    blas_threads.hold(1)
    try:
        blas_shares._shares(address, wide, trans_a, trans_b, m, n, k, F32(1.5), a.ctypes.data,
                            lda, b.ctypes.data, ldb, F32(0.0), out.ctypes.data, n + 11, tasks,
                            by_columns)
    finally:
        blas_threads.release(1)
    check(out, expected(a, b, 1.5), k)
    frame[:, 3:3 + n] = 7.0
    assert (frame == 7.0).all()


@pytest.mark.parametrize("m,transpose_a,parallel,tiles", [
    (blas_shares.TALL, False, True, True),    # the MLP's batch: the tiles beat OpenBLAS
    (blas_shares.TALL - 1, False, True, False),  # fewer rows: OpenBLAS beats them
    (blas_shares.TALL, True, True, False),    # a weight gradient's x.T: OpenBLAS packs it
    (blas_shares.TALL, False, False, False),  # one thread (a cluster's tower): OpenBLAS
])
def test_which_engine_multiplies_a_wide_product(monkeypatch, m, transpose_a, parallel, tiles):
    monkeypatch.setattr(register_gemm, "FORCE", True)
    taken = []
    real = register_gemm.gemm_into
    monkeypatch.setattr(register_gemm, "gemm_into",
                        lambda *a, **kw: taken.append(True) or real(*a, **kw))
    a, b = operands(m, 96, 80, transpose_a, False)
    out = np.empty((m, 80), F32)
    assert blas_shares.gemm_into(a, b, out, parallel=parallel)
    assert bool(taken) == tiles
    check(out, expected(a, b), 96)


@pytest.mark.parametrize("m,k,n,tiles", [
    (32, 8 * 64, 64, True),         # a 1x1 convolution's filter gradient: the tiles
    (64, 8 * 64 - 1, 64, False),    # k too short for its C
    (128, 8 * 128, 128, True),      # the largest C they take
    (128, 8 * 129, 129, False),     # a bigger C: OpenBLAS
])
def test_a_small_c_over_a_long_k_goes_to_the_tiles(monkeypatch, m, k, n, tiles):
    """``x.T @ dy`` over every pixel of a batch: OpenBLAS's shares split C, each reading
    all of the long operand, where the tiles share out k (2-2.5x faster measured)."""
    monkeypatch.setattr(register_gemm, "FORCE", True)
    taken = []
    real = register_gemm.gemm_into
    monkeypatch.setattr(register_gemm, "gemm_into",
                        lambda *a, **kw: taken.append(True) or real(*a, **kw))
    a, b = operands(m, k, n, True, False)
    out = np.empty((m, n), F32)
    assert blas_shares.gemm_into(a, b, out, parallel=True)
    assert bool(taken) == tiles
    check(out, expected(a, b), k)


def test_a_b_packed_already_goes_to_the_tiles(monkeypatch):
    """A constant B packed once (a frozen model's weights) spares the tiles' packing, so
    they take even the products OpenBLAS wins otherwise (a few rows, one thread)."""
    monkeypatch.setattr(register_gemm, "FORCE", True)
    taken = []
    real = register_gemm.gemm_into
    monkeypatch.setattr(register_gemm, "gemm_into",
                        lambda *a, **kw: taken.append(kw["packed_b"]) or real(*a, **kw))
    a, b = operands(64, 300, 700, True, False)
    packed, of_another = register_gemm.pack_b(b), register_gemm.pack_b(b + 1)
    for given in (None, packed, of_another):
        out = np.empty((64, 700), F32)
        assert blas_shares.gemm_into(a, b, out, parallel=False, packed_b=given)
        check(out, expected(a, b), 300)
    assert taken == [packed] and packed is not None


def test_a_product_on_the_calling_thread_starts_no_parallel_loop(monkeypatch):
    """``parallel=False`` (other products running): one call here, no OpenMP team to
    wake (numba's workqueue layer aborts on concurrent parallel loops)."""
    monkeypatch.setattr(blas_shares, "_shares", lambda *a: pytest.fail("parallel loop"))
    a, b = operands(128, 128, 128, True, False)
    out = np.empty((128, 128), F32)
    assert blas_shares.gemm_into(a, b, out, parallel=False)
    check(out, expected(a, b), 128)


def test_products_from_several_python_threads_at_once():
    import threading

    a, b = operands(96, 80, 112, False, True)
    want = expected(a, b)
    failures = []

    def work(parallel):
        out = np.empty((96, 112), F32)
        for _ in range(30):
            assert blas_shares.gemm_into(a, b, out, parallel=parallel)
            try:
                check(out, want, 80)
            except AssertionError as e:
                failures.append(e)
    threads = [threading.Thread(target=work, args=(p,)) for p in (True, False, False)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert blas_threads.held_cap() is None


def test_an_operand_blas_cannot_read_goes_to_register_gemm(monkeypatch):
    """An A with no unit stride: register_gemm reads any strides; without it, False and
    the caller's BLAS call (never OpenBLAS's threads behind numba's back)."""
    a = rng_for("strided").standard_normal((80, 80)).astype(F32)[::2, ::2]
    b = rng_for("strided b").standard_normal((40, 50)).astype(F32)
    monkeypatch.setattr(register_gemm, "FORCE", True)
    out = np.full((40, 50), 5.0, F32)
    assert blas_shares.gemm_into(a, b, out) == register_gemm.usable()
    if register_gemm.usable():
        check(out, expected(a, b), 40)
    monkeypatch.setattr(register_gemm, "_ENABLED", False)
    out = np.full((40, 50), 5.0, F32)
    assert not blas_shares.gemm_into(a, b, out)
    assert (out == 5.0).all()


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


@pytest.mark.parametrize("why,make", PRODUCTS_TURNED_AWAY + [
    ("C's columns strided", lambda a, b, out: (a, b, np.empty((40, 80), F32)[:, ::2])),
])
def test_what_it_turns_away(monkeypatch, why, make):
    """What neither BLAS nor register_gemm (which takes BLAS's refusals) takes."""
    monkeypatch.setattr(register_gemm, "FORCE", True)
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
    a, b = operands(128, 128, 128, True, False)    # OpenBLAS's: x.T
    out = np.empty((128, 128), F32)
    assert blas_shares.gemm_into(a, b, out)
    assert calls == [("hold", 1), ("release", 1)]
    assert blas_threads.held_cap() is None


def test_the_hold_is_released_when_a_share_fails(monkeypatch):
    def broken(*arguments):
        raise RuntimeError("a share failed")
    monkeypatch.setattr(blas_shares, "_shares", broken)
    a, b = operands(128, 128, 128, True, False)    # OpenBLAS's: x.T
    with pytest.raises(RuntimeError, match="a share failed"):
        blas_shares.gemm_into(a, b, np.empty((128, 128), F32))
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
    assert seen == [{"parallel": True, "bias": None, "relu": False, "packed_b": None, "gate": None},
                    {"alpha": pytest.approx(-0.1), "accumulate": True, "parallel": True}]
