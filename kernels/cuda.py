"""Device type "GPU": registers every CUDA kernel (imported lazily by the registry).

Importing this module imports cupy; without cupy the import fails, the registry
remembers why and reports it (with the install hint) on every later GPU lookup.  Device
discovery (``devsession.devices``) decides separately whether GPUs exist, so a
machine with cupy but without a driver never gets here.  Every kernel takes and
returns cupy arrays on the GPU named by ``KernelNode.device``; values stay there
between GPU nodes, and ``_Transfer`` steps move them at device edges, feeds and
fetches.

=================================  ==========================  =========================
ops                                module                      implementation
=================================  ==========================  =========================
unary/binary elementwise,          ``cuda_elementwise``        ``cupy.ElementwiseKernel``
SelectV2, Cast                                                 from ``cuda_codegen``
                                                               (one kernel per
                                                               expression, fusable)
Sum, Mean, Max, Min, ArgMax,       ``cuda_reduce``             cupy reductions (CUB);
Softmax                                                        Softmax: max, one fused
                                                               exp kernel, sum, divide
MatMul                             ``cuda_linalg``             cuBLAS via ``cupy.matmul``
Identity, Reshape, Transpose,      ``cuda_movement``           cupy views and copies
ConcatV2
_Transfer                          ``cuda_transfer``           pinned double-buffered
                                                               host<->device copies,
                                                               peer copies
Const, Placeholder, NoOp,          ``devsession.runtime.       state on the device:
VariableV2, Assign, AssignAdd,     gpu_state_kernels``         constants uploaded once,
RandomUniform,                                                 variables held as cupy
RandomStandardNormal                                           arrays, random numbers
                                                               drawn on the host (the
                                                               CPU's sequence) and
                                                               uploaded
=================================  ==========================  =========================

Out-of-memory anywhere becomes ``ResourceExhaustedError`` naming the node and the
bytes asked for (``cuda_device.on_device``); ``cuda_memory`` caps the pool and frees it.
"""

from __future__ import annotations

import cupy  # noqa: F401  (fails here, and is remembered, where cupy is missing)

from . import cuda_elementwise, cuda_linalg, cuda_movement, cuda_reduce, cuda_transfer

DEVICE = "GPU"


def _register_all() -> None:
    cuda_elementwise.register(DEVICE)
    cuda_reduce.register(DEVICE)
    cuda_linalg.register(DEVICE)
    cuda_movement.register(DEVICE)
    cuda_transfer.register(DEVICE)
    from devsession.runtime import gpu_state_kernels

    gpu_state_kernels.register(DEVICE)


_register_all()
