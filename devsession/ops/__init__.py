"""Every op devsession knows, one module per family.

Each family module holds the family's ``OpDef``s (inputs, attrs, dtype and static-shape
inference, registered in ``registry.py``) beside the builder functions users call
(``ds.add``, ``ds.reduce_sum``, ...).  The same family names are used for the kernels
(``kernels/{reference,cpu,cuda}/<family>.py``):

=================  ===================================================================
``elementwise``    unary and binary math, comparisons, ``where``, ``cast``
``reduce``         ``reduce_sum/mean/max/min``, ``argmax``
``linalg``         ``matmul``
``linalg_solve``   ``matrix_inverse``, ``matrix_solve``, ``matrix_triangular_solve``,
                   ``matrix_solve_ls``, ``cholesky_solve``
``linalg_factor``  ``cholesky``, ``qr``, ``svd``, ``self_adjoint_eig(vals)``, ``slogdet``,
                   ``logdet``
``nn``             ``softmax``, ``log_softmax``, cross entropies, ``l2_loss``, ``bias_add``,
                   activations, ``dropout``, ``moments``, ``batch_normalization``
``nn_conv``        ``conv2d`` (and its gradient ops), ``max_pool``, ``avg_pool``
``array``          ``identity``, ``reshape``, ``transpose``, ``concat``, ``squeeze``,
                   ``stop_gradient``,
                   ``expand_dims``, ``stack``, ``unstack``, ``tile``, ``pad`` (and
                   ``array_index``: ``slice``, ``strided_slice``, indexing, ``gather``,
                   ``embedding_lookup``, ``unsorted_segment_sum``, ``one_hot``;
                   ``array_fill``: ``shape``, ``size``, ``rank``, ``fill``, ``zeros``,
                   ``ones``, ``zeros_like``, ``ones_like``, ``add_n``, ``clip_by_value``,
                   ``broadcast_to``)
``state``          ``constant``, ``placeholder``, ``no_op``, ``group``, variables' ops,
                   ``assign``/``assign_add``/``assign_sub``
``random``         ``random_uniform``, ``random_normal``, ``truncated_normal``,
                   ``random_shuffle``, ``set_random_seed``, ``random.categorical``
``sequence``       ``range``, ``unique``, ``where`` with one argument (value-sized outputs)
``top_k``          ``top_k``, ``in_top_k`` (selection along the last axis)
``nn_batch_norm``  ``fused_batch_norm`` (FusedBatchNormV3, training and inference)
``nn_depthwise``   ``depthwise_conv2d``, ``depthwise_conv2d_native``, ``separable_conv2d``
                   (DepthwiseConv2dNative and its gradient ops)
``nn_conv3d``      ``conv3d``, ``conv3d_transpose``, ``max_pool3d``, ``avg_pool3d`` (Conv3D,
                   MaxPool3D, AvgPool3D and their gradient ops; NDHWC and NCDHW)
``gather_nd``      ``gather_nd``, ``scatter_nd``, ``tensor_scatter_nd_update/add/sub``
                   (coordinate tuples into the leading dimensions)
``masking``        ``boolean_mask``, ``sequence_mask``, ``count_nonzero``, ``reverse``,
                   ``linspace`` (composites)
``dataset``        the iterator ops behind ``ds.data`` (host-side input pipelines)
``state_scatter``  ``scatter_update/add/sub``, ``scatter_nd_update/add/sub`` (variables
                   changed in place at indices)
``state_slices``   ``v[key].assign`` / ``assign(v[key], x)`` (StridedSliceAssign: a
                   strided slice of a variable written in place)
``einsum``         ``einsum`` (transposes, reshapes and MatMuls; a composite)
``functional``     ``map_fn``, ``scan``, ``foldl``, ``foldr`` (``while_loop``s; composites)
``nn_lrn``         ``nn.local_response_normalization`` (LRN, LRNGrad)
``space_depth``    ``space_to_depth``, ``depth_to_space``, ``space_to_batch(_nd)``,
                   ``batch_to_space(_nd)``, ``extract_image_patches``,
                   ``nn.atrous_conv2d_transpose`` (elements moved between the batch,
                   spatial and depth dimensions; image patches)
``candidate_sampling``  ``nn.log_uniform_candidate_sampler``, ``nn.nce_loss``,
                   ``nn.sampled_softmax_loss``
``image``          ``image.resize_bilinear``, ``image.resize_nearest_neighbor`` (and
                   their gradient ops; the rest of ``ds.image``: ``devsession/image.py``)
``sparse``         ``sparse.to_dense``, ``sparse_tensor_dense_matmul``, ``sparse.reduce_sum``,
                   ``sparse.reorder``, ``sparse.reshape``, ``sparse.from_dense``,
                   ``sparse_placeholder`` (over ``SparseTensor``: ``sparse_tensor.py``);
                   ``sparse_add``: ``sparse.add``; ``sparse_slicing``: ``sparse.concat``,
                   ``slice``, ``split``, ``fill_empty_rows``; ``sparse_math``:
                   ``sparse.reduce_max``, ``softmax``, ``maximum``...; ``sparse_composites``:
                   ``sparse.retain``, ``transpose``, ``eye``...; ``sparse_embedding``:
                   ``nn.embedding_lookup_sparse``
``strings``        ``string_to_number``, ``as_string``, ``string_join``, ``substr``...
                   (TF's string ops, on the host; ``string_regex``: the regex ops,
                   ``decode_csv``: CSV records)
``parsing``        ``parse_single_example``, ``parse_example``, ``FixedLenFeature``
                   (serialized Examples into dense tensors, on the host), ``decode_raw``
``script``         ``py_func``, ``numpy_function`` (Python functions run on the host)
``shape_of``       internal ops taking a shape from a tensor at run time, for gradients
``training``       the optimizers' fused updates (``ApplyAdam``...), built by ``ds.train``
``sparse_training`` TF's ``SparseApply<X>`` row updates (imported TF graphs' embeddings)
``control_flow``   ``cond``, ``case``, ``while_loop``, ``Assert``: If/While nodes holding
                   traced functions (``function_graph.py``)
``operators``      the Tensor operators (``+ - * / ** @``, comparisons)
``clipping``       ``clip_by_value``, ``clip_by_norm``, ``clip_by_global_norm``, ``global_norm``
``debugging``      ``check_numerics``, ``verify_tensor_all_finite``, ``Print``
``assertions``     ``assert_equal``, ``assert_less``, ``assert_positive``... (``Assert``s)
``norms``          ``norm``, ``reduce_variance``, ``reduce_std`` (composites)
``matrix``         ``eye``, ``matrix_transpose``, ``trace``, ``matrix_band_part``,
                   ``matrix_diag``, ``matrix_diag_part`` (composites over the last two axes)
``special``        ``lgamma``, ``digamma``, ``polygamma``, ``zeta``, ``igamma``,
                   ``igammac``, ``lbeta``, ``bessel_i0e/i1e/i0/i1``, ``erfinv``, ``ndtri``
``segments``       ``segment_sum/mean/max/min/prod``, ``unsorted_segment_max/min/prod/
                   mean/sqrt_n``, ``sparse_segment_sum/mean/sqrt_n`` (rows reduced by ids)
``partition``      ``dynamic_partition``, ``dynamic_stitch``, ``bincount``,
                   ``histogram_fixed_width(_bins)`` (elements routed or counted by value)
=================  ===================================================================

``<family>_grad`` modules hold each family's gradient functions (``state_grad``: the
variables' non-differentiable ops).  ``common`` holds what the families share; importing
this package registers every op and every gradient.
"""

