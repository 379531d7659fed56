"""TF1's ``tf.sets``: ``intersection``, ``union``, ``difference`` and ``size`` of the
sets along the last dimension of dense or sparse tensors, with TF1's ``set_*`` names too
(``ops/set_operations.py``).  Other names raise ``UnsupportedTF1Error`` naming them."""

from .ops.set_operations import set_difference, set_intersection, set_size, set_union

difference, intersection, size, union = set_difference, set_intersection, set_size, set_union

__all__ = ["difference", "intersection", "size", "union", "set_difference",
           "set_intersection", "set_size", "set_union"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("sets", name)
