"""Device type "REF": plain-numpy reference kernels, the oracle every other device is
tested against (imported lazily by the registry; never imports numba).

Each kernel is the most direct numpy formulation of the op's semantics, written for
clarity rather than speed.  One module per op family, named as the family's op
definitions in ``devsession/ops/`` and its CPU and CUDA kernels:

==================  ===============================================================
module              ops
==================  ===============================================================
``elementwise``     unary and binary math, comparisons, SelectV2, Cast
``reduce``          Sum, Mean, Max, Min, ArgMax
``linalg``          MatMul
``linalg_solve``    MatrixInverse, MatrixSolve, MatrixTriangularSolve, MatrixSolveLs and
``linalg_factor``   Cholesky, Qr, Svd, SelfAdjointEigV2, LogMatrixDeterminant: numpy
                    (LAPACK) or cupy, ``xp.linalg`` with TF's conventions (also the CPU's)
``nn``              Softmax, LogSoftmax, the softmax cross entropies, L2Loss, BiasAdd
                    (and its gradient), LeakyRelu, Elu, Softplus
``nn_conv``         Conv2D and its gradients, MaxPool, AvgPool and their gradients
``array``           Identity, StopGradient, Reshape, Transpose, ConcatV2, Squeeze, ExpandDims,
                    Pack, Unpack, Tile, Pad, PadV2, MirrorPad, Shape, Size, Rank, Fill,
                    ZerosLike, OnesLike, BroadcastTo (also the CPU's kernels)
``array_index``     Slice, StridedSlice, StridedSliceGrad (also the CPU's), GatherV2,
                    UnsortedSegmentSum, OneHot, AddN
``shape_of``        the gradients' shape-of ops (also the CPU's kernels)
``training``        the optimizers' fused updates (ApplyAdam...): numpy formulas, and
                    the frame every device's update kernel runs in
``sparse_training`` SparseApply<X>: those formulas on the indexed rows (HOST; the
                    GPU's over cupy)
``state``           Const, Placeholder, NoOp, variables, seeded random ops (also the
                    CPU's kernels)
``control_flow``    If, While, Assert: drivers running the nodes' functions (every
                    device's kernels)
``dataset``         the iterator ops behind ``ds.data``: the host-side pipeline (HOST)
``candidate_sampling``  the Log/UniformCandidateSampler draws (HOST)
``sparse``          SparseToDense, SparseTensorDenseMatMul, SparseReduceSum,
                    SparseReorder, SparseReshape: numpy over a SparseTensor's three
                    arrays (HOST); ``sparse_add``: SparseAdd, SparseAddGrad,
                    SparseTensorDenseAdd; ``sparse_slicing``: SparseConcat, SparseSlice,
                    SparseSplit, SparseFillEmptyRows (and gradients); ``sparse_math``:
                    SparseReduceMax(Sparse), SparseReduceSumSparse, SparseSoftmax,
                    SparseSparseMaximum/Minimum
``strings``         StringToNumber, AsString, StringJoin, Substr... (``string_regex``:
                    the RE2 regex ops; ``decode_csv``: DecodeCSV) (HOST)
``parsing``         ParseSingleExample, ParseExampleV2: Example protos to arrays;
                    DecodeRaw: the bytes of strings as numbers (HOST); ``sequence_parsing``:
                    ParseSequenceExampleV2, ParseSingleSequenceExample; ``serialization``:
                    SerializeTensor, ParseTensor (HOST)
``image_files``     DecodeJpeg, DecodePng, DecodeGif, DecodeBmp, DecodeImage, EncodePng,
                    EncodeJpeg...: image files through Pillow (``image_codecs``) (HOST)
``queues``          TF1's queues: FIFOQueueV2... and their enqueue, dequeue, close and
                    size ops, over ``devsession/runtime/queues.py`` (HOST)
``accumulators``    TF1's conditional accumulators: ConditionalAccumulator... and
                    their apply, take, count and global-step ops, over
                    ``devsession/runtime/accumulators.py`` (HOST)
``lookup``          TF1's lookup tables: HashTableV2, MutableHashTableV2 and their
                    initialize, find, size, insert and export ops, over
                    ``devsession/runtime/lookup_tables.py`` (``lookup_text_file``: the
                    entries of a vocabulary file) (HOST)
``readers``         TF1's readers: TFRecordReaderV2... and ReaderReadV2, ReaderReadUpToV2
                    (records of the files a queue names) (HOST)
``script``          PyFunc: the registered Python function, called on the host (HOST)
``checkpoint_io``   RestoreV2: tensors read from a checkpoint when it runs (HOST)
``file_io``         ReadFile, WriteFile, MatchingFiles: local files (HOST)
``top_k``           TopKV2, InTopKV2 (and the run-time checks every device shares)
``batch_norm``      FusedBatchNorm(V2, V3) and FusedBatchNormGrad(V2, V3): TF's formulas
                    over numpy or cupy
``backprops``       TF's gradient ops: ReluGrad, SigmoidGrad... (numpy), BroadcastGradientArgs,
                    ConcatOffset, PreventGradient (HOST)
``run_time_attrs``  _RunTimeAttr: a reduction's axes, a Transpose's perm read at run time
``depthwise``       DepthwiseConv2dNative and its gradients: einsums over the windows
                    (and the run-time checks every device shares)
``conv3d``          Conv3D, MaxPool3D, AvgPool3D and their gradients: numpy loops over
                    the filter taps or the windows (NDHWC and NCDHW)
``image``           ResizeBilinear, ResizeNearestNeighbor and their gradients (and the
                    run-time checks and sampling tables every device shares)
``image_nms``       NonMaxSuppressionV3, V4, V5, WithOverlaps, CombinedNonMaxSuppression:
                    the greedy selection over a heap (HOST)
``space_depth``     SpaceToDepth, DepthToSpace, SpaceToBatchND, BatchToSpaceND,
                    SpaceToBatch, BatchToSpace, ExtractImagePatches: reshapes and
                    transposes over numpy or cupy (also the CPU's kernels)
``random``          Multinomial: draws from the node's seeded stream (HOST)
``random_rates``    RandomGamma, RandomPoissonV2: the stateless samplers at the node's
                    seeded stream (REF; the CPU's compiled in ``cpu/philox_rates.py``)
``stateless_random``  TF's stateless random ops: Philox (``philox``) and TF's
                    distributions, the C library's log/sin/cos (``libm``) (HOST)
``stateful_random``  TF's stateful random ops (tf.random.Generator's): the stateless
                    draws at a variable's key and counter, which move on (HOST)
``debugging``       CheckNumerics (over numpy or cupy), Print (HOST and GPU); ``summarize``
                    is TF's text of a tensor in Assert's and Print's messages
``special``         Lgamma, Digamma, Polygamma, Zeta, Igamma(c), IgammaGradA, the Bessel
                    functions, Erfinv, Ndtri: ``kernels/special_math.py`` over arrays
``segments``        Segment*, UnsortedSegmentMax/Min/Prod, SparseSegment* and their
                    gradient ops: sorted runs reduced by ``reduceat`` (HOST)
``partition``       DynamicPartition, (Parallel)DynamicStitch, Bincount,
                    HistogramFixedWidth (HOST)
``complex_math``    Complex, Real, Imag, ComplexAbs, Conj, Angle (HOST); ``fft``: FFT,
                    IFFT, RFFT, IRFFT and their 2D and 3D ops, numpy's pocketfft (HOST)
``ctc``             CTCLoss: log-space forward-backward per example (HOST);
                    ``ctc_decoders``: CTCGreedyDecoder, CTCBeamSearchDecoder (HOST)
``audio``           DecodeWav, EncodeWav: 16-bit PCM WAV files (HOST)
``compression``     DecodeCompressed: ZLIB and GZIP over zlib (HOST)
``betainc``         Betainc: the incomplete beta's continued fraction (HOST)
``math_special``    tf.math.special's J, Y, K Bessel functions, Dawsn, Expint, the
                    Fresnel integrals, Spence: float64 numpy (HOST)
``next_after``      NextAfter: numpy's nextafter (HOST)
==================  ===============================================================
"""

