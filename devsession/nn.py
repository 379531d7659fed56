"""TF1's ``tf.nn`` spellings, so ported code needs only its import changed."""

from .ops import relu, sigmoid, tanh
from .ops.gather_options import embedding_lookup  # max_norm too
from .ops.nn import (batch_normalization, bias_add, dropout, elu, l2_loss, l2_normalize,
                     leaky_relu, log_softmax, moments, relu6, selu,
                     sigmoid_cross_entropy_with_logits, softmax,
                     softmax_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2,
                     softplus, softsign, sparse_softmax_cross_entropy_with_logits, swish,
                     weighted_cross_entropy_with_logits, xw_plus_b)
from .ops.nn_conv import (avg_pool, conv1d, conv2d, conv2d_backprop_filter,
                          conv2d_backprop_input, conv2d_transpose, max_pool)
from . import rnn as _rnn
from .ops.nn_batch_norm import fused_batch_norm
from .ops.nn_depthwise import depthwise_conv2d, depthwise_conv2d_native, separable_conv2d
from .ops.nn_conv3d import (avg_pool3d, conv3d, conv3d_backprop_filter_v2, conv3d_transpose,
                            max_pool3d)
from .rnn import bidirectional_dynamic_rnn, dynamic_rnn, static_rnn
from .ops.top_k import approx_max_k, approx_min_k, in_top_k, top_k
from .ops.nn_lrn import local_response_normalization, lrn
from .ops.space_depth import (atrous_conv2d_transpose, depth_to_space, space_to_batch,
                              space_to_depth)
from .ops.candidate_sampling import (log_uniform_candidate_sampler, nce_loss,
                                     sampled_softmax_loss, uniform_candidate_sampler)
from .ops.candidate_sampling import (all_candidate_sampler, compute_accidental_hits,
                                     fixed_unigram_candidate_sampler,
                                     learned_unigram_candidate_sampler)
from .ops.sparse_embedding import embedding_lookup_sparse
from .ops.safe_embedding import safe_embedding_lookup_sparse

__all__ = ["relu", "sigmoid", "softmax", "tanh", "avg_pool", "batch_normalization", "bias_add",
           "conv2d", "conv2d_backprop_filter", "conv2d_backprop_input", "dropout", "elu",
           "l2_loss", "l2_normalize", "sigmoid_cross_entropy_with_logits", "leaky_relu",
           "log_softmax", "max_pool", "moments",
           "softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
           "softplus", "sparse_softmax_cross_entropy_with_logits", "embedding_lookup",
           "in_top_k", "top_k", "fused_batch_norm", "relu6", "selu", "softsign", "swish",
           "xw_plus_b", "weighted_cross_entropy_with_logits", "conv2d_transpose", "conv1d",
           "nce_loss", "sampled_softmax_loss", "log_uniform_candidate_sampler",
           "uniform_candidate_sampler", "local_response_normalization", "lrn",
           "dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "rnn_cell",
           "depthwise_conv2d", "depthwise_conv2d_native", "separable_conv2d",
           "atrous_conv2d", "atrous_conv2d_transpose", "space_to_depth", "depth_to_space",
           "space_to_batch", "embedding_lookup_sparse", "conv3d", "conv3d_transpose",
           "conv3d_backprop_filter_v2", "conv3d_backprop_filter", "max_pool3d", "avg_pool3d",
           "safe_embedding_lookup_sparse", "all_candidate_sampler",
           "compute_accidental_hits", "fixed_unigram_candidate_sampler",
           "learned_unigram_candidate_sampler"]

conv3d_backprop_filter = conv3d_backprop_filter_v2   # TF1's alias

# --- TF1 math names (branch tf1-math-names) ----------------------------------------------
from .ops.nn_composites import (crelu, log_poisson_loss, relu_layer, silu,  # noqa: E402
                                zero_fraction)

__all__ += ["crelu", "log_poisson_loss", "relu_layer", "silu", "zero_fraction"]


