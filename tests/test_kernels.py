"""Kernel conformance, one test body for every device: each kernel on the CPU, and on a
GPU where there is one (``kernel_cases.DEVICES``: the GPU cases carry the ``gpu`` mark
and skip with "no CUDA device" elsewhere; ``ci/gpu-check`` runs them), and in CI on the
numpy stand-in for cupy ("gpu-standin": the real CUDA kernel modules, their generated C
run on the host; see ``cupy_standin.py``), against the numpy reference kernels ("REF"),
which are themselves checked against direct numpy formulas.

Sizes 0, 1, 7 and 1,000,003, broadcast shapes, every dtype the op takes.
``test_every_ref_op_is_covered`` fails if an op is registered without a case here.
CPU-only behaviour (parallel chunking, the code generator, the disk cache) is in
``test_kernels_cpu.py``; GPU-only behaviour (out of memory, a second GPU) in
``test_kernels_gpu.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from concurrency import run_in_threads
from devsession.errors import InvalidArgumentError
from devsession.kernels.registry import lookup_kernel, registered_ops
from devsession.ops.linalg import MATMUL_BIAS, MATMUL_RELU_GRAD
from devsession.ops.nn_conv import CONV2D_BIAS, MAX_POOL_RELU_GRAD
from devsession.ops.decode_csv import DECODE_CSV
from devsession.ops.image_files import IMAGE_FILE_OPS
from devsession.ops.sparse import SPARSE_OPS
from devsession.ops.sparse_serialization import SPARSE_SERIALIZATION_OPS
from devsession.ops.sparse_bincount import COUNT_OPS
from devsession.ops.string_regex import REGEX_OPS
from devsession.ops.string_split import SPLIT_OPS
from devsession.ops.strings import STRING_OPS
from devsession.ops.string_hashing import STRING_HASHING_OPS
from devsession.ops.string_joins import STRING_JOIN_OPS
from devsession.ops.ragged import RAGGED_OPS
from devsession.ops.unicode import UNICODE_OPS
from devsession.ops.training import MATMUL_ADAM, MATMUL_GRADIENT_DESCENT
from devsession.ops.nn_fractional_pool import FRACTIONAL_POOL_OPS
from kernel_cases import (ALL, ARITHMETIC, BIG, BOOL, BROADCASTS, COMPARISON, DEVICES, F16,
                          F32, F64, FLOATS, I32, I64, MATMUL_CASES, NUMERIC, REDUCE_CASES,
                          STANDIN, UNARY, array_module, assert_same, binary_inputs,
                          check_against_ref, kernel_on, make_node, out_dtype_of, random_array,
                          reduction_tolerance, registered_on, rng_for, run_on)

REDUCTIONS = ["Sum", "Mean", "Max", "Min"]
COVERED = set(UNARY) | set(ARITHMETIC) | set(COMPARISON) | set(REDUCTIONS) | {
    "SelectV2", "Cast", "MatMul", "ArgMax", "Reshape", "Transpose", "ConcatV2", "Softmax",
    "StopGradient"}
# The TF1 surface's ops (branch tf1) have their kernel suite in test_tf1_kernels.py.
COVERED |= __import__("test_tf1_kernels").COVERED
COVERED |= __import__("test_math_kernels").COVERED   # the TF1 math ops (branch tf1-math)
COVERED |= __import__("test_math_names_kernels").COVERED   # acosh, xdivy, bitwise...
COVERED |= __import__("test_special_functions").COVERED   # lgamma, igamma, erfinv...
COVERED |= __import__("test_segment_ops").COVERED   # segment reductions, partitions
COVERED |= __import__("test_linalg_kernels").COVERED  # inverses, solves, decompositions
COVERED |= __import__("test_array_manipulation").COVERED  # Roll, Cross, sets, diagonals
COVERED |= __import__("test_scatter_more").COVERED  # TensorScatterMin/Max
COVERED |= __import__("test_sparse_more").COVERED  # SparseMatMul
COVERED |= __import__("test_sets").COVERED  # tf.sets' set operations and SetSize
COVERED |= __import__("test_fake_quant").COVERED  # FakeQuantWithMinMax* and gradients
COVERED |= __import__("test_quantize_dequantize").COVERED  # QuantizeAndDequantize*
COVERED |= __import__("test_bitcast").COVERED  # Bitcast
COVERED |= __import__("test_bucketize").COVERED  # Bucketize
COVERED |= __import__("test_matrix_diag").COVERED  # MatrixDiag(Part)(V2, V3), MatrixSetDiagV2
COVERED |= __import__("test_custom_gradient").COVERED  # IdentityN (custom_gradient)
COVERED |= __import__("test_stateless_random").COVERED  # TF's stateless random ops
COVERED |= __import__("test_backprop_kernels").COVERED  # TF's gradient ops (ReluGrad...)
SHAPES = [(0,), (1,), (7,), (2, 3, 4), (BIG,)]
SAME_SHAPES = [((0,), (0,)), ((1,), (1,)), ((7,), (7,)), ((BIG,), (BIG,))]
pytestmark = pytest.mark.parametrize("device", DEVICES)


def lean_on_gpu(device, dtype, keep=(F32, I32)):
    """Each GPU case compiles a kernel (NVRTC): the full dtype matrix runs on the CPU,
    the common dtypes on the GPU."""
    if device == "GPU" and dtype not in keep:
        pytest.skip("dtype matrix on the CPU; float32 and int32 on the GPU (compile time)")


# ----------------------------------------------------------- elementwise vs REF

@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op, ds in UNARY.items() for d in ds])
def test_unary(device, op, dtype, shape):
    x = random_array(rng_for(op, dtype, shape), shape, dtype, specials=True)
    check_against_ref(device, make_node(op, [dtype], dtype), x)


@pytest.mark.parametrize("shapes", SAME_SHAPES + BROADCASTS, ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in ARITHMETIC + COMPARISON
                                      for d in (ALL if op == "Equal" else NUMERIC)])
def test_binary(device, op, dtype, shapes):
    if shapes in BROADCASTS:
        lean_on_gpu(device, dtype, keep=(F32, I32, F16))
    x, y = binary_inputs(op, dtype, shapes)
    got = check_against_ref(device, make_node(op, [dtype, dtype], out_dtype_of(op, dtype)),
                            x, y)
    assert got.shape == np.broadcast_shapes(*shapes)


@pytest.mark.parametrize("shapes", [((7,), (7,), (7,)), ((0,), (0,), (0,)), ((), (), ()),
                                    ((3, 1), (1, 4), ()), ((4,), (3, 1), (2, 1, 1)),
                                    ((BIG,), (BIG,), (1,))], ids=str)
@pytest.mark.parametrize("dtype", ALL)
def test_select(device, dtype, shapes):
    rng = rng_for("SelectV2", dtype, shapes)
    cond = random_array(rng, shapes[0], BOOL)
    x, y = (random_array(rng, s, dtype) for s in shapes[1:])
    got = check_against_ref(device, make_node("SelectV2", [BOOL, dtype, dtype], dtype),
                            cond, x, y)
    np.testing.assert_array_equal(got, np.where(cond, x, y))


@pytest.mark.parametrize("src,dst", [(s, d) for s in ALL for d in ALL])
def test_cast(device, src, dst):
    rng = rng_for("Cast", src, dst)
    x = random_array(rng, (3, 5), src)
    if src.kind == "f":
        x[0, :3] = [0.0, -0.0, 2.75]      # zeros -> False, truncation toward zero
        x[1, :2] = [-2.75, 0.5]
    for inp in (x, x.T):                  # also a non-contiguous input
        got = check_against_ref(device, make_node("Cast", [src], dst, {"DstT": dst}), inp)
        assert_same(got, inp.astype(dst))


# ------------------------------------------------------------ structural ops

@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("a_shape,b_shape,ta,tb", [
    *MATMUL_CASES, ((300, 257), (257, 129), False, False)], ids=str)
def test_matmul(device, dtype, a_shape, b_shape, ta, tb):
    rng = rng_for("MatMul", dtype, a_shape, b_shape)
    a, b = random_array(rng, a_shape, dtype, low=-5, high=5), \
        random_array(rng, b_shape, dtype, low=-5, high=5)
    node = make_node("MatMul", [dtype, dtype], dtype, {"transpose_a": ta, "transpose_b": tb})
    tolerance = {F16: {"rtol": 5e-3, "atol": 5e-2}, F32: {"rtol": 1e-4, "atol": 1e-4},
                 F64: {"rtol": 1e-10, "atol": 1e-10}}.get(dtype, {})
    got = check_against_ref(device, node, a, b, **tolerance)
    a2 = np.swapaxes(a, -1, -2) if ta else a
    b2 = np.swapaxes(b, -1, -2) if tb else b
    assert got.shape == np.matmul(a2, b2).shape


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("in_shape,target", [
    ((6,), (2, 3)), ((2, 3), (-1,)), ((2, 3, 4), (4, -1)), ((0, 3), (3, 0)), ((1,), ()),
    ((), (1, 1))], ids=str)
def test_reshape(device, dtype, in_shape, target):
    x = random_array(rng_for("Reshape", in_shape), in_shape, dtype)
    got = check_against_ref(device, make_node("Reshape", [dtype], dtype, {"shape": target}), x)
    np.testing.assert_array_equal(got, x.reshape(target))


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("in_shape,perm", [
    ((2, 3), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (0, 1, 2)), ((0, 3), (1, 0)),
    ((), ())], ids=str)
def test_transpose(device, dtype, in_shape, perm):
    x = random_array(rng_for("Transpose", in_shape), in_shape, dtype)
    got = check_against_ref(device, make_node("Transpose", [dtype], dtype, {"perm": perm}), x)
    np.testing.assert_array_equal(got, np.transpose(x, perm))
    assert got.flags.c_contiguous


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shapes,axis", [
    (((2, 3), (2, 4)), 1), (((1, 3), (2, 3), (0, 3)), 0), (((7,),), 0),
    (((2, 0, 2), (2, 5, 2)), 1)], ids=str)
def test_concat(device, dtype, shapes, axis):
    rng = rng_for("ConcatV2", shapes)
    xs = [random_array(rng, s, dtype) for s in shapes]
    node = make_node("ConcatV2", [dtype] * len(xs), dtype, {"axis": axis})
    got = check_against_ref(device, node, *xs)
    np.testing.assert_array_equal(got, np.concatenate(xs, axis=axis))


# ---------------------------------------------------------------- reductions

FULL_CASES = [case for case in REDUCE_CASES if case[0] == (3, 4, 5)]  # the axis matrix
LARGE_REDUCE_CASES = [((BIG,), (0,), False), ((1000, 1001), (1,), True),
                      ((1000, 1001), (0,), False)]


@pytest.mark.parametrize("shape,axes,keepdims", REDUCE_CASES + LARGE_REDUCE_CASES, ids=str)
@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reduction(device, op, dtype, shape, axes, keepdims):
    if (shape, axes, keepdims) in FULL_CASES and axes not in [(1,), (0, 1, 2)]:
        lean_on_gpu(device, dtype)
    x = random_array(rng_for(op, dtype, shape, axes), shape, dtype)
    node = make_node(op, [dtype], dtype, {"axis": axes, "keepdims": keepdims})
    empty = 0 in [shape[a] for a in axes]
    got = check_against_ref(device, node, x, **reduction_tolerance(op, dtype, x, axes))
    if empty and op == "Mean" and dtype.kind == "i":   # TF 2.21's (an empty Max/Min: its identity)
        assert not got.any()
    numpy_fn = {"Sum": np.sum, "Mean": np.mean, "Max": np.max, "Min": np.min}[op]
    if dtype.kind == "f" and not empty:
        with np.errstate(all="ignore"):
            direct = numpy_fn(x.astype(F64), axis=axes, keepdims=keepdims)
        assert_same(got.astype(F64), np.asarray(direct), dtype,
                    **reduction_tolerance(op, dtype, x, axes))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axes,numpy_axes", [((1, -1), (1,)), ((0, 0), (0,)), ((1, 1), (1,)),
                                             ((0, 1, -1), (0, 1))], ids=str)
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reduction_over_repeated_axes_reduces_their_set(device, op, axes, numpy_axes,
                                                        keepdims):
    """TF1 reduces over the *set* of the axes it is given: an axis named twice, or as
    both 1 and -1, is reduced once (a node can carry repeats: one built by
    ``create_op``, or for an input whose rank the graph did not know).  17 columns: the
    CPU's transpose-free column path takes axis 0."""
    x = random_array(rng_for("repeated axes", op, axes), (3, 17), F32)
    node = make_node(op, [F32], F32, {"axis": axes, "keepdims": keepdims})
    got = check_against_ref(device, node, x, **reduction_tolerance(op, F32, x, numpy_axes))
    numpy_fn = {"Sum": np.sum, "Mean": np.mean, "Max": np.max, "Min": np.min}[op]
    assert_same(got, numpy_fn(x, axis=numpy_axes, keepdims=keepdims),
                **reduction_tolerance(op, F32, x, numpy_axes))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["Max", "Min", "Sum"])
