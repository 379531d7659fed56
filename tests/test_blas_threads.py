"""``intra_op_threads`` caps BLAS (through threadpoolctl) and numba inside a session's runs,
and leaves the user's numpy alone outside them."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import devsession as ds
from devsession.kernels.registry import HOST, register_kernel
from devsession.ops.registry import OpDef, register_op
from devsession.kernels import blas_threads
from devsession.tensor_shape import TensorShape
from kernel_cases import F16, F32, I32, assert_same, make_node, rng_for, run_on
from devsession.kernels.registry import lookup_kernel


def blas_counts() -> list:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


START = blas_counts()
pytestmark = pytest.mark.skipif(not START or max(START) < 2,
                                reason="needs a BLAS with at least 2 threads to cap")

# A test-only op whose kernel notes what it sees while the run is in flight: the BLAS
# thread counts (threadpoolctl), numba's count on its thread, and the thread; it may
# also wait for an event, so tests can interleave runs of two sessions.
SEEN: list = []
GATES: dict = {}


def _probe_infer(inputs, attrs, node):
    return inputs[0].dtype, TensorShape(None)    # unknown size: "heavy" for the waves


register_op(OpDef("_TestThreadProbe", _probe_infer, 1, attr_defaults={"tag": ""}))


@register_kernel("_TestThreadProbe", HOST)
def _probe(node):
    tag = node.attrs["tag"]

    def kernel(x):
        from devsession.kernels.cpu.numba_setup import numba

        SEEN.append((tag, blas_counts(), numba.get_num_threads(), threading.get_ident()))
        before, after = GATES.get(tag, (None, None))
        if before is not None:
            before.set()
        if after is not None:
            assert after.wait(10)
        return x @ np.eye(x.shape[-1], dtype=x.dtype)
    return kernel


def probe(x, tag):
    return ds.get_default_graph().create_op("_TestThreadProbe", [x], attrs={"tag": tag},
                                            name=f"probe_{tag}").outputs[0]


@pytest.fixture(autouse=True)
def clean():
    SEEN.clear()
    GATES.clear()
    yield
    assert blas_counts() == START       # whatever ran, BLAS is as the user left it


def probe_graph(tag):
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 4), name="x")
        y = probe(x, tag)
    return g, x, y


XV = np.ones((3, 4), np.float32)


def test_intra_op_threads_caps_blas_inside_the_run_only():
    g, x, y = probe_graph("capped")
    with ds.Session(graph=g, options=ds.SessionOptions(intra_op_threads=1)) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: XV}), XV)
        assert blas_counts() == START          # between runs: the user's numpy is free
        sess.run(y, {x: XV})
    assert [seen[1] for seen in SEEN] == [[1] * len(START)] * 2
    assert [seen[2] for seen in SEEN] == [1, 1]      # numba too


def test_a_capped_run_gives_its_thread_numbas_own_count_back():
    """numba's count is per thread: a run of a session with ``intra_op_threads=1`` must
    not leave it at 1 for what the thread runs next (another session's run here)."""
    from devsession.kernels.cpu.numba_setup import numba

    for tag, options in (("capped", ds.SessionOptions(intra_op_threads=1)),
                         ("free", ds.SessionOptions())):
        g, x, y = probe_graph(tag)
        with ds.Session(graph=g, options=options) as sess:
            sess.run(y, {x: XV})
    assert [(seen[0], seen[2]) for seen in SEEN] == \
        [("capped", 1), ("free", numba.config.NUMBA_NUM_THREADS)]
    assert SEEN[0][3] == SEEN[1][3] == threading.get_ident()     # one thread ran both


def test_no_cap_without_intra_op_threads():
    g, x, y = probe_graph("free")
    with ds.Session(graph=g) as sess:
        sess.run(y, {x: XV})
    assert SEEN[0][1] == START


def test_a_cap_never_raises_the_users_own_setting():
    g, x, y = probe_graph("above")
    with threadpool_limits(limits=1, user_api="blas"):
        with ds.Session(graph=g, options=ds.SessionOptions(intra_op_threads=8)) as sess:
            sess.run(y, {x: XV})
        assert blas_counts() == [1] * len(START)
    assert SEEN[0][1] == [1] * len(START)


def test_overlapping_runs_of_two_sessions_restore_blas_when_both_are_done():
    # Run A (cap 1) starts, run B (cap 2) starts, A ends, then B ends: the count is the
    # smaller cap while both run, B's once A is done, and START again at the end (a
    # save/restore per run would leave 1 behind).
    a_inside, b_inside, a_done = threading.Event(), threading.Event(), threading.Event()
    GATES["a"] = (a_inside, b_inside)
    GATES["b"] = (b_inside, a_done)
    (ga, xa, ya), (gb, xb, yb) = probe_graph("a"), probe_graph("b")
    sa = ds.Session(graph=ga, options=ds.SessionOptions(intra_op_threads=1))
    sb = ds.Session(graph=gb, options=ds.SessionOptions(intra_op_threads=2))
    inside_b_after_a: list = []

    def run_a():
        sa.run(ya, {xa: XV})
        inside_b_after_a.extend(blas_counts())
        a_done.set()

    thread = threading.Thread(target=run_a)
    thread.start()
    assert a_inside.wait(10)
    sb.run(yb, {xb: XV})
    thread.join()
    sa.close()
    sb.close()
    seen = {tag: counts for tag, counts, _, _ in SEEN}
    assert seen == {"a": [1] * len(START), "b": [1] * len(START)}
    assert inside_b_after_a == [min(2, n) for n in START]


def test_branch_threads_cap_numba_too():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 4), name="x")
        y = probe(x, "left") + probe(x, "right")     # two heavy steps of one depth
    options = ds.SessionOptions(intra_op_threads=1, inter_op_threads=2)
    with ds.Session(graph=g, options=options) as sess:
        assert any(w.overlap for w in sess._prepare((x,), (y,), ()).plan.waves)
        for _ in range(5):
            sess.run(y, {x: XV})
    assert len({seen[3] for seen in SEEN}) == 2       # the branch pool ran one of them
    assert {seen[2] for seen in SEEN} == {1}


