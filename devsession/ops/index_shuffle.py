"""TF's ``RandomIndexShuffle``: the position of an index in a pseudorandom permutation of
``[0, max_index]`` chosen by a seed, without making the permutation (TF's
``tf.random_index_shuffle`` and ``tf.random.experimental.index_shuffle``; kernel
``reference/index_shuffle.py``, TF's values bit for bit).

``RandomIndexShuffle(index, seed, max_index)``: ``index`` and ``max_index`` of one
``dtype`` (int32, int64, uint32, uint64), a scalar or a vector, ``seed`` of ``Tseed``
(the same four) shaped ``[3]`` or ``[batch, 3]``; attr ``rounds`` (even, at least 4:
default 4).  The output is ``index``'s shape and dtype.  ``index_shuffle(index, seed,
max_index)`` takes a ``[2]`` seed and pads it in front with TF's arbitrary word
(498247692) into ``[3]``, as TF's.  Not differentiable.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .array import pad
from .common import make_op
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["random_index_shuffle", "index_shuffle"]

# TF's four; devsession has no uint32
_SEED_PAD = 498247692          # TF's index_shuffle pads a [2] seed with it
_INTS = tuple(d for d in (dtypes.int32, dtypes.int64, getattr(dtypes, "uint32", None),
                          dtypes.uint64) if d is not None)


def _infer(inputs, attrs, node):
    index, seed, max_index = inputs
    for what, spec in (("index", index), ("seed", seed), ("max_index", max_index)):
        if spec.dtype not in _INTS:
            raise TypeError(f"Op '{node}': {what} '{spec.name}' must be one of "
                            f"{', '.join(d.name for d in _INTS)}, not {spec.dtype.name}.")
    if max_index.dtype != index.dtype:
        raise TypeError(f"Op '{node}': max_index '{max_index.name}' must be "
                        f"{index.dtype.name}, the dtype of index, not {max_index.dtype.name}.")
    for what, spec, low, high in (("index", index, 0, 1), ("seed", seed, 1, 2),
                                  ("max_index", max_index, 0, 1)):
        rank = spec.shape.ndims
        if rank is not None and not low <= rank <= high:
            bound = f"at most rank {high}" if rank > high else f"at least rank {low}"
            raise InferError(f"Op '{node}': Shape must be {bound} but is rank {rank} for "
                             f"{what} '{spec.name}' with shape {spec.shape}.")
    rounds = int(attrs.get("rounds", 4))
    if rounds < 4 or rounds % 2:
        raise InferError(f"Op '{node}': rounds must be an even number of at least 4, got "
                         f"{rounds}.")
    return index.dtype, index.shape if index.shape.ndims is not None else TensorShape(None)


register_op(OpDef("RandomIndexShuffle", _infer, 3, host_inputs=(0, 1, 2),
                  attr_defaults={"rounds": 4}))
not_differentiable("RandomIndexShuffle")


def random_index_shuffle(index, seed, max_index, rounds=4, name=None) -> Tensor:
    """TF1's ``tf.random_index_shuffle`` (the raw op): ``index``'s position in the
    permutation of ``[0, max_index]`` of ``seed`` (a [3] or [batch, 3] vector)."""
    index = convert_to_tensor(index, name="index")
    seed = convert_to_tensor(seed, name="seed")
    max_index = convert_to_tensor(max_index, dtype=index.dtype, name="max_index")
    return make_op("RandomIndexShuffle", [index, seed, max_index], {"rounds": int(rounds)},
                   name=name or "RandomIndexShuffle")


def index_shuffle(index, seed, max_index) -> Tensor:
    """``tf.random.experimental.index_shuffle``: as ``random_index_shuffle`` with 4
    rounds, ``seed`` a [2] (or [batch, 2]) stateless seed padded in front with TF's word."""
    seed = convert_to_tensor(seed)
    paddings = [[1, 0]] + [[0, 0]] * ((seed.shape.ndims or 1) - 1)
    seed = pad(seed, paddings, constant_values=_SEED_PAD)
    return random_index_shuffle(index, seed=seed, max_index=max_index, rounds=4)
