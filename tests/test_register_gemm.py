"""The register-blocked float32 products (``kernels/cpu/register_gemm.py``): every path
(B read in place, packed panel by panel, packed transposed, transposed whole, sums along
k) against numpy in float64, the edges of C left alone, what they turn away, and which
products ``blas.matmul_into`` and the SGD fold hand them.

``FORCE`` runs the kernels on any CPU: their IR is portable, only slower without AVX-512.
"""

from __future__ import annotations

import numpy as np
import pytest

from devsession.kernels.cpu import blas, gemm_ir, register_gemm, sgemm
from kernel_cases import PRODUCTS_TURNED_AWAY, rng_for

F32 = np.float32


@pytest.fixture(autouse=True)
def forced(monkeypatch):
    monkeypatch.setattr(register_gemm, "FORCE", True)
    monkeypatch.setattr(register_gemm, "_ENABLED", True)


def operands(m, k, n, transpose_a, transpose_b, key=()):
    """a (m, k) and b (k, n), each a transposed view of row-major memory when asked."""
    rng = rng_for("register gemm", m, k, n, transpose_a, transpose_b, *key)
    a = rng.standard_normal((k, m) if transpose_a else (m, k)).astype(F32)
    b = rng.standard_normal((n, k) if transpose_b else (k, n)).astype(F32)
    return (a.T if transpose_a else a), (b.T if transpose_b else b)


def expected(a, b, alpha=1.0, before=None):
    product = alpha * (a.astype(np.float64) @ b.astype(np.float64))
    return product if before is None else before + product


def check(out, want, k):
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5 * max(k, 1) ** 0.5 * 4)


SMALL = [(m, k, n) for m in (1, 5, 6, 7, 13) for k in (1, 2, 17) for n in (1, 15, 16, 17, 64, 65)]


@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("m,k,n", SMALL)
def test_small_products_with_every_tail(m, k, n, transpose_a, transpose_b):
    """Row blocks of 1-6 rows, panels of 1-4 vectors with the last one masked."""
    a, b = operands(m, k, n, transpose_a, transpose_b)
    out = np.full((m, n), np.nan, F32)                  # overwritten, never read
    assert register_gemm.gemm_into(a, b, out, parallel=False)
    check(out, expected(a, b), k)


# (m, k, n): which path each takes (``B_CACHED_BYTES``, ``DOT_MIN_K``, ``DOT_MAX_M``, ``KC``)
PATHS = {
    "B in place, rows first": (70, 300, 100),
    "B in place, narrow C in tiles of 12 rows": (100, 300, 20),
    "B packed by panels": (40, 300, 700),
    "passes over k": (30, 2 * register_gemm.KC + 37, 48),
    "B packed by panels, passes over k": (20, register_gemm.KC + 5, 300),
}
TRANSPOSED_PATHS = {
    "B.T transposed whole": (70, 40, 100),
    "B.T packed, transposed, by panels": (200, 300, 700),
    "sums along k": (50, 300, 70),
    "sums along k, passes over k": (9, register_gemm.KC + 100, 33),
}


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("case", [*PATHS, *TRANSPOSED_PATHS])
def test_every_path_against_numpy(monkeypatch, case, transpose_a, parallel, accumulate):
    monkeypatch.setattr(register_gemm, "PARALLEL_MACS", 0)    # parallel means parallel
    m, k, n = PATHS.get(case) or TRANSPOSED_PATHS[case]
    a, b = operands(m, k, n, transpose_a, case in TRANSPOSED_PATHS)
    before = rng_for("before", case).standard_normal((m, n)).astype(F32)
    out = before.copy()
    assert register_gemm.gemm_into(a, b, out, alpha=-0.25, accumulate=accumulate,
                                   parallel=parallel)
    check(out, expected(a, b, -0.25, before if accumulate else None), k)


