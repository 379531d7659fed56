"""TF1's ``tf.bitwise``: ``bitwise_and``, ``bitwise_or``, ``bitwise_xor``, ``invert``,
``left_shift`` and ``right_shift`` on integer tensors (``ops/bitwise.py``: TF's ops and
shift rules).  The rest raises ``UnsupportedTF1Error`` naming it."""

from .ops.bitwise import bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("bitwise", name)
