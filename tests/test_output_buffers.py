"""CPU kernels that write big outputs into pooled buffers (``kernels/buffer_pool.py``):
a result the caller dropped is written again on the next call, with every element
overwritten (the buffer comes back holding garbage), and one the caller holds is never
touched.  A fresh multi-megabyte output per step costs its pages: a separable
convolution step took 1130 page faults before its depthwise and 1x1 input-gradient
outputs were pooled, none after.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from devsession.kernels.registry import lookup_kernel
from devsession.ops.nn_depthwise import depthwise_attrs
from kernel_cases import make_node, rng_for

F32 = np.dtype(np.float32)
I32 = np.dtype(np.int32)
CONV = {"strides": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC",
        "dilations": [1, 1, 1, 1]}


def _inputs(rng, *shapes):
    return [rng.standard_normal(s, dtype=np.float32) for s in shapes]


def _cases():
    """(op, attrs, input dtypes, make inputs(rng)) of each pooled output."""
    x, f3, dy = (4, 20, 20, 32), (3, 3, 32, 1), (4, 20, 20, 32)
    depthwise = depthwise_attrs(1, "SAME", "NHWC", 1, "dw")
    return [
        ("DepthwiseConv2dNative", depthwise, [F32, F32], lambda rng: _inputs(rng, x, f3)),
        ("DepthwiseConv2dNativeBackpropInput", depthwise, [I32, F32, F32],
         lambda rng: [np.array(x, np.int32)] + _inputs(rng, f3, dy)),
        ("Conv2DBackpropInput", CONV, [I32, F32, F32],            # 1x1: one product
         lambda rng: [np.array(x, np.int32)] + _inputs(rng, (1, 1, 32, 48), (4, 20, 20, 48))),
        ("Conv2DBackpropInput", CONV, [I32, F32, F32],            # 3x3 windows
         lambda rng: [np.array(x, np.int32)] + _inputs(rng, (3, 3, 32, 16), (4, 20, 20, 16))),
    ]


@pytest.mark.parametrize("op,attrs,dtypes,make", _cases(),
                         ids=["depthwise", "depthwise-input-grad", "conv1x1-input-grad",
                              "conv3x3-input-grad"])
def test_a_dropped_output_is_written_again_in_full_a_held_one_never(op, attrs, dtypes, make):
    inputs = make(rng_for("output buffers", op, len(dtypes)))
    want = lookup_kernel(op, "REF")(make_node(op, dtypes, F32, attrs))(*inputs)
    kernel = lookup_kernel(op, "CPU")(make_node(op, dtypes, F32, attrs))

    first = kernel(*inputs)
    np.testing.assert_allclose(first, want, rtol=1e-4, atol=1e-4)
    nbytes = first.nbytes
    first[...] = np.nan                  # garbage the next call must overwrite everywhere
    del first
    again, fresh = _allocated_during(kernel, inputs)
    assert fresh < nbytes                # the dropped buffer, reused
    np.testing.assert_allclose(again, want, rtol=1e-4, atol=1e-4)

    held, fresh = _allocated_during(kernel, inputs)    # `again` is still held
    assert fresh >= nbytes and held.ctypes.data != again.ctypes.data
    np.testing.assert_allclose(again, want, rtol=1e-4, atol=1e-4)


def _allocated_during(kernel, inputs):
    """(the kernel's result, the most memory numpy allocated at once during the call)
    (numpy reports its data buffers to tracemalloc)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = kernel(*inputs)
        return result, tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