def test_the_paths_are_the_ones_named(monkeypatch):
    """The cases above reach the drivers their names say (a guard on the constants)."""
    calls = []
    for name in ("_drive_serial", "_dot_serial"):
        real = getattr(register_gemm, name)
        monkeypatch.setattr(register_gemm, name,
                            lambda *args, _real=real, _name=name: (calls.append((_name, args)),
                                                                   _real(*args)))
    for case, (m, k, n) in {**PATHS, **TRANSPOSED_PATHS}.items():
        calls.clear()
        a, b = operands(m, k, n, False, case in TRANSPOSED_PATHS)
        assert register_gemm.gemm_into(a, b, np.empty((m, n), F32), parallel=False)
        (name, args), = calls
        packed, transpose = (args[-6], args[-4]) if name == "_drive_serial" else (None, None)
        if case.startswith("sums along k"):
            assert name == "_dot_serial", case
        elif "by panels" in case:
            assert packed != 0 and (transpose != 0) == case.startswith("B.T"), case
        else:
            assert name == "_drive_serial" and packed == 0 and transpose == 0, case
        assert ("passes over k" in case) == (k > register_gemm.KC), case
        assert ("tiles of 12 rows" in case) == (register_gemm._block_rows(n) == 12), case


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("case", [*PATHS, *TRANSPOSED_PATHS])
def test_memory_around_c_is_left_alone(case, bias):
    """C inside a bigger array: the columns right of it and the rows below it keep their
    values (the last vector of a row is masked, not written whole), bias and all."""
    m, k, n = PATHS.get(case) or TRANSPOSED_PATHS[case]
    a, b = operands(m, k, n, False, case in TRANSPOSED_PATHS)
    memory = np.full((m + 3, n + 21), 7.0, F32)
    out = memory[:m, :n]
    along = np.linspace(-1, 1, n, dtype=F32) if bias else None
    assert register_gemm.gemm_into(a, b, out, parallel=False, bias=along, relu=bias)
    want = expected(a, b) + (along if bias else 0)
    check(out, np.maximum(want, 0) if bias else want, k)
    assert (memory[m:] == 7).all() and (memory[:, n:] == 7).all()


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("case", [*PATHS, *TRANSPOSED_PATHS])
def test_a_bias_and_relu_on_every_path_give_the_bits_of_the_ops_apart(monkeypatch, case,
                                                                     parallel, relu):
    """``_MatMulBias``: added to each tile after it is stored (B read in rows), or after
    the product (sums along k): the same float32 additions and clipping as the product,
    ``+ bias`` and ``Relu`` apart, so the same bits; NaN stays NaN."""
    monkeypatch.setattr(register_gemm, "PARALLEL_MACS", 0)
    m, k, n = PATHS.get(case) or TRANSPOSED_PATHS[case]
    a, b = operands(m, k, n, False, case in TRANSPOSED_PATHS)
    a = a.copy()
    a[1, 0] = np.nan                                   # row 1 of C: NaN throughout
    bias = rng_for("bias", case).standard_normal(n).astype(F32)
    out = np.full((m, n), 7.0, F32)
    assert register_gemm.gemm_into(a, b, out, parallel=parallel, bias=bias, relu=relu)
    apart = np.empty((m, n), F32)
    assert register_gemm.gemm_into(a, b, apart, parallel=parallel)
    apart += bias
    if relu:
        apart[apart < 0] = 0
    np.testing.assert_array_equal(out, apart)
    assert np.isnan(out[1]).all() and not np.isnan(np.delete(out, 1, axis=0)).any()
    assert (out < 0).any() != relu


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("case", [*PATHS, *TRANSPOSED_PATHS])
def test_a_transposed_a_is_packed_by_row_blocks_with_the_same_bits(monkeypatch, case,
                                                                   parallel):
    """A weight gradient's ``x.T`` is copied into row blocks before the tiles read it
    (``packs_a``), where C has more than one panel: the same sums in the same order as
    read in place."""
    monkeypatch.setattr(register_gemm, "PARALLEL_MACS", 0)
    m, k, n = PATHS.get(case) or TRANSPOSED_PATHS[case]
    a, b = operands(m, k, n, True, case in TRANSPOSED_PATHS)
    packed_a = []
    name = "_drive_parallel" if parallel else "_drive_serial"
    real = getattr(register_gemm, name)
    monkeypatch.setattr(register_gemm, name, lambda *args: (packed_a.append(args[4]),
                                                            real(*args)))
    packed, in_place = np.full((m, n), 7.0, F32), np.full((m, n), 7.0, F32)
    assert register_gemm.gemm_into(a, b, packed, parallel=parallel, alpha=0.5)
    monkeypatch.setattr(register_gemm, "packs_a", lambda a, n: False)
    assert register_gemm.gemm_into(a, b, in_place, parallel=parallel, alpha=0.5)
    np.testing.assert_array_equal(packed, in_place)
    check(packed, expected(a, b, 0.5), k)
    assert (packed_a[0] != 0) == (n > register_gemm.PANEL) and packed_a[1] == 0


