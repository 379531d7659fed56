"""``IdentityN`` on the GPU: the host's kernel, whose views stay on the device."""

from __future__ import annotations

from ..reference.identity_n import build_identity_n
from ..registry import register_kernel

register_kernel("IdentityN", "GPU")(build_identity_n)