def test_runs_from_any_thread_set_the_count():
    # threadpoolctl lets only one thread at a time set a process-wide OpenBLAS count;
    # a first capped run on a thread that stays alive must not lock the others out.
    g, x, y = probe_graph("any")
    release = threading.Event()
    sess = ds.Session(graph=g, options=ds.SessionOptions(intra_op_threads=1))

    def first_run_then_wait():
        sess.run(y, {x: XV})
        release.wait(10)

    other = threading.Thread(target=first_run_then_wait)
    other.start()
    try:
        while len(SEEN) < 1:
            time.sleep(0.001)
        sess.run(y, {x: XV})
    finally:
        release.set()
        other.join()
        sess.close()
    assert [seen[1] for seen in SEEN] == [[1] * len(START)] * 2


class PerThreadBlas:
    """A stand-in for OpenBLAS on OpenMP, whose count is per thread."""

    internal_api, threading_layer = "openblas", "openmp"

    def __init__(self):
        self.local = threading.local()

    @property
    def num_threads(self):
        return getattr(self.local, "count", 4)

    def set_num_threads(self, count):
        self.local.count = count


def test_a_per_thread_blas_is_capped_on_the_running_thread_and_restored(monkeypatch):
    lib = PerThreadBlas()
    monkeypatch.setattr(blas_threads, "_libraries", ([], [lib]))
    seen_elsewhere = []
    with blas_threads.capped_blas_threads(2):
        assert lib.num_threads == 2
        with blas_threads.capped_blas_threads(3):
            assert lib.num_threads == 2           # a cap never raises the count
        worker = threading.Thread(target=lambda: seen_elsewhere.append(lib.num_threads))
        worker.start()
        worker.join()
        assert lib.num_threads == 2
    assert lib.num_threads == 4 and seen_elsewhere == [4]


def test_holding_a_cap_does_not_rescan_the_libraries():
    # ~6 us per hold+release here (a read and two ctypes calls); scanning the loaded
    # libraries per run, as threadpool_limits() does, costs ~300 us.  The best of several
    # batches keeps a busy machine from failing this.
    blas_threads.hold(1)      # the first hold finds the libraries (once per process)
    blas_threads.release(1)
    batches = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(200):
            blas_threads.hold(1)
            blas_threads.release(1)
        batches.append((time.perf_counter() - start) / 200)
    assert min(batches) < 100e-6, f"{min(batches) * 1e6:.1f} us per capped run"


def _product_counts(monkeypatch) -> list:
    """The BLAS thread counts each product of ``kernels/cpu/blas.py`` saw while it ran.
    Products go to BLAS here: the float32 ones ``register_gemm`` would take are turned
    away (its own policy is tests/test_register_gemm.py's)."""
    from devsession.kernels.cpu import blas, register_gemm

    monkeypatch.setattr(register_gemm, "_ENABLED", False)
    if not blas_threads.has_process_wide_blas():
        pytest.skip("needs a BLAS with one thread count per process (OpenBLAS on pthreads)")
    seen = []
    real_matmul = np.matmul

    def watched(a, b, out=None):
        seen.append(max(blas_counts()))
        return real_matmul(a, b, out=out)

    monkeypatch.setattr(blas, "np", type("numpy", (), {"matmul": staticmethod(watched),
                                                        "errstate": np.errstate}))
    return seen


@pytest.mark.parametrize("cap", [0, 1])
def test_a_lone_product_keeps_the_sessions_blas_count(monkeypatch, cap):
    """Alone, a product uses BLAS's own threads (numpy's), or the session's cap."""
    seen = _product_counts(monkeypatch)
    rng = np.random.default_rng(0)
    av, bv = (rng.standard_normal((256, 256)).astype(np.float32) for _ in range(2))
    g = ds.Graph()
    with g.as_default():
        a = ds.placeholder(ds.float32, (256, 256))
        c = ds.matmul(a, ds.constant(bv))
    with ds.Session(graph=g, options=ds.SessionOptions(intra_op_threads=cap)) as sess:
        np.testing.assert_allclose(sess.run(c, {a: av}), av @ bv, rtol=1e-4, atol=1e-4)
    assert seen == [cap or max(START)]
    assert blas_counts() == START


