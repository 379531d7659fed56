"""devsession: TF1-style sessions that run dataflow graphs on the CPU (numba kernels),
on a CUDA GPU (cupy) or across gRPC workers.

    import devsession as ds
    a = ds.placeholder(ds.float32, (None,), name="a")
    c = a * 2.0 + 1.0
    with ds.Session() as sess:
        print(sess.run(c, {a: [1.0, 2.0]}))

Importing this package imports neither numba, cupy nor grpc: kernels and transports load
when a session first needs them.
"""

from . import errors, math, nn
from .device_spec import DeviceSpec
from .devices import DeviceAttributes, list_local_devices
from .dtypes import DType, as_dtype, bool_, float16, float32, float64, int32, int64
from .graph import (Graph, Operation, Tensor, control_dependencies, convert_to_tensor, device,
                    get_default_graph, name_scope, reset_default_graph)
from .graph_def import GraphDef, import_graph_def, read_graph_def, write_graph
from .ops import (abs, add, argmax, cast, concat, constant, divide, equal, exp, greater,
                  greater_equal, group, identity, less, less_equal, log, matmul, maximum,
                  minimum, multiply, negative, no_op, placeholder, pow, random_normal,
                  random_uniform, reduce_max, reduce_mean, reduce_min, reduce_sum, relu,
                  reshape, sigmoid, softmax, sqrt, square, subtract, tanh, transpose, truediv)
from .ops.array_composites import select as where  # TF1's: a vector condition picks rows
from .ops import (add_n, clip_by_value, expand_dims, fill, one_hot, ones, ones_like,
                  pad, rank, shape, size, slice, squeeze, stack, strided_slice, tile,
                  unsorted_segment_sum, unstack, zeros, zeros_like)
from .options import NodeStats, OptimizerOptions, RunMetadata, RunOptions, SessionOptions
from .session import BaseSession, Session, get_default_session
from .session_factory import (SessionFactory, Verdict, new_session, registered_session_factories,
                              reset)
from . import direct_session  # noqa: F401,E402  (registers DIRECT_SESSION)
from . import tf_cond_build  # noqa: F401,E402  (builds the Ifs of TF1 conds being imported)
from . import tf_while_build  # noqa: F401,E402  (builds the Whiles of TF1 loops being imported)
from .distributed.client import factory as _grpc_factory  # noqa: F401,E402  (GRPC_SESSION)
from .tensor_shape import Dimension, TensorShape
from .variables import Variable, global_variables, global_variables_initializer, \
    variables_initializer

# Training (API.md "Training")
from . import train
from .module import Module  # tf.Module: a container train.Checkpoint tracks
from .gradients import gradients
from .ops import assign, assign_add, assign_sub, stop_gradient
from .variables import trainable_variables

bool = bool_  # noqa: A001  (ds.bool, as tf.bool)
half, double = float16, float64   # TF1's other names of float16 and float64
newaxis = None  # x[ds.newaxis], as tf.newaxis

from .versions import *  # noqa: E402,F401,F403  (tf.VERSION, tf.GRAPH_DEF_VERSION...)
from .versions import VERSION as __version__  # noqa: E402  (the same string: versions.py)
from .tf_logging import get_logger  # noqa: E402  (tf.get_logger)

__all__ = [
    "errors", "math", "nn", "DeviceSpec", "DeviceAttributes", "list_local_devices", "DType",
    "as_dtype", "bool", "bool_", "half", "double", "Dimension", "float16", "float32",
    "float64", "int32", "int64", "Graph",
    "Operation", "Tensor", "control_dependencies", "convert_to_tensor", "device",
    "get_default_graph", "name_scope", "reset_default_graph", "GraphDef", "import_graph_def",
    "read_graph_def", "write_graph", "abs", "add", "argmax", "cast", "concat", "constant",
    "divide", "equal", "exp", "greater", "greater_equal", "group", "identity", "less",
    "less_equal", "log", "matmul", "maximum", "minimum", "multiply", "negative", "no_op",
    "placeholder", "pow", "random_normal", "random_uniform", "reduce_max", "reduce_mean",
    "reduce_min", "reduce_sum", "relu", "reshape", "sigmoid", "softmax", "sqrt", "square",
    "subtract", "tanh", "transpose", "truediv", "where", "NodeStats", "OptimizerOptions",
    "RunMetadata",
    "RunOptions", "SessionOptions", "BaseSession", "Session", "get_default_session",
    "SessionFactory", "Verdict", "new_session", "registered_session_factories", "reset",
    "TensorShape", "Variable", "Module", "global_variables", "global_variables_initializer",
    "variables_initializer",
    "add_n", "clip_by_value", "expand_dims", "fill", "gather", "one_hot", "ones",
    "ones_like", "pad", "rank", "shape", "size", "slice", "squeeze", "stack", "strided_slice",
    "tile", "unsorted_segment_sum", "unstack", "zeros", "zeros_like", "newaxis",
    "train", "gradients", "stop_gradient", "trainable_variables", "assign", "assign_add",
    "assign_sub", "get_logger",
]
__all__ += versions.__all__  # noqa: F405