from .array import (concat, expand_dims, identity, pad, reshape, squeeze, stack,
                    stop_gradient, tile, transpose, unstack)
from .array_fill import (add_n, fill, ones, ones_like, rank, shape, size,
                         zeros, zeros_like)
from .clipping import clip_by_global_norm, clip_by_norm, clip_by_value, global_norm
from .array_index import (embedding_lookup, gather, one_hot, slice, strided_slice,
                          unsorted_segment_sum)
from .elementwise import (abs, add, cast, divide, equal, exp, greater, greater_equal, less,
                          less_equal, log, maximum, minimum, multiply, negative, pow, relu,
                          sigmoid, sqrt, square, subtract, tanh, truediv, where)
from .linalg import matmul
from .nn import softmax
from .reduce import (argmax, reduce_logsumexp, reduce_max, reduce_mean, reduce_min,
                     reduce_sum)
from .state import assign, assign_add, assign_sub, constant, group, no_op, placeholder
from .random import random_normal, random_uniform
from . import operators  # noqa: F401  (installs the Tensor operators)
from . import nn_conv, shape_of, training  # noqa: F401  (conv ops; ops for gradients and optimizers)
from . import (array_grad, elementwise_grad, linalg_grad, nn_grad,  # noqa: F401  (register
               reduce_grad, shape_of_grad, state_grad)                # the gradients)

