"""The CTC ops on the GPU: the host kernels (``reference/ctc.py``,
``reference/ctc_decoders.py``) on inputs copied down, their results uploaded
(``host_ops.through_host``).  The forward-backward recursion and the beam bookkeeping
are sequential in time and small per example; TF's own CPU kernels are the ones these
follow, and one code path keeps the devices' losses and decodings identical."""

from __future__ import annotations

from ..reference import ctc as host_loss
from ..reference import ctc_decoders as host_decoders
from ..registry import register_kernel
from .host_ops import through_host

_HOST_BUILDERS = {"CTCLoss": host_loss.build_ctc_loss,
                  "CTCGreedyDecoder": host_decoders.build_greedy_decoder,
                  "CTCBeamSearchDecoder": host_decoders.build_beam_search_decoder}


@register_kernel(tuple(_HOST_BUILDERS), "GPU")
def build_on_host(node):
    return through_host(node, _HOST_BUILDERS[node.op](node))