from .ops import logical_and  # noqa: E402

__all__ += ["logical_and"]

# Control flow (TF1's tf.cond, tf.case, tf.while_loop, tf.Assert)
from .ops import Assert, case, cond, while_loop  # noqa: E402

__all__ += ["Assert", "case", "cond", "while_loop"]


# --- TF1 surface (branch tf1): the rest of TF1's graph-mode API ------------------------
from . import summary  # noqa: E402
from .config import ConfigProto, GPUOptions, GraphOptions  # noqa: E402
from .dtypes import (complex64, complex128, int8, int16, qint8, qint16,  # noqa: E402
                     qint32, quint8, quint16, string, uint8, uint16, uint32, uint64)
from .initializers import (constant_initializer, glorot_normal_initializer,  # noqa: E402
                           glorot_uniform_initializer, ones_initializer,
                           random_normal_initializer, random_uniform_initializer,
                           truncated_normal_initializer, variance_scaling_initializer,
                           zeros_initializer)
from .ops import (clip_by_global_norm, clip_by_norm, cos, global_norm,  # noqa: E402
                  reduce_logsumexp, sin)
from .ops import (add_n, arg_max, arg_min, argmin, ceil, diag, div, floor,  # noqa: E402
                  floor_div, floordiv, floormod, logical_and, logical_not, logical_or,
                  logical_xor, matrix_determinant, mod, not_equal, random_shuffle, range,
                  reciprocal, reduce_all, reduce_any, reduce_prod, round, rsqrt, sign,
                  set_random_seed, tensordot, truncated_normal, truncatediv, truncatemod,
                  unique)
from .session import InteractiveSession  # noqa: E402
from .variable_scope import (AUTO_REUSE, VariableScope, get_variable,  # noqa: E402
                             get_variable_scope, variable_scope)
from . import data, image, io, layers, losses, metrics, python_io  # noqa: E402
from .graph_keys import GraphKeys, add_to_collection, get_collection  # noqa: E402

from .ops.array import split  # noqa: E402
from .ops.state import placeholder_with_default  # noqa: E402
from .ops.masking import (boolean_mask, count_nonzero, linspace, reverse,  # noqa: E402
                          reverse_sequence, sequence_mask)
from .variables import local_variables, local_variables_initializer  # noqa: E402
from . import lookup  # noqa: E402  (tf.lookup: tables for words-to-ids pipelines)
from . import experimental  # noqa: E402  (tf.experimental: Optional)
from . import saved_model  # noqa: E402  (tf.saved_model: export for serving, load back)
from . import feature_column  # noqa: E402  (tf.feature_column: input_layer, linear_model)
from .lookup.tables import initialize_all_tables, tables_initializer  # noqa: E402
from .variables import (assert_variables_initialized,  # noqa: E402
                        report_uninitialized_variables)
from .ops.state import is_variable_initialized  # noqa: E402
from .train.moving_averages import moving_average_variables  # noqa: E402
from .ops.elementwise import squared_difference  # noqa: E402
from .ops.reduce import cumprod, cumsum  # noqa: E402
from .ops.script import numpy_function, py_func  # noqa: E402
from .ops.functional import foldl, foldr, map_fn, scan  # noqa: E402
from .ops.einsum import einsum  # noqa: E402
from .ops.file_io import matching_files, read_file, write_file  # noqa: E402
from .ops.parsing import (FixedLenFeature, FixedLenSequenceFeature,  # noqa: E402
                          SparseFeature, VarLenFeature, decode_raw, parse_example,
                          parse_single_example)
from .ops.sequence_parsing import (parse_sequence_example,  # noqa: E402
                                   parse_single_sequence_example)
from .ops.serialization import (decode_json_example, parse_tensor,  # noqa: E402
                                serialize_tensor)