__all__ = [
    "concat", "identity", "reshape", "transpose", "abs", "add", "cast", "divide", "equal",
    "exp", "greater", "greater_equal", "less", "less_equal", "log", "maximum", "minimum",
    "multiply", "negative", "pow", "relu", "sigmoid", "sqrt", "square", "subtract", "tanh",
    "truediv", "where", "matmul", "softmax", "argmax", "reduce_max", "reduce_mean",
    "reduce_min", "reduce_sum", "constant", "group", "no_op", "placeholder", "random_normal",
    "random_uniform", "stop_gradient", "assign", "assign_add", "assign_sub",
    "expand_dims", "pad", "squeeze", "stack", "tile", "unstack", "add_n", "clip_by_value",
    "fill", "ones", "ones_like", "rank", "shape", "size", "zeros", "zeros_like",
    "embedding_lookup", "gather", "one_hot", "slice", "strided_slice",
    "unsorted_segment_sum", "clip_by_norm", "clip_by_global_norm", "global_norm",
    "reduce_logsumexp",
]

# --- TF1 surface (branch tf1) ----------------------------------------------------------
from .elementwise import (ceil, div, floor, floor_div, floordiv, floormod,  # noqa: E402
                          logical_and, logical_not, logical_or, logical_xor, mod, not_equal,
                          reciprocal, round, rsqrt, sign, truncatediv, truncatemod,
                          sin, cos)
from .linalg import diag, matrix_determinant, tensordot  # noqa: E402
from .random import random_shuffle, set_random_seed, truncated_normal  # noqa: E402
from .reduce import (arg_max, arg_min, argmin, reduce_all, reduce_any,  # noqa: E402
                     reduce_prod)
from .sequence import range, unique  # noqa: E402

__all__ += [
    "ceil", "div", "floor", "floor_div", "floordiv", "floormod", "logical_and",
    "logical_not", "logical_or", "logical_xor", "mod", "not_equal", "reciprocal", "round",
    "rsqrt", "sign", "truncatediv", "truncatemod", "diag", "matrix_determinant", "tensordot",
    "random_shuffle", "set_random_seed", "truncated_normal", "arg_max", "arg_min", "argmin",
    "reduce_all", "reduce_any", "reduce_prod", "range", "unique", "sin", "cos",
]

from .control_flow import Assert, case, cond, while_loop  # noqa: E402
from . import control_flow_grad  # noqa: F401,E402  (registers If's and While's gradients)

__all__ += ["Assert", "case", "cond", "while_loop"]