def test_reduction_nan_propagates(device, op, dtype):
    x = random_array(rng_for(op, dtype), (4, 9), dtype)
    x[1, 4] = np.nan
    x[2, 0] = np.nan
    node = make_node(op, [dtype], dtype, {"axis": (1,), "keepdims": False})
    got = check_against_ref(device, node, x, **reduction_tolerance(op, dtype, x, (1,)))
    assert np.isnan(got[[1, 2]]).all() and not np.isnan(got[[0, 3]]).any()


def test_integer_mean_truncates_toward_zero(device):
    x = np.array([[-7, 0], [7, 0], [-5, -4], [2**31 - 1, 1]], np.int32)
    node = make_node("Mean", [I32], I32, {"axis": (1,), "keepdims": False})
    expected = np.array([-3, 3, -4, -(2**30)], np.int32)   # last: the int32 sum wrapped
    for where in ("REF", device):
        np.testing.assert_array_equal(run_on(where, node, x), expected)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("shape,axis", [((7,), 0), ((1,), 0), ((3, 4, 5), 0), ((3, 4, 5), 1),
                                        ((3, 4, 5), 2), ((0, 4), 1), ((BIG,), 0)], ids=str)
def test_argmax(device, dtype, shape, axis):
    x = random_array(rng_for("ArgMax", dtype, shape), shape, dtype, low=-2, high=3)  # ties
    got = check_against_ref(device, make_node("ArgMax", [dtype], I64, {"axis": axis}), x)
    np.testing.assert_array_equal(got, np.argmax(x, axis=axis))