from .ops.edit_distance import edit_distance  # noqa: E402
from .ops.sparse_mask import sparse_mask  # noqa: E402
from .ops.sparse_matmul import sparse_matmul  # noqa: E402
from .ops.session_ops import (delete_session_tensor, get_session_handle,  # noqa: E402
                              get_session_tensor)
__all__ += ["get_session_handle", "get_session_tensor", "delete_session_tensor"]
from .ops.guarantee_const import guarantee_const  # noqa: E402
from .ops.timestamp import timestamp  # noqa: E402
from .ops.py_function import py_function  # noqa: E402
from .ops.vectorized_map import vectorized_map  # noqa: E402
from .cast_aliases import saturate_cast, to_complex64, to_complex128  # noqa: E402
from .gradient_wrappers import grad_pass_through, recompute_grad  # noqa: E402
from .scope_aliases import no_regularizer, op_scope, variable_op_scope  # noqa: E402
from .tensor_conversion_registry import register_tensor_conversion_function  # noqa: E402
from .tensor_predicates import is_symbolic_tensor  # noqa: E402
from .type_spec import SparseTensorSpec, TensorSpec, TypeSpec, type_spec_from_value  # noqa: E402
__all__ += ["TensorSpec", "TypeSpec", "SparseTensorSpec", "type_spec_from_value"]
from .variable_creator import variable_creator_scope  # noqa: E402
__all__ += ["variable_creator_scope"]
from .variable_sync import VariableAggregation, VariableSynchronization  # noqa: E402
__all__ += ["VariableAggregation", "VariableSynchronization"]
# TF1's tf.dtypes.cast / saturate_cast / as_string / complex: dtypes.py sits at the bottom of
# the import graph and imports no op, so the functions are attached to it here
from .ops.strings import as_string as _as_string  # noqa: E402
from .ops.complex_math import complex as _complex  # noqa: E402
dtypes.cast, dtypes.saturate_cast, dtypes.as_string, dtypes.complex = (
    cast, saturate_cast, _as_string, _complex)
__all__ += ["guarantee_const", "timestamp", "py_function", "vectorized_map", "saturate_cast",
            "to_complex64", "to_complex128", "grad_pass_through", "recompute_grad",
            "no_regularizer", "op_scope", "variable_op_scope",
            "register_tensor_conversion_function", "is_symbolic_tensor"]
from .ops.sparse_serialization import (deserialize_many_sparse,  # noqa: E402
                                       serialize_many_sparse, serialize_sparse)
from .ops.state_scatter import (scatter_add, scatter_nd_add, scatter_nd_sub,  # noqa: E402
                                scatter_nd_update, scatter_sub, scatter_update)
from .ops.state_scatter import (scatter_div, scatter_max, scatter_min,  # noqa: E402
                                scatter_mul)
from .ops.gather_nd import (scatter_nd, tensor_scatter_nd_add,  # noqa: E402
                            tensor_scatter_nd_sub, tensor_scatter_nd_update)
from .ops.gather_nd import tensor_scatter_nd_max, tensor_scatter_nd_min  # noqa: E402
from .ops.gather_options import gather, gather_nd  # noqa: E402  (batch_dims too)

initialize_all_variables = global_variables_initializer   # TF1's older names
initialize_local_variables = local_variables_initializer
lin_space = linspace
initialize_variables = variables_initializer
all_variables = global_variables
random_crop = image.random_crop                      # TF1's tf.random_crop
tensor_scatter_update = tensor_scatter_nd_update     # TF 1.14's names
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub

__all__ += [
    "summary", "ConfigProto", "GPUOptions", "GraphOptions", "int8", "int16", "string", "uint8", "uint16", "uint32", "uint64",
    "qint8", "quint8", "qint16", "quint16", "qint32",
    "complex64", "complex128",
    "constant_initializer", "glorot_normal_initializer", "glorot_uniform_initializer",
    "ones_initializer", "random_normal_initializer", "random_uniform_initializer",
    "truncated_normal_initializer", "variance_scaling_initializer", "zeros_initializer",
    "add_n", "arg_max", "arg_min", "argmin", "ceil", "diag", "div", "floor", "floor_div",
    "floordiv", "floormod", "logical_and", "logical_not", "logical_or", "logical_xor",
    "matrix_determinant", "mod", "not_equal", "random_shuffle", "range", "reciprocal",
    "reduce_all", "reduce_any", "reduce_prod", "round", "rsqrt", "sign", "set_random_seed",
    "tensordot", "truncated_normal", "truncatediv", "truncatemod", "unique",
    "InteractiveSession", "AUTO_REUSE", "VariableScope", "get_variable", "get_variable_scope",
    "variable_scope", "data", "layers", "losses", "metrics", "GraphKeys", "add_to_collection",
    "image",
    "get_collection", "initialize_all_variables", "initialize_variables", "all_variables",
    "clip_by_global_norm", "clip_by_norm", "global_norm", "reduce_logsumexp", "sin", "cos",
    "split", "squared_difference", "moving_average_variables", "boolean_mask",
    "placeholder_with_default",
    "count_nonzero", "linspace", "lin_space", "reverse", "reverse_sequence", "sequence_mask",
    "local_variables",
    "local_variables_initializer", "tables_initializer", "initialize_all_tables", "lookup",
    "saved_model", "feature_column",
    "report_uninitialized_variables",
    "assert_variables_initialized", "is_variable_initialized", "cumsum", "cumprod",
    "gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
    "tensor_scatter_nd_sub", "tensor_scatter_update", "tensor_scatter_add",
    "tensor_scatter_sub", "py_func", "numpy_function", "scatter_update", "scatter_add",
    "scatter_sub", "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub", "map_fn", "scan",
    "scatter_mul", "scatter_div", "scatter_min", "scatter_max", "tensor_scatter_nd_min",
    "tensor_scatter_nd_max",
    "foldl", "foldr", "einsum", "random_crop", "io", "python_io", "read_file", "write_file",
    "matching_files",
    "parse_example", "parse_single_example", "FixedLenFeature", "VarLenFeature",
    "FixedLenSequenceFeature", "SparseFeature", "decode_raw",
    "parse_single_sequence_example", "parse_sequence_example", "serialize_tensor",
    "parse_tensor", "edit_distance", "decode_json_example", "serialize_sparse",
    "serialize_many_sparse", "deserialize_many_sparse", "sparse_mask", "sparse_matmul",
]

# --- TF1 math (branch tf1-math): ops, their tf.<name> spellings ---------------------------
from .ops import (acos, asin, atan, atan2, check_numerics, cosh, div_no_nan,  # noqa: E402
                  erf, erfc, expm1, is_finite, is_inf, is_nan, log1p, sinh, tan,
                  verify_tensor_all_finite)

__all__ += ["acos", "asin", "atan", "atan2", "check_numerics", "cosh", "div_no_nan", "erf",
            "erfc", "expm1", "is_finite", "is_inf", "is_nan", "log1p", "sinh", "tan",
            "verify_tensor_all_finite"]


# --- TF1 utility namespaces: tf.app, tf.flags, tf.logging, tf.gfile (pure Python) ------------
from . import app, flags  # noqa: E402
from . import tf_logging as logging  # noqa: E402  (ds.logging; the stdlib's stays `logging`)
from .io import gfile  # noqa: E402

__all__ += ["app", "flags", "logging", "gfile"]

from .ops import (broadcast_to, eye, matrix_band_part,  # noqa: E402
                  matrix_transpose, norm, to_double, to_float, to_int32, to_int64, trace)
from .ops.diagonals import matrix_diag, matrix_diag_part  # noqa: E402  (TF's V3 ops)

__all__ += ["broadcast_to", "eye", "matrix_band_part", "matrix_diag", "matrix_diag_part",
            "matrix_transpose", "norm", "to_double", "to_float", "to_int32", "to_int64",
            "trace"]

# TF1's tf.random, tf.linalg and tf.debugging (branch tf1-math)
from . import debugging, linalg, random  # noqa: E402
from . import mixed_precision  # noqa: E402  (tf.compat.v1.mixed_precision: loss scaling)
from . import audio  # noqa: E402  (tf.audio: WAV files)
from . import resource_loader  # noqa: E402  (tf.resource_loader: data files beside a script)
from .raw_op_aliases import (approx_top_k, conv, conv2d_backprop_filter_v2,  # noqa: E402
                             conv2d_backprop_input_v2)
from .ops.compression import decode_compressed  # noqa: E402  (tf.decode_compressed)
from .ops.betainc import betainc  # noqa: E402  (tf.betainc)

__all__ += ["debugging", "linalg", "random", "mixed_precision", "audio", "decode_compressed",
            "betainc",
            "resource_loader", "approx_top_k", "conv", "conv2d_backprop_filter_v2",
            "conv2d_backprop_input_v2"]

