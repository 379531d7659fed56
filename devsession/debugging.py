"""TF1's ``tf.debugging``: ``check_numerics`` and ``assert_all_finite`` (TF1's
``verify_tensor_all_finite``), the float predicates and ``Assert``.  The rest raises
``UnsupportedTF1Error`` naming it."""

from .ops.control_flow import Assert
from .ops.debugging import check_numerics
from .ops.debugging import verify_tensor_all_finite as assert_all_finite
from .ops.elementwise import is_finite, is_inf, is_nan

__all__ = ["check_numerics", "assert_all_finite", "is_finite", "is_inf", "is_nan", "Assert"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("debugging", name)
