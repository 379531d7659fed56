"""Device type "GPU": every CUDA kernel (imported lazily by the registry).

Importing this package imports cupy; without cupy the import fails, the registry
remembers why and reports it (with the install hint) on every later GPU lookup.  Device
discovery (``devsession.devices``) decides separately whether GPUs exist, so a
machine with cupy but without a driver never gets here.  Every kernel takes and
returns cupy arrays on the GPU named by ``KernelNode.device``; values stay there
between GPU nodes, and ``_Transfer`` steps move them at device edges, feeds and
fetches.  One module per op family, named as in ``reference/`` and ``cpu/``:

==================  ===============================================================
module              ops and how they run
==================  ===============================================================
``elementwise``     unary/binary math, SelectV2, Cast and fused regions: one
                    ``cupy.ElementwiseKernel`` per expression (``codegen/cuda.py``)
``reduce``          Sum, Mean, Max, Min, ArgMax: cupy reductions (CUB)
``linalg``          MatMul: cuBLAS via ``cupy.matmul``
                    (and Diag, MatrixDeterminant, the inverses, solves and
                    decompositions: the host's kernels on ``cupy.linalg``, cuSOLVER)
``nn``              Softmax, LogSoftmax, cross entropies, L2Loss, BiasAdd(Grad): cupy
                    reductions and fused elementwise kernels
``nn_conv``         Conv2D and its gradients: im2col + cuBLAS (``windows.py``);
                    pooling and its gradients: reductions over the packed windows
``array``           data movement, slices and GatherV2: cupy views and copies (the
                    host's code over cupy); UnsortedSegmentSum: atomicAdd;
                    OneHot, AddN: generated elementwise kernels
``shape_of``        the gradients' shape-of ops: cupy sums, views and counts
``state``           constants uploaded once, variables held as cupy arrays, random
                    numbers drawn on the host (the CPU's sequence) and uploaded
``training``        the optimizers' updates (ApplyAdam...): one ElementwiseKernel each,
                    in place
``transfer``        ``_Transfer``: pinned double-buffered host<->device copies, peer
                    copies
``control_flow``    If, While, Assert: the reference drivers, whose functions run here
``top_k``           TopKV2, InTopKV2: cupy's stable argsort and array operations
``batch_norm``      FusedBatchNorm(V2, V3), FusedBatchNormGrad(V2, V3): the reference's
                    formulas over cupy
``backprops``       BroadcastGradientArgs, ConcatOffset (through the host), PreventGradient
``run_time_attrs``  _RunTimeAttr: the wrapped op's GPU kernel per attr value
``depthwise``       DepthwiseConv2dNative and its input gradient: an ElementwiseKernel
                    each; its filter gradient: packed windows + batched cuBLAS
``conv3d``          Conv3D, 3-D pooling and their gradients: ``volumes.py``'s im2col +
                    cuBLAS and window reductions on cupy
``image``           ResizeBilinear(Grad): an ElementwiseKernel each (the gradient with
                    atomicAdd); ResizeNearestNeighbor(Grad): cupy takes, segment sums
``space_depth``     SpaceToDepth, DepthToSpace, Space/BatchToSpace(ND),
                    ExtractImagePatches: the host's reshapes and copies over cupy
``random``          Multinomial: drawn on the host (the CPU's sequence) and uploaded
``stateless_random``  TF's stateless random ops: the host's kernels, values uploaded
``stateful_random``  TF's stateful random ops: the host's kernels on the state (moved to
                    the host), values uploaded
``segments``        the segment reductions, DynamicPartition/Stitch, Bincount,
                    HistogramFixedWidth: the host's kernels on downloaded inputs
==================  ===============================================================

Plumbing: ``device`` (running a kernel on its GPU; out-of-memory anywhere becomes
``ResourceExhaustedError`` naming the node and the bytes asked for), ``memory`` (pool
caps and release).
"""

from __future__ import annotations

import cupy  # noqa: F401  (fails here, and is remembered, where cupy is missing)

from . import (array, elementwise, linalg, nn, nn_conv, reduce, shape_of,  # noqa: F401
               state, training, transfer)                              # (register)
from . import host_ops  # noqa: F401,E402  (TF1 surface: Range, Unique, Where)
from . import segments  # noqa: F401,E402  (segment reductions, partitions: on the host)
from . import control_flow  # noqa: F401,E402  (registers)
from . import top_k  # noqa: F401,E402  (registers)
from . import batch_norm  # noqa: F401,E402  (registers)
from . import backprops  # noqa: F401,E402  (TF's gradient ops' host kernels: registers)
from . import run_time_attrs  # noqa: F401,E402  (_RunTimeAttr: registers)
from . import depthwise  # noqa: F401,E402  (registers)
from . import image  # noqa: F401,E402  (registers)
from . import image_crop  # noqa: F401,E402  (CropAndResize and its gradients)
from . import image_resample  # noqa: F401,E402  (ResizeBicubic, ResizeArea...)
from . import image_draw  # noqa: F401,E402  (DrawBoundingBoxes, through the host)
from . import image_augment  # noqa: F401,E402  (glimpses, sampled crops: through the host)
from . import image_nms  # noqa: F401,E402  (non-max suppression, through the host)
from . import debugging  # noqa: F401,E402  (registers)
from . import identity_n  # noqa: F401,E402  (registers)
from . import space_depth  # noqa: F401,E402  (registers)
from . import tensor_array  # noqa: F401,E402  (ds.TensorArray: registers)
from . import random  # noqa: F401,E402  (Multinomial: registers)
from . import stateless_random  # noqa: F401,E402  (through the host: registers)
from . import stateful_random  # noqa: F401,E402  (through the host: registers)
from . import conv3d  # noqa: F401,E402  (registers)
from . import array_manipulation  # noqa: F401,E402  (Roll, Cross, DiagPart...: registers)
from . import window_argmax  # noqa: F401,E402  (registers)
from . import ctc  # noqa: F401,E402  (CTCLoss and the decoders, through the host)
from . import fake_quant  # noqa: F401,E402  (tf.quantization's fake quantization: registers)
from . import quantize_dequantize  # noqa: F401,E402  (QuantizeAndDequantize*: registers)
from . import bitcast  # noqa: F401,E402  (Bitcast: registers)
from . import bucketize  # noqa: F401,E402  (Bucketize: registers)