@pytest.mark.parametrize("dtype", FLOATS)
def test_argmax_nan_ties_and_empty(device, dtype):
    # TF 2.21's CPU kernel (Eigen's tuple reducer), recorded: ties go to the first, a NaN
    # never wins, a row of NaN and -inf (inf for ArgMin) is 0
    x = np.array([[1, 3, 3, 2], [1, np.nan, 5, np.nan], [np.nan, 9, 9, 9],
                  [np.nan, np.nan, np.nan, np.nan], [np.nan, -np.inf, np.inf, 4],
                  [-np.inf, np.nan, -np.inf, np.nan], [4, np.nan, 1, 1]], dtype)
    node = make_node("ArgMax", [dtype], I64, {"axis": 1})
    least = make_node("ArgMin", [dtype], I64, {"axis": 1})
    for where in ("REF", device):
        np.testing.assert_array_equal(run_on(where, node, x), [1, 2, 1, 0, 2, 0, 0])
        np.testing.assert_array_equal(run_on(where, least, -x), [1, 2, 1, 0, 2, 0, 0])
        np.testing.assert_array_equal(run_on(where, least, x), [0, 0, 1, 0, 1, 0, 2])
        with pytest.raises(InvalidArgumentError, match="argmax_node"):
            run_on(where, node, np.zeros((2, 0), dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,axis", [((7,), 0), ((1,), 0), ((3, 4, 5), 0), ((3, 4, 5), 1),
                                        ((3, 4, 5), 2), ((2, 0), 1), ((0, 3), 1),
                                        ((4, 250_001), 1)], ids=str)