# TF1's tf.distributions, and tf.random_gamma / tf.random_poisson (ops/random_rates.py)
from . import distributions  # noqa: E402
from .ops.random_rates import random_gamma, random_poisson  # noqa: E402

__all__ += ["distributions", "random_gamma", "random_poisson"]

# TF1's math names (branch tf1-math-names): tf.acosh, tf.rint, tf.scalar_mul... and tf.bitwise
from . import bitwise  # noqa: E402
from .ops import (accumulate_n, acosh, asinh, atanh, clip_by_average_norm,  # noqa: E402
                  log_sigmoid, realdiv, rint, scalar_mul)

__all__ += ["bitwise", "accumulate_n", "acosh", "asinh", "atanh", "clip_by_average_norm",
            "log_sigmoid", "realdiv", "rint", "scalar_mul"]

# TF1's inverses, solves and decompositions (tf.svd, tf.qr, tf.cholesky, tf.matrix_inverse...)
from .ops.linalg_factor import (cholesky, qr, self_adjoint_eig,  # noqa: E402
                                self_adjoint_eigvals, svd)
from .ops.linalg_solve import (cholesky_solve, matrix_inverse, matrix_solve,  # noqa: E402
                               matrix_solve_ls, matrix_triangular_solve)
from .ops.linalg_sqrtm import matrix_square_root  # noqa: E402

__all__ += ["cholesky", "qr", "self_adjoint_eig", "self_adjoint_eigvals", "svd",
            "cholesky_solve", "matrix_inverse", "matrix_solve", "matrix_solve_ls",
            "matrix_triangular_solve", "matrix_square_root"]

from .ops import (Print, assert_equal, assert_greater, assert_greater_equal,  # noqa: E402
                  assert_less, assert_less_equal, assert_negative, assert_non_negative,
                  assert_non_positive, assert_none_equal, assert_positive)

__all__ += ["Print", "assert_equal", "assert_greater", "assert_greater_equal", "assert_less",
            "assert_less_equal", "assert_negative", "assert_non_negative",
            "assert_non_positive", "assert_none_equal", "assert_positive"]

from .ops import (assert_integer, assert_rank, assert_rank_at_least,  # noqa: E402
                  assert_scalar, assert_type)

__all__ += ["assert_integer", "assert_rank", "assert_rank_at_least", "assert_scalar",
            "assert_type"]

# --- special functions: TF1's top-level spellings (the rest: ds.math) -----------------------
from .ops import digamma, igamma, igammac, lbeta, lgamma, polygamma, zeta  # noqa: E402

__all__ += ["digamma", "igamma", "igammac", "lbeta", "lgamma", "polygamma", "zeta"]

# --- segment reductions, partitions, counts: TF1's top-level spellings ------------------------
from .ops import (bincount, dynamic_partition, dynamic_stitch,  # noqa: E402
                  histogram_fixed_width, histogram_fixed_width_bins, segment_max, segment_mean,
                  segment_min, segment_prod, segment_sum, sparse_segment_mean,
                  sparse_segment_sqrt_n, sparse_segment_sum, unsorted_segment_max,
                  unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod,
                  unsorted_segment_sqrt_n)

__all__ += ["bincount", "dynamic_partition", "dynamic_stitch", "histogram_fixed_width",
            "histogram_fixed_width_bins", "segment_max", "segment_mean", "segment_min",
            "segment_prod", "segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n",
            "sparse_segment_sum", "unsorted_segment_max", "unsorted_segment_mean",
            "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n"]

from .ops.random import multinomial  # noqa: E402  (TF1's tf.multinomial)
from .ops.space_depth import (batch_to_space, batch_to_space_nd,  # noqa: E402
                              depth_to_space, extract_image_patches, space_to_batch,
                              space_to_batch_nd, space_to_depth)

__all__ += ["multinomial", "batch_to_space", "batch_to_space_nd", "depth_to_space",
            "extract_image_patches", "space_to_batch", "space_to_batch_nd", "space_to_depth"]
from .ops.with_space_to_batch import required_space_to_batch_paddings  # noqa: E402
from .ops.volume_patches import extract_volume_patches  # noqa: E402

__all__ += ["required_space_to_batch_paddings", "extract_volume_patches"]

from . import queues as queue  # noqa: E402  (tf.queue.*)
from .queues import (FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase,  # noqa: E402
                     RandomShuffleQueue)

__all__ += ["queue", "FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase",
            "RandomShuffleQueue"]

