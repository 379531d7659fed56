"""GPU-only kernel behaviour: fused kernels with ``out=``, out-of-memory errors naming
the node and the bytes, a second GPU.  Every op's conformance runs on the GPU in
``test_kernels.py`` (one body per op for every device).  Skipped with "no CUDA device"
where there is none; ``ci/gpu-check`` runs them.
"""

from __future__ import annotations

import numpy as np
import pytest

from devsession.device_spec import Device
from devsession.devices import gpu_devices
from devsession.errors import InvalidArgumentError, ResourceExhaustedError
from devsession.kernels.registry import lookup_kernel
from kernel_cases import BIG, F32, assert_same, make_node, random_array, rng_for, run_on

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not gpu_devices(), reason="no CUDA device")]


def test_fused_elementwise_and_out_argument_on_the_gpu():
    import cupy

    from devsession.kernels.cuda.elementwise import ElementwiseKernel

    expr = "t0 = i0 * 1.5 + 0.25\nt1 = max(t0, 0) * sigmoid(i0)\nt1 + 0.5 * i0 * i0"
    node = make_node("_FusedElementwise", [F32], F32,
                     {"expression": expr, "input_names": ("i0",), "members": ("a", "b")})
    x = random_array(rng_for("fused"), (BIG,), F32)
    got = run_on("GPU", node, x)
    cpu = lookup_kernel("_FusedElementwise", "CPU")(node)(x)
    assert_same(got, cpu, rtol=1e-5, atol=1e-5)
    k = ElementwiseKernel("a * b", [("a", F32), ("b", F32)], F32, name="k")
    a, b = cupy.ones((5, 4), cupy.float32), cupy.arange(4, dtype=cupy.float32)
    out = cupy.empty((5, 4), cupy.float32)
    assert k(a, b, out=out) is out
    np.testing.assert_array_equal(cupy.asnumpy(out), np.tile(np.arange(4), (5, 1)))
    with pytest.raises(InvalidArgumentError, match=r"'k'.*\[3\] vs\. \[4\]"):
        k(cupy.ones(3, cupy.float32), cupy.ones(4, cupy.float32))


def test_out_of_memory_names_the_node_and_the_bytes():
    import cupy

    from devsession.kernels.cuda import memory as cuda_memory

    previous = cuda_memory.set_pool_limit(0, 64 << 20)
    try:
        node = make_node("Add", [F32, F32], F32, name="too_big", device=Device("GPU"))
        kernel = lookup_kernel("Add", "GPU")(node)
        a = cupy.ones((20_000, 1), cupy.float32)
        b = cupy.ones((1, 20_000), cupy.float32)
        with pytest.raises(ResourceExhaustedError, match=r"'too_big'.*1,600,000,000 bytes"):
            kernel(a, b)
        assert kernel(a[:10], b[:, :10]).shape == (10, 10)      # still works
    finally:
        cuda_memory.set_pool_limit(0, previous)


@pytest.mark.skipif(len(gpu_devices()) < 2, reason="needs two CUDA devices")
def test_kernels_run_on_the_second_gpu():
    x = random_array(rng_for("gpu1"), (1000,), F32)
    got = run_on(Device("GPU", 1), make_node("Exp", [F32], F32), x)
    np.testing.assert_allclose(got, np.exp(x), rtol=2e-6)