def test_softmax(device, dtype, shape, axis):
    x = random_array(rng_for("Softmax", dtype, shape), shape, dtype)
    got = check_against_ref(device, make_node("Softmax", [dtype], dtype, {"axis": axis}), x,
                            **({"atol": 1e-6} if dtype == F32 else {}))
    if got.size:
        np.testing.assert_allclose(got.astype(F64).sum(axis=axis), 1.0, rtol=3e-3)


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_huge_inputs_stay_finite(device, dtype):
    x = np.array([[1e4, -1e4, 0.0, 1e4], [-1e4, -1e4, -1e4, -1e4]], dtype)
    node = make_node("Softmax", [dtype], dtype, {"axis": 1})
    for where in ("REF", device):
        y = run_on(where, node, x)
        assert np.isfinite(y).all()
        assert_same(y, np.array([[0.5, 0, 0, 0.5], [0.25] * 4], dtype))


def test_non_contiguous_and_float16_inputs(device):
    x = random_array(rng_for("nc"), (6, 8), F16)
    add = make_node("Add", [F16, F16], F16)
    check_against_ref(device, add, x.T, x.T[0])          # (8, 6) + strided (6,) bias
    total = make_node("Sum", [F16], F16, {"axis": (0,), "keepdims": False})
    check_against_ref(device, total, x.T, **reduction_tolerance("Sum", F16, x.T, (0,)))