def test_products_at_once_run_on_one_blas_thread_each(monkeypatch):
    """A product that starts while another is in flight, or while two cluster tasks'
    steps run in this process (towers), holds BLAS to one thread: BLAS's spinning
    threads would starve the other's."""
    from devsession.kernels import parallelism
    from devsession.kernels.cpu import blas

    seen = _product_counts(monkeypatch)
    a = np.ones((256, 256), np.float32)
    outs = [np.empty_like(a) for _ in range(3)]
    with blas._ACTIVE_LOCK:
        blas._ACTIVE[0] += 1                          # another product in flight
    try:
        blas.matmul_into(a, a, outs[0])
    finally:
        with blas._ACTIVE_LOCK:
            blas._ACTIVE[0] -= 1
    with parallelism.task_step(), parallelism.task_step():
        blas.matmul_into(a, a, outs[1])
    blas.matmul_into(a, a, outs[2])                   # alone: BLAS's own count
    assert seen == [1, 1, max(START)]
    for out in outs:
        np.testing.assert_array_equal(out, a @ a)
    assert blas_counts() == START


def test_a_product_under_a_cap_leaves_its_thread_following_the_process_count():
    from devsession.kernels.cpu import blas

    a = np.ones((256, 256), np.float32)
    out = np.empty_like(a)
    with blas_threads.capped_blas_threads(1):
        blas.matmul_into(a, a, out)
    np.testing.assert_array_equal(out, a @ a)
    assert blas_counts() == START       # in this very thread, after the cap ended


# --- the kernels whose products take the policy: convolutions, float16 MatMul ----------

def _conv_case(op, x_shape, f_shape, stride):
    """(node, inputs) of a Conv2D-family op on float32 N(0, 1) values, "SAME" padding."""
    rng = rng_for("blas policy", op, x_shape, f_shape)
    attrs = {"strides": (1, stride, stride, 1), "padding": "SAME", "dilations": (1, 1, 1, 1)}
    x = rng.standard_normal(x_shape).astype(F32)
    f = rng.standard_normal(f_shape).astype(F32)
    y = lookup_kernel("Conv2D", "REF")(make_node("Conv2D", [F32, F32], F32, attrs))(x, f)
    dy = rng.standard_normal(y.shape).astype(F32)
    if op == "Conv2D":
        return make_node(op, [F32, F32], F32, attrs), (x, f)
    if op == "Conv2DBackpropInput":
        return make_node(op, [I32, F32, F32], F32, attrs), (np.array(x_shape, np.int32), f, dy)
    return make_node(op, [F32, I32, F32], F32, attrs), (x, np.array(f_shape, np.int32), dy)


def _policy_cases():
    """Products big enough for BLAS to thread (``blas.MIN_THREADED_MACS``): Conv2D and
    its gradients, packed as rows (3x3), as columns (one channel) and pointwise (1x1),
    and float16's float32 MatMul."""
    rng = rng_for("blas policy matmul")
    a, b = (rng.standard_normal((128, 128)).astype(F16) for _ in range(2))
    cases = [pytest.param(make_node("MatMul", [F16, F16], F16), (a, b), id="MatMul-float16")]
    for op in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"):
        cases.append(pytest.param(*_conv_case(op, (2, 16, 16, 8), (3, 3, 8, 16), 1),
                                  id=f"{op}-3x3"))
        cases.append(pytest.param(*_conv_case(op, (2, 16, 16, 64), (1, 1, 64, 32), 1),
                                  id=f"{op}-1x1"))
        cases.append(pytest.param(*_conv_case(op, (4, 32, 32, 1), (5, 5, 1, 32), 1),
                                  id=f"{op}-5x5-one-channel"))     # windows packed as columns
    return cases


@pytest.mark.parametrize("node,inputs", _policy_cases())
def test_conv_and_float16_matmul_products_follow_the_blas_thread_policy(monkeypatch, node,
                                                                       inputs):
    """Every product of these kernels goes through ``blas.matmul_into``: run alone it
    keeps BLAS's own thread count; while another product is in flight it holds BLAS to
    one thread (the tests above check the policy itself, on MatMul)."""
    from devsession.kernels.cpu import blas

    start = blas_counts()
    seen = _product_counts(monkeypatch)
    expected = run_on("REF", node, *inputs)
    assert_same(run_on("CPU", node, *inputs), expected, rtol=1e-4, atol=1e-3)
    assert seen and set(seen) == {max(start)}, seen      # alone: BLAS's own threads
    seen.clear()
    with blas._ACTIVE_LOCK:
        blas._ACTIVE[0] += 1                              # another product in flight
    try:
        assert_same(run_on("CPU", node, *inputs), expected, rtol=1e-4, atol=1e-3)
    finally:
        with blas._ACTIVE_LOCK:
            blas._ACTIVE[0] -= 1
    assert seen and set(seen) == {1}, seen
    assert blas_counts() == start