from . import (array, array_index, elementwise, linalg, nn, nn_conv, reduce,
               shape_of,  # noqa: F401
               state, training)
from . import sequence, summary  # noqa: F401,E402  (TF1 surface; the CPU's too)
from . import control_flow  # noqa: F401,E402  (registers)
from . import dataset  # noqa: F401,E402  (the iterator ops: HOST)
from . import dataset_writers  # noqa: F401,E402  (TFRecordWriter's op: HOST)
from . import script  # noqa: F401,E402  (PyFunc: HOST)
from . import queues  # noqa: F401,E402  (TF1's queues: HOST)
from . import accumulators  # noqa: F401,E402  (TF1's conditional accumulators: HOST)
from . import readers  # noqa: F401,E402  (TF1's readers: HOST)
from . import lookup  # noqa: F401,E402  (TF1's lookup tables: HOST)
from . import candidate_sampling  # noqa: F401,E402  (the samplers: HOST)
from . import parsing  # noqa: F401,E402  (the Example parsers, DecodeRaw: HOST)
from . import sequence_parsing  # noqa: F401,E402  (SequenceExample parsers: HOST)
from . import serialization  # noqa: F401,E402  (SerializeTensor, ParseTensor: HOST)
from . import sparse, sparse_add  # noqa: F401,E402  (SparseToDense, SparseAdd...: HOST)
from . import sparse_math, sparse_slicing  # noqa: F401,E402  (SparseConcat...: HOST)
from . import sparse_cross  # noqa: F401,E402  (SparseCross, V2, Hashed: HOST)
from . import sparse_bincount  # noqa: F401,E402  (Dense/SparseCountSparseOutput: HOST)
from . import sparse_serialization  # noqa: F401,E402  (SerializeSparse...: HOST)
from . import edit_distance  # noqa: F401,E402  (EditDistance: HOST)
from . import ragged  # noqa: F401,E402  (RaggedRange, RaggedTensorToTensor...: HOST)
from . import unicode  # noqa: F401,E402  (UnicodeDecode, UnicodeEncode...: HOST)
from . import fractional_pool  # noqa: F401,E402  (FractionalMaxPool...: HOST)
from . import volume_patches  # noqa: F401,E402  (ExtractVolumePatches: HOST)
from . import session_ops  # noqa: F401,E402  (GetSessionHandle...: HOST)
from . import guarantee_const, timestamp  # noqa: F401,E402  (GuaranteeConst, Timestamp: HOST)
from . import decode_csv, string_regex, strings  # noqa: F401,E402  (string ops: HOST)
from . import audio  # noqa: F401,E402  (DecodeWav, EncodeWav: HOST)
from . import compression  # noqa: F401,E402  (DecodeCompressed: HOST)
from . import betainc  # noqa: F401,E402  (Betainc: HOST)
from . import math_special  # noqa: F401,E402  (BesselJ0, Dawsn, Spence...: HOST)
from . import next_after  # noqa: F401,E402  (NextAfter: HOST)
from . import string_hashing, string_joins  # noqa: F401,E402  (Fingerprint, StringNGrams...: HOST)
from . import sparse_training  # noqa: F401,E402  (SparseApply<X>: HOST)
from . import top_k  # noqa: F401,E402  (registers)
from . import batch_norm  # noqa: F401,E402  (registers)
from . import backprops  # noqa: F401,E402  (TF's gradient ops: registers)
from . import run_time_attrs  # noqa: F401,E402  (_RunTimeAttr: REF and CPU)
from . import depthwise  # noqa: F401,E402  (registers)
from . import image  # noqa: F401,E402  (registers)
from . import image_nms  # noqa: F401,E402  (NonMaxSuppressionV3...: HOST)
from . import image_crop  # noqa: F401,E402  (registers)
from . import image_resample  # noqa: F401,E402  (ResizeBicubic, ResizeArea...)
from . import image_draw  # noqa: F401,E402  (DrawBoundingBoxes: HOST)
from . import image_glimpse, image_sample  # noqa: F401,E402  (HOST)
from . import debugging  # noqa: F401,E402  (CheckNumerics: HOST)
from . import identity_n  # noqa: F401,E402  (IdentityN: HOST)
from . import print_v2  # noqa: F401,E402  (StringFormat, PrintV2: HOST)
from . import checkpoint_io  # noqa: F401,E402  (RestoreV2: HOST)
from . import file_io  # noqa: F401,E402  (ReadFile, WriteFile, MatchingFiles: HOST)
from . import image_files  # noqa: F401,E402  (DecodeJpeg, EncodePng...: HOST)
from . import linalg_factor, linalg_solve  # noqa: F401,E402  (decompositions, solves: HOST)
from . import linalg_lu  # noqa: F401,E402  (Lu: HOST)
from . import linalg_sqrtm  # noqa: F401,E402  (MatrixSquareRoot, MatrixLogarithm: HOST)
from . import linalg_tridiagonal  # noqa: F401,E402  (TridiagonalSolve, MatMul: HOST)
from . import special  # noqa: F401,E402  (the special functions: registers)
from . import partition, segments  # noqa: F401,E402  (HOST: registers)
from . import space_depth  # noqa: F401,E402  (registers: REF and CPU)
from . import tensor_array  # noqa: F401,E402  (ds.TensorArray: REF and CPU)
from . import random  # noqa: F401,E402  (Multinomial: HOST)
from . import random_rates  # noqa: F401,E402  (RandomGamma, RandomPoissonV2: REF)
from . import stateless_random  # noqa: F401,E402  (the stateless random ops: HOST)
from . import stateless_random_rates  # noqa: F401,E402  (StatelessRandomPoisson: HOST)
from . import stateful_random  # noqa: F401,E402  (RngReadAndSkip, Stateful*: HOST)
from . import index_shuffle  # noqa: F401,E402  (RandomIndexShuffle: HOST)
from . import conv3d  # noqa: F401,E402  (registers)
from . import (array_order, array_sets, array_shapes, diagonals,  # noqa: F401,E402
               vectors)  # TF's array-manipulation ops (the CPU's too)
from . import set_operations  # noqa: F401,E402  (tf.sets: HOST, the CPU's too)
from . import fake_quant  # noqa: F401,E402  (FakeQuantWithMinMax*: HOST, the CPU's too)
from . import quantize_dequantize  # noqa: F401,E402  (QuantizeAndDequantize*: HOST, the CPU's too)
from . import quantize  # noqa: F401,E402  (QuantizeV2, Dequantize: HOST, the CPU's too)
from . import bitcast  # noqa: F401,E402  (Bitcast: HOST, the CPU's too)
from . import bucketize  # noqa: F401,E402  (Bucketize: HOST, the CPU's too)
from . import complex_math, fft  # noqa: F401,E402  (complex parts, FFTs: HOST, the CPU's too)
from . import window_argmax  # noqa: F401,E402  (registers)
from . import ctc, ctc_decoders  # noqa: F401,E402  (CTCLoss, the CTC decoders: HOST)