from .accumulators import (ConditionalAccumulator, ConditionalAccumulatorBase,  # noqa: E402
                           SparseConditionalAccumulator)

__all__ += ["ConditionalAccumulator", "ConditionalAccumulatorBase",
            "SparseConditionalAccumulator"]

from .tensor_array import TensorArray  # noqa: E402

__all__ += ["TensorArray"]

from .ops.state import count_up_to  # noqa: E402
from .readers import (FixedLengthRecordReader, IdentityReader, ReaderBase,  # noqa: E402
                      TextLineReader, TFRecordReader, WholeFileReader)

__all__ += ["count_up_to", "FixedLengthRecordReader", "IdentityReader", "ReaderBase",
            "TextLineReader", "TFRecordReader", "WholeFileReader"]


# TF1 scripts written for TF2's compat module: tf.compat (tf.compat.v1 is devsession
# itself), the behaviour switches (no-ops: devsession runs graphs), tf.graph_util,
# tf.make_template, and the initializers tf.initializers adds
from . import compat, graph_util, initializers  # noqa: E402
from .execution_mode import (control_flow_v2_enabled, disable_control_flow_v2,  # noqa: E402
                             disable_eager_execution, disable_resource_variables,
                             disable_tensor_equality, disable_v2_behavior,
                             disable_v2_tensorshape, enable_control_flow_v2,
                             enable_v2_tensorshape, executing_eagerly,
                             executing_eagerly_outside_functions, resource_variables_enabled)
from .initializers import (orthogonal_initializer,  # noqa: E402
                           uniform_unit_scaling_initializer)
from .template import make_template  # noqa: E402

__all__ += ["compat", "graph_util", "initializers", "control_flow_v2_enabled",
            "disable_control_flow_v2", "disable_eager_execution", "disable_resource_variables",
            "disable_tensor_equality", "disable_v2_behavior", "disable_v2_tensorshape",
            "enable_control_flow_v2", "enable_v2_tensorshape", "executing_eagerly",
            "executing_eagerly_outside_functions", "resource_variables_enabled",
            "orthogonal_initializer", "uniform_unit_scaling_initializer", "make_template"]


# TF1's sparse tensors: tf.SparseTensor, tf.sparse_placeholder, tf.sparse.* (and their
# tf.sparse_<name> spellings)
from . import sparse  # noqa: E402
from .ops.sparse import (sparse_placeholder, sparse_reduce_sum, sparse_reorder,  # noqa: E402
                         sparse_reshape, sparse_tensor_dense_matmul, sparse_tensor_to_dense,
                         sparse_to_dense)
from .ops.sparse_add import sparse_add  # noqa: E402
from .ops.sparse_composites import (sparse_merge, sparse_reset_shape,  # noqa: E402
                                    sparse_retain, sparse_to_indicator, sparse_transpose)
from .ops.sparse_math import (sparse_maximum, sparse_minimum, sparse_reduce_max,  # noqa: E402
                              sparse_reduce_max_sparse, sparse_reduce_sum_sparse,
                              sparse_softmax)
from .ops.sparse_slicing import (sparse_concat, sparse_fill_empty_rows,  # noqa: E402
                                 sparse_slice, sparse_split)
from .sparse_tensor import SparseTensor, SparseTensorValue  # noqa: E402

__all__ += ["sparse", "SparseTensor", "SparseTensorValue", "sparse_placeholder",
            "sparse_reduce_sum", "sparse_reorder", "sparse_reshape",
            "sparse_tensor_dense_matmul", "sparse_tensor_to_dense", "sparse_to_dense",
            "sparse_add", "sparse_concat", "sparse_slice", "sparse_split",
            "sparse_fill_empty_rows", "sparse_reduce_max", "sparse_reduce_max_sparse",
            "sparse_reduce_sum_sparse", "sparse_softmax", "sparse_maximum", "sparse_minimum",
            "sparse_retain", "sparse_transpose", "sparse_reset_shape", "sparse_to_indicator",
            "sparse_merge"]

# TF1's ragged tensors: tf.RaggedTensor, tf.RaggedTensorSpec, tf.ragged.*
from . import ragged  # noqa: E402
from .ragged import RaggedTensor, RaggedTensorSpec  # noqa: E402

__all__ += ["ragged", "RaggedTensor", "RaggedTensorSpec"]