# ------------------------------------------------------- errors, coverage, threads

def test_runtime_errors_name_the_node(device):
    cases = [
        (make_node("Add", [F32, F32], F32, name="my_add"),
         (np.ones(3, F32), np.ones(4, F32)), r"my_add': Incompatible shapes: \[3\] vs\. \[4\]$"),
        (make_node("MatMul", [F32, F32], F32, name="mm"),
         (np.ones((2, 3), F32), np.ones((4, 2), F32)), r"\[2,3\]"),
        (make_node("Reshape", [F32], F32, {"shape": (5, -1)}, name="rs"),
         (np.ones((2, 3), F32),), r"\[2,3\]"),
        (make_node("Sum", [F32], F32, {"axis": (3,), "keepdims": False}, name="sm"),
         (np.ones((2, 3), F32),), "axis 3"),
        (make_node("ConcatV2", [F32, F32], F32, {"axis": 0}, name="cc"),
         (np.ones((2, 3), F32), np.ones((2, 4), F32)), r"\[2,4\]"),
        (make_node("SelectV2", [BOOL, F32, F32], F32, name="sel"),
         (np.ones(3, bool), np.ones(3, F32), np.ones(2, F32)), r"\[3\] vs\. \[3\] vs\. \[2\]"),
    ]
    for where in ("REF", device):
        for node, inputs, pattern in cases:
            with pytest.raises(InvalidArgumentError, match=pattern) as info:
                run_on(where, node, *inputs)
            assert info.value.node_name == node.name and f"'{node.name}'" in str(info.value)


# TF1's queues: host-side session resources (test_queues.py runs their kernels)
QUEUE_OPS = {"FIFOQueueV2", "RandomShuffleQueueV2", "PaddingFIFOQueueV2", "PriorityQueueV2",
             "QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2",
             "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2", "QueueIsClosedV2",
             # and TF1's readers (test_queue_pipelines.py runs theirs)
             "TFRecordReaderV2", "FixedLengthRecordReaderV2", "TextLineReaderV2",
             "WholeFileReaderV2", "IdentityReaderV2", "ReaderReadV2", "ReaderReadUpToV2",
             "ReaderNumRecordsProducedV2", "ReaderNumWorkUnitsCompletedV2", "ReaderResetV2"}