PACKED_PATHS = [case for case in [*PATHS, *TRANSPOSED_PATHS] if "by panels" in case]


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("case", PACKED_PATHS)
def test_a_b_packed_once_gives_the_bits_of_packing_as_it_goes(monkeypatch, case, parallel,
                                                                relu):
    """``pack_b``: every panel of every pass over k laid out where the driver reads it
    (a frozen model's weights), the same sums in the same order."""
    monkeypatch.setattr(register_gemm, "PARALLEL_MACS", 0)
    m, k, n = PATHS.get(case) or TRANSPOSED_PATHS[case]
    a, b = operands(m, k, n, False, case in TRANSPOSED_PATHS)
    bias = rng_for("bias", case).standard_normal(n).astype(F32)
    packed = register_gemm.pack_b(b)
    assert packed is not None and packed.holds(b)
    once, as_it_goes = np.full((m, n), 7.0, F32), np.full((m, n), 7.0, F32)
    assert register_gemm.gemm_into(a, b, once, parallel=parallel, bias=bias, relu=relu,
                                   packed_b=packed)
    assert register_gemm.gemm_into(a, b, as_it_goes, parallel=parallel, bias=bias, relu=relu)
    np.testing.assert_array_equal(once, as_it_goes)
    want = expected(a, b) + bias
    check(once, np.maximum(want, 0) if relu else want, k)


def test_a_packed_b_serves_only_the_b_it_was_packed_from(monkeypatch):
    """Another B of the same shape (other memory, or the same memory read transposed)
    is packed as it goes; a short transposed B, summed along k unpacked, takes the tiles
    once packed; a B read in place is never packed."""
    calls = []
    real = register_gemm._drive_serial
    monkeypatch.setattr(register_gemm, "_drive_serial",
                        lambda *args: (calls.append(args[-5]), real(*args)))
    m, k, n = PATHS["B packed by panels, passes over k"]
    a, b = operands(m, k, n, False, False)
    packed = register_gemm.pack_b(b)
    other = b + 1
    out = np.empty((m, n), F32)
    assert register_gemm.gemm_into(a, other, out, parallel=False, packed_b=packed)
    check(out, expected(a, other), k)
    assert calls == [0]
    square = operands(k, k, k, False, False)[1]
    assert not register_gemm.pack_b(square).holds(square.T)

    m, k, n = 20, 300, 700                              # sums along k, unpacked
    assert m <= register_gemm.DOT_MAX_M and k >= register_gemm.DOT_MIN_K
    a, bt = operands(m, k, n, False, True)
    out = np.empty((m, n), F32)
    assert register_gemm.gemm_into(a, bt, out, parallel=False,
                                   packed_b=register_gemm.pack_b(bt))
    check(out, expected(a, bt), k)
    assert calls == [0, 1]
    assert register_gemm.pack_b(operands(*PATHS["B in place, rows first"], False, False)[1]) \
        is None


def relu_output(m, n, key, strided=False):
    """A ReLU's output as a gate: zeros, positives, and the values a gate must still
    close on (negatives, -0.0, NaN); inside a bigger array when ``strided``."""
    y = rng_for("gate", m, n, *key).standard_normal((m, n)).astype(F32)
    y[y < -0.5] = 0
    y.flat[::7] = -0.0
    y.flat[3::11] = np.nan
    if not strided:
        return y
    memory = np.full((m + 2, n + 5), 1.0, F32)
    memory[1:m + 1, 2:n + 2] = y
    return memory[1:m + 1, 2:n + 2]


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("case", [*PATHS, *TRANSPOSED_PATHS])
def test_a_relu_gate_on_every_path_gives_the_bits_of_the_ops_apart(monkeypatch, case,
                                                                  parallel, strided):
    """``_MatMulReluGrad``: ``C * (y > 0)`` on each tile after it is stored (B read in
    rows), or after the product (sums along k): the same float32 multiplications as
    ``dy * cast(y > 0)`` apart, so the same bits; an infinite product closed by the
    gate stays NaN, as 0 * inf is."""
    monkeypatch.setattr(register_gemm, "PARALLEL_MACS", 0)
    m, k, n = PATHS.get(case) or TRANSPOSED_PATHS[case]
    a, b = operands(m, k, n, False, case in TRANSPOSED_PATHS)
    a = a.copy()
    a[2, 0] = np.inf                                   # row 2 of C: +-inf throughout
    y = relu_output(m, n, (case,), strided)
    out = np.full((m, n), 7.0, F32)
    assert register_gemm.gemm_into(a, b, out, parallel=parallel, gate=y)
    apart = np.empty((m, n), F32)
    assert register_gemm.gemm_into(a, b, apart, parallel=parallel)
    with np.errstate(invalid="ignore"):                 # 0 * inf
        apart = apart * (y > 0).astype(F32)
    np.testing.assert_array_equal(out, apart)
    assert np.isnan(out[2][~(y[2] > 0)]).all() and (out[3][~(y[3] > 0)] == 0).all()


