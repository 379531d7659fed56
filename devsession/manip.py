"""TF1's ``tf.manip``: the older home of eight array functions, each the same function as
its ``ds.<name>`` (``reverse`` is ``reverse_v2``, axes given as a list, as TF's).  Anything
else under ``ds.manip`` raises ``UnsupportedTF1Error`` naming it."""

from .ops import reshape, tile
from .ops.array_order import roll
from .ops.gather_nd import scatter_nd
from .ops.gather_options import gather_nd
from .ops.masking import reverse
from .ops.space_depth import batch_to_space_nd, space_to_batch_nd

__all__ = ["batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll", "scatter_nd",
           "space_to_batch_nd", "tile"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("manip", name)