# TF1's conditional accumulators: host-side session resources (test_accumulators.py)
ACCUMULATOR_OPS = {"ConditionalAccumulator", "SparseConditionalAccumulator",
                   "AccumulatorApplyGradient", "AccumulatorTakeGradient",
                   "AccumulatorNumAccumulated", "AccumulatorSetGlobalStep",
                   "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient"}
# TF1's lookup tables: host-side session resources (test_lookup_tables.py)
LOOKUP_OPS = {"HashTableV2", "MutableHashTableV2", "MutableDenseHashTableV2",
              "InitializeTableV2", "LookupTableImportV2",
              "InitializeTableFromTextFileV2", "LookupTableFindV2", "LookupTableSizeV2",
              "LookupTableInsertV2", "LookupTableRemoveV2", "LookupTableExportV2"}
MATH_SPECIAL_OPS = ("BesselJ0", "BesselJ1", "BesselY0", "BesselY1", "BesselK0", "BesselK0e",
                    "BesselK1", "BesselK1e", "Dawsn", "Expint", "FresnelCos", "FresnelSin",
                    "Spence")
HOST_ONLY = {"StringFormat", "PrintV2",   # tf.print: strings, written on the host
             "GetSessionHandle", "GetSessionTensor", "DeleteSessionTensor",  # its store
             "GuaranteeConst", "Timestamp",
             "MakeDatasetIterator", "DatasetIteratorGetNext", "DatasetIteratorHandle",
             "DatasetIteratorGetNextFromHandle", "DatasetOptionalGetValue",
             "DatasetWriteTFRecord", "DatasetReduce", "PyFunc", "PyFuncStateless",
             "LogUniformCandidateSampler", "UniformCandidateSampler", "ParseSingleExample",
             "LearnedUnigramCandidateSampler", "FixedUnigramCandidateSampler",
             "AllCandidateSampler", "ComputeAccidentalHits", "StatelessRandomPoisson",
             "StatelessRandomGammaV3", "StatelessRandomBinomial",
             "StatelessParameterizedTruncatedNormal", "RandomIndexShuffle",
             "ParseExampleV2", "DecodeRaw", "ParseSequenceExampleV2",
             "ParseSingleSequenceExample", "SerializeTensor", "ParseTensor", "DecodeJSONExample", "CountUpTo", "RestoreV2", "ReadFile", "WriteFile",
             "DecodeWav", "EncodeWav", "DecodeCompressed",   # file bytes, on the host
             "QuantizeV2", "Dequantize",     # quantized values live on the host
             "Betainc",                      # a continued fraction, on the host
             *MATH_SPECIAL_OPS, "NextAfter",  # float64 numpy, on the host
             "MatchingFiles", *QUEUE_OPS, *IMAGE_FILE_OPS, *ACCUMULATOR_OPS, *LOOKUP_OPS,
             *SPARSE_OPS, "EditDistance", *FRACTIONAL_POOL_OPS, "ExtractVolumePatches", *SPARSE_SERIALIZATION_OPS, *COUNT_OPS, "Lu", "MatrixSquareRoot",
             "MatrixLogarithm", "TridiagonalSolve", "TridiagonalMatMul", *STRING_OPS, *REGEX_OPS, *SPLIT_OPS, DECODE_CSV,
             *STRING_HASHING_OPS, *STRING_JOIN_OPS, *RAGGED_OPS, *UNICODE_OPS,
             *__import__("test_signal").COVERED}   # complex values stay on the host
CPU_ONLY = {MATMUL_GRADIENT_DESCENT, MATMUL_ADAM, MAX_POOL_RELU_GRAD,
            CONV2D_BIAS, MATMUL_BIAS, MATMUL_RELU_GRAD}   # the optimizer's CPU folds