def test_a_gate_after_the_product_gives_the_same_bits():
    """``finish_product``: the gate where the tiles could not apply it (another engine's
    product), on these kernels and on numpy's arithmetic alike."""
    a, b = operands(30, 50, 90, False, False)
    y = relu_output(30, 90, ("after",))
    product = (a @ b).astype(F32)
    want = product * (y > 0).astype(F32)
    out = product.copy()
    register_gemm.finish_product(out, gate=y)
    np.testing.assert_array_equal(out, want)
    wide = product.astype(np.float64)
    register_gemm.finish_product(wide, gate=y.astype(np.float64))
    np.testing.assert_array_equal(wide, product.astype(np.float64) * (y > 0))


def test_a_gate_must_have_the_products_shape_and_no_bias_beside_it():
    a, b = operands(8, 16, 40, False, False)
    out = np.zeros((8, 40), F32)
    for gate in (np.ones((8, 41), F32), np.ones((40,), F32), np.ones((1, 40), F32)):
        with pytest.raises(ValueError, match="must have the product's shape"):
            register_gemm.gemm_into(a, b, out, gate=gate)
        with pytest.raises(ValueError, match="must have the product's shape"):
            register_gemm.finish_product(out, gate=gate)
    with pytest.raises(ValueError, match="a bias or a gate, not both"):
        register_gemm.gemm_into(a, b, out, bias=np.ones(40, F32), gate=np.ones((8, 40), F32))
    assert not register_gemm.gemm_into(a, b, out, gate=np.ones((8, 40)))   # float64: BLAS's
    assert not out.any()                       # nothing written before the checks


def test_a_bias_must_have_one_value_per_column():
    a, b = operands(8, 16, 40, False, False)
    out = np.zeros((8, 40), F32)
    for bias in (np.ones(1, F32), np.ones(41, F32), np.ones((1, 40), F32)):
        with pytest.raises(ValueError, match=r"must have shape \(40,\)"):
            register_gemm.gemm_into(a, b, out, bias=bias)
        with pytest.raises(ValueError, match=r"must have shape \(40,\)"):
            register_gemm.finish_product(out, bias, relu=False)
    assert not out.any()                       # nothing written before the check


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("m,n,k,runs", [(1, 1, 1, 1), (7, 17, 3, 4), (6, 64, 5, 5),
                                        (13, 70, 9, 2), (5, 130, 1, 7), (4, 16, 2, 0),
                                        (23, 32, 5, 3), (12, 9, 4, 2)])
def test_products_summed_over_runs_of_k(m, n, k, runs, accumulate):
    """``multiply_runs``: A_j and B_j start a fixed step after A_{j-1} and B_{j-1}, here
    with strided rows and columns and runs that overlap in memory, as a convolution's."""
    rng = rng_for("runs", m, n, k, runs)
    rsa, csa, a_outer, ldb, b_outer, ldc = 3, 2, 5, n + 3, 2 * n + 1, n + 2
    a_mem = rng.standard_normal((m - 1) * rsa + (k - 1) * csa + max(runs - 1, 0) * a_outer + 1)
    b_mem = rng.standard_normal((k - 1) * ldb + n + max(runs - 1, 0) * b_outer)
    a_mem, b_mem = a_mem.astype(F32), b_mem.astype(F32)
    want = np.zeros((m, n))
    for j in range(runs):
        a = np.lib.stride_tricks.as_strided(a_mem[j * a_outer:], (m, k), (4 * rsa, 4 * csa))
        b = np.lib.stride_tricks.as_strided(b_mem[j * b_outer:], (k, n), (4 * ldb, 4))
        want += expected(a, b)
    c_mem = rng.standard_normal((m + 1) * ldc).astype(F32)        # a row of C beyond m
    before = c_mem.copy()
    c = c_mem[:m * ldc].reshape(m, ldc)[:, :n]
    want = 0.5 * want + (c.astype(np.float64) if accumulate else 0)
    register_gemm.multiply_runs(register_gemm.tiles_address(), a_mem.ctypes.data, rsa, csa,
                                a_outer, b_mem.ctypes.data, ldb, b_outer, c_mem.ctypes.data,
                                ldc, m, n, k, runs, np.float32(0.5), int(accumulate))
    check(c, want, k * max(runs, 1))
    outside = np.ones(c_mem.shape, bool)
    outside[:m * ldc].reshape(m, ldc)[:, :n] = False
    np.testing.assert_array_equal(c_mem[outside], before[outside])


