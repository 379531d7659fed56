"""``ds.image.rot90`` and ``ds.image.transpose``: quarter turns and the height/width swap
of a single HWC image or an NHWC batch, as TF builds them from ``reverse`` and
``transpose``.

``rot90`` turns counter-clockwise ``k`` times (``k`` taken mod 4, negative turns
clockwise).  A Python ``k`` picks the rotation when the graph is built, so the result
keeps a static shape; a tensor ``k`` builds TF's ``case`` over the four rotations, whose
height and width only the run knows.

    rotated = ds.image.rot90(images, k=ds.random_uniform([], 0, 4, ds.int32))
"""

from __future__ import annotations

from . import dtypes
from .graph import Tensor, convert_to_tensor, name_scope
from .image_checks import after, is_tensor, known_rank, nonzero_inner
from .ops import equal, transpose as transpose_op
from .ops.array_fill import rank as rank_of
from .ops.control_flow import case, cond
from .ops.elementwise import floormod
from .ops.masking import reverse

__all__ = ["rot90", "transpose", "transpose_image"]


def _turns(image: Tensor, height_axis: int) -> list:
    """The image turned 0, 1, 2 and 3 quarter turns counter-clockwise, as functions."""
    h, w = height_axis, height_axis + 1
    swap = list(range(height_axis + 3))
    swap[h], swap[w] = w, h
    return [lambda: image,
            lambda: transpose_op(reverse(image, [w]), swap),
            lambda: reverse(image, [h, w]),
            lambda: reverse(transpose_op(image, swap), [w])]


def rot90(image, k=1, name=None) -> Tensor:
    """``image`` (3-D or 4-D) rotated counter-clockwise by ``k`` quarter turns.
    ValueError for a rank other than 3 or 4, a known 0 among the inner dimensions, or a
    ``k`` that is not a scalar."""
    with name_scope(name or "rot90"):
        image = convert_to_tensor(image, name="image")
        if image.shape.ndims is None:      # TF's: checked, then a cond on the rank fed
            image = after(nonzero_inner(image, "rot90"), image)
            return cond(equal(rank_of(image), 3), lambda: _rot90_of_rank(image, k, 3),
                        lambda: _rot90_of_rank(image, k, 4))
        rank = known_rank(image, (3, 4), "rot90")
        nonzero_inner(image, "rot90")
        return _rot90_of_rank(image, k, rank)


def _rot90_of_rank(image: Tensor, k, rank: int) -> Tensor:
    """``rot90`` of an image (rank 3) or a batch (rank 4)."""
    turns = _turns(image, rank - 3)
    if not is_tensor(k):
        return turns[int(k) % 4]()
    k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
    if k.shape.ndims not in (None, 0):
        raise ValueError(f"rot90: 'k' must be a scalar, got shape {k.shape}.")
    k = floormod(k, 4)
    rotated = case([(equal(k, turn), fn) for turn, fn in enumerate(turns) if turn],
                   default=turns[0], exclusive=True)
    dims = image.shape.dims
    if dims is not None:
        rotated.set_shape(list(dims[:-3]) + [None, None, dims[-1]])
    return rotated


def transpose(image, name=None) -> Tensor:
    """``image`` (3-D or 4-D) with height and width swapped.  ValueError for a rank
    other than 3 or 4."""
    with name_scope(name or "transpose"):
        image = convert_to_tensor(image, name="image")
        if image.shape.ndims is None:      # TF's: checked, then a cond on the rank fed
            image = after(nonzero_inner(image, "transpose"), image)
            return cond(equal(rank_of(image), 3), lambda: transpose_op(image, [1, 0, 2]),
                        lambda: transpose_op(image, [0, 2, 1, 3]))
        if known_rank(image, (3, 4), "transpose") == 3:
            return transpose_op(image, [1, 0, 2])
        return transpose_op(image, [0, 2, 1, 3])


transpose_image = transpose      # TF1's name
