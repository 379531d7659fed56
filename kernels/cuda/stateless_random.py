"""TF's stateless random ops on the GPU: the CPU's kernels (``reference/stateless_random.py``
with the compiled draws of ``cpu/philox.py``) on the inputs copied down (shapes, seeds,
keys and counters are small), the values uploaded, so a GPU graph gets the CPU's values:
TF's, which TF's GPU kernels also give for the uniform and integer draws.  StatelessShuffle copies its value down too (TF has no GPU
kernel for it: TF's GPU sessions place it on the CPU)."""

from __future__ import annotations

from ..reference import stateless_random as host
from ..registry import register_kernel
from .host_ops import through_host


def _compiled_draw(node):
    from ..cpu.random import build_draw     # the CPU's kernel: compiled Philox draws
    return build_draw(node)


_BUILDERS = {**{op: _compiled_draw for op in (*host.V1_OPS, *host.V2_OPS)},
             "StatelessRandomGetKeyCounter": host.build_get_key_counter,
             "StatelessRandomGetKeyCounterAlg": host.build_get_key_counter_alg,
             "StatelessRandomGetAlg": host.build_get_alg,
             "StatelessMultinomial": host.build_stateless_multinomial,
             "StatelessShuffle": host.build_stateless_shuffle}


@register_kernel(tuple(_BUILDERS), "GPU")
def build_stateless_random(node):
    return through_host(node, _BUILDERS[node.op](node))