@pytest.mark.parametrize("accumulate", [False, True])
def test_an_empty_sum_adds_nothing(accumulate):
    """k == 0: C becomes zeros, or keeps its values when the product is added to it."""
    a, b = np.ones((5, 0), F32), np.ones((0, 20), F32)
    out = np.full((5, 20), 3.0, F32)
    assert register_gemm.gemm_into(a, b, out, accumulate=accumulate, parallel=False)
    np.testing.assert_array_equal(out, 3.0 if accumulate else 0.0)


@pytest.mark.parametrize("why,make", PRODUCTS_TURNED_AWAY + [
    ("B neither way contiguous", lambda a, b, out: (a[:, :8], np.ones((16, 40), F32)[::2, ::2],
                                                     out)),
    ("B one strided row", lambda a, b, out: (a[:, :1], np.arange(40, dtype=F32)[None, ::2],
                                              out)),
])
def test_what_it_turns_away_is_left_to_blas(why, make):
    a, b = np.ones((20, 8), F32), np.ones((8, 20), F32)
    a, b, out = make(a, b, np.full((20, 20), 5.0, F32))
    before = out.copy()
    assert not register_gemm.gemm_into(a, b, out), why
    np.testing.assert_array_equal(out, before)


def test_disabled_it_takes_nothing(monkeypatch):
    monkeypatch.setattr(register_gemm, "_ENABLED", False)
    out = np.zeros((20, 20), F32)
    assert not register_gemm.gemm_into(np.ones((20, 8), F32), np.ones((8, 20), F32), out)
    assert (out == 0).all()


# --- who hands it products ------------------------------------------------------------------

def spied(monkeypatch) -> list:
    """The options of each product handed to these kernels, chosen for plain products
    whatever this CPU's choice (tests/test_blas_shares.py tests the choice)."""
    monkeypatch.setattr(blas, "_chosen_engine", lambda: register_gemm)
    seen = []
    real = register_gemm.gemm_into

    def spy(a, b, out, **options):
        seen.append(options)
        return real(a, b, out, **options)
    monkeypatch.setattr(register_gemm, "gemm_into", spy)
    return seen


def test_matmul_into_hands_it_float32_products_parallel_when_alone(monkeypatch):
    seen = spied(monkeypatch)
    a, b = operands(100, 120, 90, False, True)
    out = np.empty((100, 90), F32)
    blas.matmul_into(a, b, out)
    check(out, expected(a, b), 120)
    with blas._ACTIVE_LOCK:
        blas._ACTIVE[0] += 1                          # another product in flight
    try:
        blas.matmul_into(a, b, out)
    finally:
        with blas._ACTIVE_LOCK:
            blas._ACTIVE[0] -= 1
    check(out, expected(a, b), 120)
    blas.matmul_into(a.astype(np.float64), b.astype(np.float64), np.empty((100, 90)))
    blas.matmul_into(np.ones((4, 4), F32), np.ones((4, 4), F32), np.empty((4, 4), F32))
    plain = dict(bias=None, relu=False, packed_b=None, gate=None)
    assert seen == [dict(parallel=True, **plain), dict(parallel=False, **plain)]  # no f64, tiny