# TF1's string ops: tf.strings and the tf.<name> spellings (host kernels)
from . import strings  # noqa: E402
from .ops.decode_csv import decode_csv  # noqa: E402
from .ops.string_regex import regex_replace  # noqa: E402
from .ops.string_split import string_split  # noqa: E402
from .ops.strings import (as_string, decode_base64, encode_base64, reduce_join,  # noqa: E402
                          string_join, string_strip, string_to_hash_bucket_fast,
                          string_to_hash_bucket_strong, string_to_number, substr)
from .ops.string_hashing import fingerprint, string_to_hash_bucket  # noqa: E402

__all__ += ["strings", "decode_csv", "regex_replace", "as_string", "decode_base64",
            "encode_base64", "reduce_join", "string_join", "string_split", "string_strip",
            "string_to_hash_bucket_fast", "string_to_hash_bucket_strong", "string_to_number",
            "substr", "fingerprint", "string_to_hash_bucket"]


# TF1's gradient registration and custom gradients (gradients.py, custom_gradient.py)
from .custom_gradient import custom_gradient  # noqa: E402
from .gradient_registration import (NoGradient, NotDifferentiable,  # noqa: E402
                                    RegisterGradient, no_gradient)
from .gradients import AggregationMethod, UnconnectedGradients, hessians  # noqa: E402

__all__ += ["custom_gradient", "NoGradient", "NotDifferentiable", "RegisterGradient",
            "no_gradient", "AggregationMethod", "UnconnectedGradients", "hessians"]


# TF1's framework utilities: tensor values, collections, graph scopes, tf.tuple,
# tf.switch_case and tf.test's gradient checker
from . import test  # noqa: E402
from .compat import dimension_at_index, dimension_value  # noqa: E402
from .graph_keys import add_to_collections, get_collection_ref, model_variables  # noqa: E402
from .graph_scopes import colocate_with, container, init_scope  # noqa: E402
from .ops.control_flow_helpers import switch_case, tuple  # noqa: E402,A001
from .ops.identity_n import identity_n  # noqa: E402
from .tensor_util import (get_static_value, is_tensor, make_ndarray,  # noqa: E402
                          make_tensor_proto)
from .variable_scope import get_local_variable  # noqa: E402

__all__ += ["test", "dimension_at_index", "dimension_value", "add_to_collections",
            "get_collection_ref", "model_variables", "colocate_with", "container",
            "init_scope", "switch_case", "tuple", "identity_n", "get_static_value",
            "is_tensor", "make_ndarray", "make_tensor_proto", "get_local_variable"]

# partitioned variables: tf.fixed_size_partitioner and the other partitioners
from .partitioned_variables import (fixed_size_partitioner,  # noqa: E402
                                    min_max_variable_partitioner,
                                    variable_axis_size_partitioner)
from .variable_scope import create_partitioned_variables  # noqa: E402

__all__ += ["create_partitioned_variables", "fixed_size_partitioner",
            "min_max_variable_partitioner", "variable_axis_size_partitioner"]

from .ops.print_v2 import print_v2 as print  # noqa: E402,A001  (tf.print)

__all__ += ["print"]

# TF's array manipulation: tf.roll, tf.sort, tf.searchsorted, tf.repeat, tf.meshgrid, the set
# and index ops, diagonals, tf.cross, tf.ensure_shape...
from .ops.array_composites import (batch_gather, meshgrid, parallel_stack,  # noqa: E402
                                   repeat, reverse_v2, where_v2)
from .ops.array_order import argsort, roll, searchsorted, sort  # noqa: E402
from .ops.array_sets import (invert_permutation, setdiff1d,  # noqa: E402
                             unique_with_counts, unravel_index)
from .ops.array_shapes import (broadcast_dynamic_shape,  # noqa: E402
                               broadcast_static_shape, ensure_shape, shape_n)
from .ops.diagonals import diag_part, matrix_set_diag  # noqa: E402
from .ops.vectors import cross  # noqa: E402

__all__ += ["batch_gather", "meshgrid", "parallel_stack", "repeat", "reverse_v2", "where_v2",
            "argsort", "roll", "searchsorted", "sort", "invert_permutation", "setdiff1d",
            "unique_with_counts", "unravel_index", "broadcast_dynamic_shape",
            "broadcast_static_shape", "ensure_shape", "shape_n", "diag_part",
            "matrix_set_diag", "cross"]

from .confusion_matrix import confusion_matrix  # noqa: E402
from .ops.random import get_seed  # noqa: E402
from .ops.index_shuffle import random_index_shuffle  # noqa: E402  (TF's raw op)
from .proto.summary_pb2 import (Event, HistogramProto, LogMessage,  # noqa: E402
                                SessionLog, Summary, SummaryMetadata)