from . import top_k, top_k_grad  # noqa: F401,E402  (ds.nn/ds.math only, as TF1; gradient)
from . import nn_batch_norm, nn_batch_norm_grad  # noqa: F401,E402  (ds.nn only; gradient)
from . import nn_batch_norm_backprop  # noqa: F401,E402  (TF's FusedBatchNormGrad*)
from . import backprops, backprops_grad  # noqa: F401,E402  (TF's gradient ops: imports)
from . import run_time_attrs  # noqa: F401,E402  (TF's axes/perms computed at run time)
from . import nn_depthwise, nn_depthwise_grad  # noqa: F401,E402  (ds.nn only; gradients)
from . import nn_conv3d, nn_conv3d_grad  # noqa: F401,E402  (ds.nn only; gradients)
from . import nn_window_argmax, nn_window_argmax_grad  # noqa: F401,E402  (ds.nn only)
from . import nn_fractional_pool, nn_fractional_pool_grad  # noqa: F401,E402  (ds.nn only)
from . import volume_patches, volume_patches_grad  # noqa: F401,E402  (registers; gradient)
from . import ctc, ctc_grad  # noqa: F401,E402  (CTC loss and decoders: ds.nn only)
from . import gather_nd, gather_nd_grad  # noqa: F401,E402  (registers; gradients)
from . import tensor_array, tensor_array_grad  # noqa: F401,E402  (ds.TensorArray's ops)
from . import dataset  # noqa: F401,E402  (the iterator ops behind ds.data)
from . import script  # noqa: F401,E402  (py_func)
from . import state_scatter  # noqa: F401,E402  (scatter_update... on variables)
from . import state_slices  # noqa: F401,E402  (v[key].assign: StridedSliceAssign)
from . import sparse_training  # noqa: F401,E402  (TF's SparseApply<X>: imported graphs)
from . import image, image_grad  # noqa: F401,E402  (ds.image only; gradients)
from . import image_nms  # noqa: F401,E402  (non-max suppression: ds.image only)
from . import image_draw  # noqa: F401,E402  (draw_bounding_boxes: ds.image only)
from . import image_glimpse, image_sample  # noqa: F401,E402  (ds.image only)
from . import image_files  # noqa: F401,E402  (decode_jpeg...: ds.image and ds.io)
from . import audio  # noqa: F401,E402  (decode_wav, encode_wav: ds.audio)
from . import compression  # noqa: F401,E402  (decode_compressed: ds.io)
from . import betainc  # noqa: F401,E402  (tf.math.betainc)
from . import math_special  # noqa: F401,E402  (tf.math.special)
from . import next_after  # noqa: F401,E402  (tf.math.nextafter)
from . import candidate_sampling  # noqa: F401,E402  (samplers; nce/sampled softmax)
from . import parsing  # noqa: F401,E402  (parse_example: ds.io and ds)
from . import sequence_parsing  # noqa: F401,E402  (parse_sequence_example: ds.io and ds)
from . import serialization  # noqa: F401,E402  (serialize_tensor, parse_tensor: ds.io)
from . import sparse, sparse_add, sparse_grad  # noqa: F401,E402  (ds.sparse; gradients)
from . import sparse_math, sparse_slicing  # noqa: F401,E402  (ds.sparse: concat, max...)
from . import sparse_cross  # noqa: F401,E402  (ds.sparse.cross, cross_hashed; crossed_column)
from . import sparse_bincount  # noqa: F401,E402  (Dense/SparseCountSparseOutput)
from . import sparse_matmul  # noqa: F401,E402  (SparseMatMul and its gradient)
from . import sparse_serialization  # noqa: F401,E402  (serialize_sparse...: ds.io)
from . import edit_distance  # noqa: F401,E402  (EditDistance: registers; tf.edit_distance)
from . import ragged, ragged_grad  # noqa: F401,E402  (RaggedRange...: tf.ragged)
from . import unicode  # noqa: F401,E402  (UnicodeDecode, UnicodeEncode...: tf.strings)
from . import session_ops  # noqa: F401,E402  (GetSessionHandle...: persistent tensors)
from . import guarantee_const, timestamp  # noqa: F401,E402  (GuaranteeConst, Timestamp)
from . import decode_csv, string_regex, string_split, strings  # noqa: F401,E402  (host)
from . import string_hashing, string_joins  # noqa: F401,E402  (Fingerprint, StringNGrams...: host)
from . import nn_lrn  # noqa: F401,E402  (LRN and its gradient)
from . import space_depth, space_depth_grad  # noqa: F401,E402  (registers; gradients)
from . import linalg_factor, linalg_solve  # noqa: F401,E402  (decompositions, solves)
from . import linalg_factor_grad, linalg_solve_grad  # noqa: F401,E402  (their gradients)
from . import linalg_lu  # noqa: F401,E402  (Lu: registers; tf.linalg.lu, lu_solve...)
from . import linalg_sqrtm, linalg_sqrtm_grad  # noqa: F401,E402  (sqrtm, logm; gradient)
from . import linalg_tridiagonal, linalg_tridiagonal_grad  # noqa: F401,E402  (tridiagonal)
from .masking import (boolean_mask, count_nonzero, linspace, reverse,  # noqa: E402
                      reverse_sequence, sequence_mask)