class _RNNCells:
    """``tf.nn.rnn_cell``: the cells of ``devsession/rnn.py``."""

    RNNCell, BasicRNNCell, BasicLSTMCell = _rnn.RNNCell, _rnn.BasicRNNCell, _rnn.BasicLSTMCell
    LSTMCell, GRUCell, MultiRNNCell = _rnn.LSTMCell, _rnn.GRUCell, _rnn.MultiRNNCell
    DropoutWrapper, ResidualWrapper = _rnn.DropoutWrapper, _rnn.ResidualWrapper
    DeviceWrapper, LSTMStateTuple = _rnn.DeviceWrapper, _rnn.LSTMStateTuple

    def __getattr__(self, name):
        from .unsupported import missing

        raise missing("nn.rnn_cell", name)


rnn_cell = _RNNCells()


# --- TF's pooling/convolution spellings, the moment composites, the argmax windows ---------
from .ops.nn_nd import (atrous_conv2d, avg_pool1d, avg_pool2d, avg_pool_v2,  # noqa: E402
                        conv1d_transpose, conv_transpose, convolution, max_pool1d,
                        max_pool2d, max_pool_v2, pool)
from .ops.nn_moments import (batch_norm_with_global_normalization,  # noqa: E402
                             normalize_moments, sufficient_statistics, weighted_moments)
from .ops.nn_window_argmax import dilation2d, erosion2d, max_pool_with_argmax  # noqa: E402
from .ops.nn_depthwise import (depthwise_conv2d_native_backprop_filter,  # noqa: E402
                               depthwise_conv2d_native_backprop_input)
from .rnn import static_bidirectional_rnn  # noqa: E402
from .ops.ctc import (ctc_beam_search_decoder, ctc_beam_search_decoder_v2,  # noqa: E402
                      ctc_greedy_decoder, ctc_loss, ctc_loss_v2)

depthwise_conv2d_backprop_input = depthwise_conv2d_native_backprop_input     # TF1's aliases
depthwise_conv2d_backprop_filter = depthwise_conv2d_native_backprop_filter

__all__ += ["max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d", "max_pool_v2",
            "avg_pool_v2", "pool", "convolution", "conv1d_transpose", "conv_transpose",
            "sufficient_statistics", "normalize_moments", "weighted_moments",
            "batch_norm_with_global_normalization", "dilation2d", "erosion2d",
            "max_pool_with_argmax", "depthwise_conv2d_native_backprop_input",
            "depthwise_conv2d_native_backprop_filter", "depthwise_conv2d_backprop_input",
            "depthwise_conv2d_backprop_filter", "static_bidirectional_rnn", "ctc_loss",
            "ctc_loss_v2", "ctc_greedy_decoder", "ctc_beam_search_decoder",
            "ctc_beam_search_decoder_v2"]

# --- raw_rnn, the space-to-batch composites, the loss and CTC helpers ----------------------
from .rnn_raw import raw_rnn  # noqa: E402
from .rnn_state_saving import static_state_saving_rnn  # noqa: E402
from .ops.with_space_to_batch import with_space_to_batch  # noqa: E402
from .ops.ctc_labels import collapse_repeated, ctc_unique_labels  # noqa: E402
from .ops.replica_losses import (compute_average_loss,  # noqa: E402
                                 scale_regularization_loss)

__all__ += ["raw_rnn", "static_state_saving_rnn", "with_space_to_batch", "collapse_repeated",
            "ctc_unique_labels", "compute_average_loss", "scale_regularization_loss"]

from .ops.nn_fractional_pool import fractional_avg_pool, fractional_max_pool  # noqa: E402

__all__ += ["fractional_max_pool", "fractional_avg_pool"]

from . import nn_experimental as experimental  # noqa: E402  (tf.nn.experimental: dropouts)

__all__ += ["experimental", "approx_max_k", "approx_min_k"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("nn", name)