def test_the_sgd_fold_accumulates_through_it(monkeypatch):
    """``var -= lr * op(a) @ op(b)`` with the transposes a weight gradient has."""
    seen = spied(monkeypatch)
    x, dy = operands(64, 48, 80, False, False, key=("fold",))   # x (64, 48), dy (48, 80)
    var = rng_for("fold var").standard_normal((64, 80)).astype(F32)
    want = var - 0.1 * (x.astype(np.float64) @ dy)
    sgemm.sgemm_update(var, 0.1, np.ascontiguousarray(x.T), True, dy, False)
    check(var, want, 48)
    assert seen and seen[0]["accumulate"] and seen[0]["alpha"] == pytest.approx(-0.1)


def test_compiled_code_is_reused_and_a_damaged_file_compiled_again(monkeypatch, tmp_path):
    monkeypatch.setenv("DEVSESSION_CACHE_DIR", str(tmp_path))
    written = []
    real_write = register_gemm._write
    monkeypatch.setattr(register_gemm, "_write", lambda *args: (written.append(args[0]),
                                                                  real_write(*args)))
    built = []                  # the IR is built only when the code is compiled
    real_module = gemm_ir.module
    monkeypatch.setattr(gemm_ir, "module", lambda *args: (built.append(args),
                                                           real_module(*args))[1])
    a, b = operands(30, 50, 40, False, True)

    def product_with_fresh_kernels():
        engine, *addresses = register_gemm._compile()
        monkeypatch.setattr(register_gemm, "_compiled", [(engine, *addresses)])
        out = np.empty((30, 40), F32)
        assert register_gemm.gemm_into(a, b, out, parallel=False)
        check(out, expected(a, b), 50)

    product_with_fresh_kernels()
    assert len(written) == len(built) == 1 and written[0].exists()   # compiled, stored
    product_with_fresh_kernels()
    assert len(written) == len(built) == 1                  # loaded
    stored = written[0].read_bytes()
    written[0].write_bytes(stored[:100] + bytes([stored[100] ^ 0xFF]) + stored[101:])
    product_with_fresh_kernels()
    assert len(written) == len(built) == 2                  # damaged: compiled again
    assert written[1].read_bytes() == stored


def test_the_products_benchmark_prints_a_row_per_shape(monkeypatch, capsys):
    """``python -m devsession.benchmarks.products`` on two small shapes (no timing
    asserted: it must run, and print each shape with every engine's rate and ratio)."""
    from devsession.benchmarks import products

    monkeypatch.setattr(products, "SHAPES", [("plain", 20, 30, 40, False),
                                             ("transposed", 20, 30, 40, True)])
    monkeypatch.setattr(products.time, "sleep", lambda _: None)
    assert products.main() == 0
    from devsession.kernels.cpu import blas_shares

    rows = capsys.readouterr().out.splitlines()[2:]
    engines = 2 if blas_shares.usable() else 1
    assert [r.split()[0] for r in rows] == ["plain", "transposed"]
    assert all(r.count("GF/s") == engines + 1 and r.count("x") >= engines + 2 for r in rows)


def test_the_mlp_step_floor_times_the_steps_five_products(capsys):
    """``mlp_step_floor``'s products are the step's (2.43 GFLOP at full size: the forward
    784x1024 and 1024x1024 layers, their two weight gradients, one input gradient); a
    small run prints its time (not asserted)."""
    from devsession.benchmarks import products

    shapes = [(a.shape, b.shape, out.shape) for a, b, out in products.mlp_step_products()]
    assert shapes == [((256, 784), (784, 1024), (256, 1024)),
                      ((256, 1024), (1024, 1024), (256, 1024)),
                      ((1024, 256), (256, 1024), (1024, 1024)),
                      ((256, 1024), (1024, 1024), (256, 1024)),
                      ((784, 256), (256, 1024), (784, 1024))]
    assert products.mlp_step_floor(batch=4, sizes=(6, 5, 5)) > 0
    assert "ms, 0.00 GFLOP" in capsys.readouterr().out


def test_kernels_that_fail_to_compile_leave_every_product_to_blas(monkeypatch, caplog):
    def broken():
        raise AttributeError("no create_pass_builder in this llvmlite")
    monkeypatch.setattr(register_gemm, "_compile", broken)
    monkeypatch.setattr(register_gemm, "_compiled", [])
    assert not register_gemm.usable()
    a, b = operands(40, 50, 60, False, False)
    out = np.empty((40, 60), F32)
    assert not register_gemm.gemm_into(a, b, out)
    blas.matmul_into(a, b, out)                       # BLAS's product instead
    check(out, expected(a, b), 50)
    assert "did not compile" in caplog.text and "create_pass_builder" in caplog.text