__all__ += ["boolean_mask", "count_nonzero", "linspace", "reverse", "reverse_sequence",
            "sequence_mask"]

# --- TF1 math (branch tf1-math) ----------------------------------------------------------
from .elementwise import (acos, asin, atan, atan2, cosh, div_no_nan,  # noqa: E402
                          divide_no_nan, erf, erfc, expm1, is_finite, is_inf, is_nan, log1p,
                          sinh, tan, xlogy)
from . import debugging_grad  # noqa: F401,E402  (CheckNumerics' gradient)
from .debugging import check_numerics, verify_tensor_all_finite  # noqa: E402

__all__ += ["acos", "asin", "atan", "atan2", "cosh", "div_no_nan", "divide_no_nan", "erf",
            "erfc", "expm1", "is_finite", "is_inf", "is_nan", "log1p", "sinh", "tan", "xlogy",
            "check_numerics", "verify_tensor_all_finite"]

# --- TF1 composites (branch tf1-math): casts, norms, matrix helpers, BroadcastTo ------------
from .elementwise import to_double, to_float, to_int32, to_int64  # noqa: E402
from .array_fill import broadcast_to  # noqa: E402
from .norms import norm, reduce_std, reduce_variance  # noqa: E402
from .matrix import (eye, matrix_band_part, matrix_diag, matrix_diag_part,  # noqa: E402
                     matrix_transpose, trace)

__all__ += ["to_double", "to_float", "to_int32", "to_int64", "broadcast_to", "norm",
            "reduce_std", "reduce_variance", "eye", "matrix_band_part", "matrix_diag",
            "matrix_diag_part", "matrix_transpose", "trace"]

# --- TF1 assertions and Print (branch tf1-math) ---------------------------------------------
from .assertions import (assert_equal, assert_greater, assert_greater_equal,  # noqa: E402
                         assert_less, assert_less_equal, assert_negative, assert_non_negative,
                         assert_non_positive, assert_none_equal, assert_positive)
from .assertions import (assert_integer, assert_rank, assert_rank_at_least,  # noqa: E402
                         assert_scalar, assert_type)
from .debugging import Print  # noqa: E402

__all__ += ["assert_equal", "assert_greater", "assert_greater_equal", "assert_less",
            "assert_less_equal", "assert_negative", "assert_non_negative",
            "assert_non_positive", "assert_none_equal", "assert_positive", "Print",
            "assert_integer", "assert_rank", "assert_rank_at_least", "assert_scalar",
            "assert_type"]

# --- special functions -------------------------------------------------------------------
from . import special_grad  # noqa: F401,E402  (their gradients)
from .special import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, digamma,  # noqa: E402
                      erfinv, igamma, igammac, lbeta, lgamma, ndtri, polygamma, zeta)