def test_every_ref_op_is_covered(device):
    # The state kernels (constants, placeholders, variables, random streams) need a
    # session's resources, and a cluster's _Send/_Recv a rendezvous: the session and
    # cluster tests run them.  So do the optimizers' updates (reference/training.py):
    # test_training_kernels.py runs those.  The control-flow drivers run functions a
    # session plans: test_control_flow*.py runs them.
    from nn_cases import NN_OPS
    from test_array_ops import ARRAY_OPS
    from test_batch_norm import OPS as BATCH_NORM_OPS
    from test_scans_and_nd import OPS as SCAN_AND_ND_OPS
    from test_top_k import TOP_K_OPS
    from test_image import IMAGE_OPS
    from test_image_boxes import BOX_OPS
    from test_image_crop import CROP_OPS
    from test_image_resample import RESAMPLE_OPS
    from test_image_draw import DRAW_OPS
    from test_image_glimpse import GLIMPSE_OPS
    from test_space_ops import SPACE_OPS
    from test_ctc import CTC_OPS

    # each family's suite lists the ops it checks
    covered = (COVERED | ARRAY_OPS | NN_OPS | TOP_K_OPS | set(BATCH_NORM_OPS)
               | SCAN_AND_ND_OPS)
    covered |= IMAGE_OPS | BOX_OPS | CROP_OPS | RESAMPLE_OPS | DRAW_OPS | SPACE_OPS
    covered |= CTC_OPS
    covered |= GLIMPSE_OPS
    needs_session = {"devsession.kernels.reference.state",
                     "devsession.kernels.reference.training",
                     "devsession.kernels.reference.sparse_training",  # test_sparse_apply.py
                     "devsession.kernels.reference.control_flow",
                     "devsession.kernels.reference.dataset",   # test_data.py runs these
                     "devsession.kernels.reference.dataset_writers",  # test_data_more.py
                     "devsession.kernels.reference.script",    # and test_py_func.py these
                     "devsession.kernels.reference.index_shuffle",  # test_index_shuffle
                     "devsession.kernels.reference.stateless_random_rates",  # and
                     # test_stateless_rates.py these
                     "devsession.kernels.reference.candidate_sampling",  # and these
                                                                # test_candidate_sampling.py
                     "devsession.kernels.reference.random",    # test_random_categorical.py
                     "devsession.kernels.reference.random_rates",  # test_random_ops_tf_
                                                                   # values.py
                     "devsession.kernels.reference.image_sample",  # test_image_sample.py
                     "devsession.kernels.reference.parsing",   # and test_parsing.py these
                     "devsession.kernels.reference.sequence_parsing",  # and
                     "devsession.kernels.reference.serialization",  # test_sequence_parsing
                     "devsession.kernels.reference.sparse",    # and test_sparse.py these
                     "devsession.kernels.reference.sparse_add",   # test_sparse.py
                     "devsession.kernels.reference.sparse_slicing",   # and
                     "devsession.kernels.reference.sparse_math",  # test_sparse_slicing.py
                     "devsession.kernels.reference.sparse_cross",  # test_sparse_cross.py
                     "devsession.kernels.reference.edit_distance",  # test_edit_distance.py
                     "devsession.kernels.reference.ragged",  # test_ragged.py
                     "devsession.kernels.reference.unicode",  # and its Unicode cases
                     "devsession.kernels.reference.fractional_pool",  # test_fractional_
                                                                     # pool.py
                     "devsession.kernels.reference.volume_patches",  # test_volume_
                                                                    # patches.py
                     "devsession.kernels.reference.session_ops",  # test_session_handles.py
                     "devsession.kernels.reference.guarantee_const",  # and
                     "devsession.kernels.reference.timestamp",  # test_framework_names.py
                     "devsession.kernels.reference.quantize",  # test_quantize.py
                     "devsession.kernels.reference.audio",  # tf1_programs/p72_audio_
                     "devsession.kernels.reference.compression",  # files.py these two
                     "devsession.kernels.reference.betainc",  # tf1_programs/p75_betainc
                     "devsession.kernels.reference.math_special",  # tf1_programs/p76_math_
                     "devsession.kernels.reference.next_after",  # special.py these two
                     "devsession.kernels.reference.linalg_lu",  # test_linalg_more.py
                     "devsession.kernels.reference.linalg_sqrtm",  # these two
                     "devsession.kernels.reference.linalg_tridiagonal",  # these three
                     "devsession.kernels.reference.sparse_bincount",  # test_sparse_bincount.py
                     "devsession.kernels.reference.sparse_serialization",  # test_sparse_
                                                                   # serialization.py
                     "devsession.kernels.reference.strings",   # and test_string_ops*.py
                     "devsession.kernels.reference.string_hashing",  # test_string_joins.py
                     "devsession.kernels.reference.string_joins",    # these two
                     "devsession.kernels.reference.string_regex",  # these three
                     "devsession.kernels.reference.decode_csv",
                     "devsession.kernels.reference.queues",    # and test_queues.py these
                     "devsession.kernels.reference.accumulators",  # test_accumulators.py
                     "devsession.kernels.reference.lookup",    # test_lookup_tables.py
                     "devsession.kernels.reference.readers",   # test_queue_pipelines.py
                     "devsession.kernels.reference.file_io",  # test_file_io.py
                     "devsession.kernels.reference.print_v2",  # test_print_v2.py
                     "devsession.kernels.reference.image_files",  # test_image_files.py
                     "devsession.kernels.reference.complex_math",  # and test_signal.py
                     "devsession.kernels.reference.fft",           # these two
                     "devsession.kernels.reference.stateful_random",  # test_random_
                                                                      # generator.py
                     "devsession.kernels.reference.checkpoint_io"}  # test_init_from_
                                                                     # checkpoint.py
    computing = {op for op in registered_ops("REF") if not op.startswith("_")
                 and lookup_kernel(op, "REF").__module__ not in needs_session}
    assert computing == covered
    assert registered_on(device) >= covered
    if device in ("GPU", STANDIN):
        # the kernel modules' ops (not a cluster's host-only _Send/_Recv, nor test ops)
        # (the optimizer folds a product into its SGD update only on the CPU, where one
        # BLAS call can do both: optimizer/gemm_updates.py)
        # (the dataset iterators, PyFunc, the candidate samplers, the Example
        # parsers and DecodeRaw are host-only, as TF's: GPU sessions place them on the CPU)
        missing = {op for op in registered_ops("CPU") - registered_on(device) - CPU_ONLY
                   - HOST_ONLY
                   if lookup_kernel(op, "CPU").__module__.startswith("devsession.kernels.")}
        assert not missing, f"ops without a GPU kernel: {sorted(missing)}"
        assert "_Transfer" in registered_on(device)


def test_kernels_from_eight_threads(device):
    xp = array_module(device)
    add = kernel_on(device, make_node("Add", [F32, F32], F32))
    total = kernel_on(device, make_node("Sum", [F32], F32, {"axis": (1,), "keepdims": False}))
    x = xp.arange(BIG, dtype=xp.float32)
    rows = xp.ones((64, 4096), xp.float32)
    host = np.arange(BIG, dtype=np.float32)

    def as_host(a):
        return a if xp is np else xp.asnumpy(a)

    def work(k):
        for _ in range(5):
            np.testing.assert_array_equal(as_host(add(x, xp.asarray(np.float32(k)))),
                                          host + np.float32(k))
            np.testing.assert_array_equal(as_host(total(rows * k)), np.full(64, 4096.0 * k))

    run_in_threads(work, 8, together=True)


@pytest.mark.parametrize("shapes", SAME_SHAPES + BROADCASTS, ids=str)
def test_logical_and(device, shapes):
    rng = rng_for("LogicalAnd", shapes)
    x, y = (random_array(rng, s, BOOL) for s in shapes)
    got = check_against_ref(device, make_node("LogicalAnd", [BOOL, BOOL], BOOL), x, y)
    np.testing.assert_array_equal(got, np.logical_and(x, y))