__all__ += ["confusion_matrix", "get_seed", "HistogramProto", "Summary", "SummaryMetadata",
            "random_index_shuffle", "Event", "SessionLog", "LogMessage"]

from .ops.debugging import add_check_numerics_ops  # noqa: E402
from . import sets  # noqa: E402  (tf.sets)
from . import quantization  # noqa: E402  (tf.quantization: fake quantization)
from .quantization import *  # noqa: E402,F401,F403  (TF1's tf.fake_quant_with_min_max_*)

__all__ += ["add_check_numerics_ops", "sets", "quantization"]
__all__ += quantization.__all__

from .ops.bitcast import bitcast  # noqa: E402

__all__ += ["bitcast"]

# TF1's complex numbers and tf.signal / tf.spectral (ops/complex_math.py, ops/fft.py)
from . import signal, spectral  # noqa: E402
from .ops.complex_math import angle, complex, conj, imag, real  # noqa: E402
from .ops.fft import fft, fft2d, fft3d, ifft, ifft2d, ifft3d  # noqa: E402

__all__ += ["signal", "spectral", "angle", "complex", "conj", "imag", "real", "fft", "fft2d",
            "fft3d", "ifft", "ifft2d", "ifft3d"]

# tf.nest: nested structures as TF's functions see them (nest.py)
from . import nest  # noqa: E402

__all__ += ["nest"]

# TF1's protocol buffers at the top level, with TF's field numbers (graph surgery builds
# NodeDefs and AttrValues; a MetaGraphDef's signatures hold TensorInfos), tf.OpError and
# tf.version (the version constants' module)
from . import versions as version  # noqa: E402
from .errors import OpError  # noqa: E402
from .proto.graph_pb2 import AttrValue, NameAttrList, NodeDef  # noqa: E402
from .proto.meta_graph_pb2 import MetaGraphDef, TensorInfo  # noqa: E402

__all__ += ["version", "OpError", "AttrValue", "NameAttrList", "NodeDef", "MetaGraphDef",
            "TensorInfo"]


# TF1's small names: tf.IndexedSlices and the conversions (indexed_slices.py), the rest of
# check_ops (ops/check_helpers.py), tf.manip
from . import manip  # noqa: E402
from .indexed_slices import (IndexedSlices, IndexedSlicesValue,  # noqa: E402
                             convert_to_tensor_or_indexed_slices,
                             convert_to_tensor_or_sparse_tensor)
from .ops.check_helpers import (assert_near, assert_proper_iterable,  # noqa: E402
                                assert_rank_in, assert_same_float_dtype, is_non_decreasing,
                                is_numeric_tensor, is_strictly_increasing)
from .ops.state_scatter import batch_scatter_update  # noqa: E402
# tf.convert_to_tensor densifies a gradient TF keeps as an IndexedSlices, tf.identity keeps
# it one (gradient_conversions.py); the graph's own functions stay as they are inside
from .gradient_conversions import convert_to_tensor, identity  # noqa: E402,F811

__all__ += ["manip", "batch_scatter_update", "IndexedSlices", "IndexedSlicesValue",
            "convert_to_tensor_or_indexed_slices", "convert_to_tensor_or_sparse_tensor",
            "assert_near", "assert_proper_iterable", "assert_rank_in",
            "assert_same_float_dtype", "is_non_decreasing", "is_numeric_tensor",
            "is_strictly_increasing"]

ragged.install_dispatch()   # tf.add(rt, 1), tf.reduce_sum(rt, axis=1)...: TF's ragged dispatch
from . import tf_legacy_ops  # noqa: E402,F401  (import_graph_def: TF's older and image op types)


def __getattr__(name: str):
    """``ds.Server`` and ``ds.ClusterSpec`` load the distributed runtime on first use,
    ``ds.profiler`` the model profiler, ``ds.raw_ops`` TF's op functions; a TF1 symbol devsession lacks raises
    ``UnsupportedTF1Error`` (an AttributeError) naming it (``devsession/unsupported.py``)."""
    if name in ("Server", "ClusterSpec"):
        from . import distributed

        return getattr(distributed, name)
    if name in ("profiler", "raw_ops"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    from .unsupported import TF1_NAMESPACES, UnsupportedNamespace, missing

    if name in TF1_NAMESPACES:
        return UnsupportedNamespace(name)
    raise missing("", name)