__all__ += ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "digamma", "erfinv",
            "igamma", "igammac", "lbeta", "lgamma", "ndtri", "polygamma", "zeta"]

# --- segment reductions, partitions and counts ---------------------------------------------
from . import partition_grad, segments_grad  # noqa: F401,E402  (their gradients)
from .partition import (bincount, dynamic_partition, dynamic_stitch,  # noqa: E402
                        histogram_fixed_width, histogram_fixed_width_bins,
                        parallel_dynamic_stitch)
from .segments import (segment_max, segment_mean, segment_min, segment_prod,  # noqa: E402
                       segment_sum, sparse_segment_mean, sparse_segment_sqrt_n,
                       sparse_segment_sum, unsorted_segment_max, unsorted_segment_mean,
                       unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sqrt_n)

__all__ += ["bincount", "dynamic_partition", "dynamic_stitch", "histogram_fixed_width",
            "histogram_fixed_width_bins", "parallel_dynamic_stitch", "segment_max",
            "segment_mean", "segment_min", "segment_prod", "segment_sum",
            "sparse_segment_mean", "sparse_segment_sqrt_n", "sparse_segment_sum",
            "unsorted_segment_max", "unsorted_segment_mean", "unsorted_segment_min",
            "unsorted_segment_prod", "unsorted_segment_sqrt_n"]

# --- TF1 math names (branch tf1-math-names) ------------------------------------------------
from . import bitwise  # noqa: E402  (BitwiseAnd, Invert, LeftShift...: registers)
from .clipping import clip_by_average_norm  # noqa: E402
from .elementwise import (acosh, asinh, atanh, multiply_no_nan, realdiv, rint,  # noqa: E402
                          xdivy, xlog1py)
from .math_composites import (accumulate_n, log_sigmoid, polyval,  # noqa: E402
                              reciprocal_no_nan, scalar_mul)
from .nn_composites import (crelu, log_poisson_loss, relu_layer, silu,  # noqa: E402
                            zero_fraction)
from .reduce import cumulative_logsumexp, reduce_euclidean_norm  # noqa: E402

__all__ += ["bitwise", "clip_by_average_norm", "acosh", "asinh", "atanh", "multiply_no_nan",
            "realdiv", "rint", "xdivy", "xlog1py", "accumulate_n", "log_sigmoid", "polyval",
            "reciprocal_no_nan", "scalar_mul", "crelu", "log_poisson_loss", "relu_layer",
            "silu", "zero_fraction", "cumulative_logsumexp", "reduce_euclidean_norm"]

# --- TF's array manipulation: roll, sort, searchsorted, sets, diagonals, cross ----------------
from . import (array_composites, array_order, array_sets, array_shapes,  # noqa: F401,E402
               diagonals, vectors)  # (register; their tf.<name> spellings: devsession/)
from . import set_operations  # noqa: F401,E402  (tf.sets' ops; the namespace: devsession/sets.py)
from . import fake_quant, fake_quant_grad  # noqa: F401,E402  (tf.quantization's fake quant)
from . import quantize_dequantize, quantize_dequantize_grad  # noqa: F401,E402  (QuantizeAndDequantize*)
from . import quantize  # noqa: F401,E402  (QuantizeV2, Dequantize: tf.quantization.quantize...)
from . import bitcast  # noqa: F401,E402  (Bitcast: registers; tf.bitcast: devsession/)
from . import bucketize  # noqa: F401,E402  (Bucketize: registers; feature columns use it)
from . import complex_math, fft  # noqa: F401,E402  (tf.complex, tf.signal's FFTs: register)
from . import complex_math_grad  # noqa: F401,E402  (their gradients)

from . import identity_n, identity_n_grad  # noqa: F401,E402  (IdentityN: custom_gradient's node)
from . import print_v2  # noqa: F401,E402  (tf.print's StringFormat and PrintV2)
