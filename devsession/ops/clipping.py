"""Clipping, as TF1's ``clip_ops``: ``clip_by_value``, ``global_norm``, ``clip_by_norm``
and ``clip_by_global_norm`` (how most training scripts tame their gradients), built from
ordinary ops exactly as TF builds them, so they fuse, place and differentiate like the
rest.

* ``global_norm(ts)`` is ``sqrt(2 * sum(l2_loss(t)))`` over the tensors that are not None
  (0.0, float32, when every one is None, as TF's).
* ``clip_by_norm(t, c, axes)`` scales ``t`` by ``c / max(norm, c)``, the norm over
  ``axes`` (all by default); a zero norm leaves ``t`` as it is.
* ``clip_by_global_norm(ts, c)`` scales every tensor by ``c * min(1 / norm, 1 / c)`` and
  returns ``(clipped, norm)``; a norm that is inf or NaN makes every value NaN (TF's
  ``+ (norm - norm)``), so a diverged step is visible rather than silently clipped.
  A gradient TF keeps sparse (``indexed_rows.py``) stays sparse, its rows' values
  scaled, and the norm counts its values (a repeated id's rows apart), as TF's; so
  does ``clip_by_norm``'s (and ``clip_by_value``'s, ``array_fill.py``), so an
  optimizer still updates only the rows looked up.
* ``clip_by_average_norm(t, c)`` scales ``t`` by ``c * min(n / norm, 1 / c)``, ``n``
  its number of elements: the L2 norm divided by ``n`` is clipped to ``c`` (TF1's).
"""

from __future__ import annotations

import numpy as np

from ..graph import Tensor, convert_to_tensor, name_scope
from .array import identity, stack
from .array_fill import ones_like, shape, size
from .elementwise import cast, maximum, minimum, rsqrt, sqrt, where
from .indexed_rows import IndexedRows, dense_rows, rows_of, with_rows
from .nn import l2_loss
from .reduce import reduce_sum
from .state import constant

__all__ = ["global_norm", "clip_by_norm", "clip_by_global_norm", "clip_by_average_norm",
           "clip_by_value"]


def _tensor_list(t_list, fn: str) -> list:
    if isinstance(t_list, Tensor) or not hasattr(t_list, "__iter__"):
        raise TypeError(f"{fn}: t_list should be a sequence of tensors, not "
                        f"{type(t_list).__name__}.")
    return [None if t is None else convert_to_tensor(t) for t in t_list]


def global_norm(t_list, name=None) -> Tensor:
    """``sqrt(sum(sum(t ** 2)))`` over every tensor of ``t_list`` (None entries skipped);
    over its rows' values for a gradient TF keeps sparse (``rows_of``), as TF's over an
    IndexedSlices' values (a repeated id's rows count apart)."""
    tensors = [t for t in _tensor_list(t_list, "global_norm") if t is not None]
    with name_scope(name or "global_norm"):
        # none (every gradient None): TF's stack of nothing, float32, so the norm is 0
        half_squares = stack([l2_loss(_values(t)) for t in tensors]) if tensors else \
            constant(np.zeros(0, np.float32))
        return sqrt(reduce_sum(half_squares) * 2, name="global_norm")


def clip_by_norm(t, clip_norm, axes=None, name=None) -> Tensor:
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``; for a gradient TF keeps
    sparse, of its rows' values (the norm over them, ``axes`` theirs), as TF's."""
    with name_scope(name or "clip_by_norm") as scope:
        t = convert_to_tensor(t, name="t")
        rows = rows_of(t)
        values, indices = (t, None) if rows is None else rows.concatenated()
        l2sum = reduce_sum(values * values, axes, keepdims=True)
        positive = l2sum > 0
        l2norm = where(positive, sqrt(where(positive, l2sum, ones_like(l2sum))), l2sum)
        clip_norm = convert_to_tensor(clip_norm, dtype=t.dtype)
        clipped = identity(values * clip_norm / maximum(l2norm, clip_norm), name=scope)
        return clipped if rows is None else \
            dense_rows(clipped, indices, shape(t, out_type=indices.dtype)[0])


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """``([t * clip_norm / max(norm, clip_norm) for t in t_list], norm)``, the norm over
    all of them (``use_norm`` if given); None entries stay None."""
    tensors = _tensor_list(t_list, "clip_by_global_norm")
    # the norm before the scope and the clipped tensors' names, as TF's
    norm = global_norm(tensors) if use_norm is None else convert_to_tensor(use_norm)
    with name_scope(name or "clip_by_global_norm") as scope:
        clip_norm = convert_to_tensor(clip_norm, dtype=norm.dtype)
        scale = clip_norm * minimum(1.0 / norm, 1.0 / clip_norm) + (norm - norm)
        clipped = []
        for i, t in enumerate(tensors):
            if t is None:
                clipped.append(None)
                continue
            factor = scale if t.dtype == norm.dtype else cast(scale, t.dtype)
            clipped.append(with_rows(identity(t * factor, name=f"{scope}_{i}"),
                                     _scaled_rows(t, factor)))
        return clipped, norm


def _values(t: Tensor) -> Tensor:
    """What TF's norms read of ``t``: its rows' values if it is sparse in TF, else ``t``."""
    rows = rows_of(t)
    return t if rows is None else rows.concatenated()[0]


def _scaled_rows(t: Tensor, factor) -> IndexedRows | None:
    """The sparse form of ``t * factor`` (TF's clipped IndexedSlices), if ``t`` has one."""
    rows = rows_of(t)
    return None if rows is None else IndexedRows(tuple((v * factor, i) for v, i in rows.parts))


def clip_by_value(t, clip_value_min, clip_value_max, name=None) -> Tensor:
    """``t`` with values below ``clip_value_min`` raised to it and above
    ``clip_value_max`` lowered to it: Minimum then Maximum in the scope
    ``clip_by_value``, as TF; ValueError when the bounds would broadcast ``t`` to a
    bigger shape.  A gradient TF keeps sparse (``indexed_rows.py``) has its rows'
    values clipped and stays sparse, as TF's IndexedSlices."""
    with name_scope(name or "clip_by_value") as scope:
        x = convert_to_tensor(t, name="t")
        rows = rows_of(x)
        values, indices = (x, None) if rows is None else rows.concatenated()
        clipped = maximum(minimum(values, clip_value_max), clip_value_min, name=scope)
        if not values.shape.is_compatible_with(clipped.shape):
            raise ValueError(f"clip_by_value: the bounds broadcast '{x.name}' with shape "
                             f"{values.shape} to {clipped.shape}; they must be scalars or "
                             f"have its shape.")
        return clipped if rows is None else \
            dense_rows(clipped, indices, shape(x, out_type=indices.dtype)[0])


def clip_by_average_norm(t, clip_norm, name=None) -> Tensor:
    """``t * clip_norm * min(size(t) / l2norm(t), 1 / clip_norm)``, as TF1's: ``t``
    unchanged while its L2 norm over its size is at most ``clip_norm``."""
    with name_scope(name or "clip_by_average_norm") as scope:
        t = convert_to_tensor(t, name="t")
        count = cast(size(t), t.dtype)
        inverse_norm = rsqrt(reduce_sum(t * t))
        clip_norm = convert_to_tensor(clip_norm, dtype=t.dtype)
        return identity(t * clip_norm * minimum(inverse_norm * count, 1.0 / clip_norm),
                        name=scope)
