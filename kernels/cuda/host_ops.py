"""GPU kernels for ops whose work is control rather than arithmetic: the output size
depends on the values (Range, Unique, Where), or the output is a string (the summaries).
They run the host kernel (``reference/sequence.py``, ``reference/summary.py``) on
downloaded inputs and upload numeric results (strings stay on the host): the values are
small (bounds, index lists, summaries), and one code path keeps the devices identical.
Sessions place string-producing nodes on the host anyway; these kernels exist so that
every op has one on every device.
"""

from __future__ import annotations

import cupy

from ..reference import sequence as host
from ..reference import summary as host_summary
from ..registry import register_kernel
from .device import on_device

_HOST_BUILDERS = {"Range": host.build_range, "Unique": host.build_unique,
                  "Where": host.build_where,
                  "ScalarSummary": host_summary.build_scalar_summary,
                  "HistogramSummary": host_summary.build_histogram_summary,
                  "ImageSummary": host_summary.build_image_summary,
                  "MergeSummary": host_summary.build_merge_summary,
                  "TensorSummaryV2": host_summary.build_tensor_summary,
                  "AudioSummaryV2": host_summary.build_audio_summary}


def _upload(x):
    return x if x.dtype == object else cupy.asarray(x)


def _download(x):
    return cupy.asnumpy(x) if isinstance(x, cupy.ndarray) else x


def through_host(node, kernel):
    """The host ``kernel`` as ``node``'s GPU kernel: its inputs copied down, its numeric
    results uploaded (strings stay on the host)."""
    def run(*xs):
        out = kernel(*[_download(x) for x in xs])
        if isinstance(out, tuple):
            return tuple(_upload(o) for o in out)
        return _upload(out)
    return on_device(node, run)


@register_kernel(tuple(_HOST_BUILDERS), "GPU")
def build_on_host(node):
    return through_host(node, _HOST_BUILDERS[node.op](node))
