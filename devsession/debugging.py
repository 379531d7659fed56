"""TF1's ``tf.debugging``: ``check_numerics`` and ``assert_all_finite`` (TF1's
``verify_tensor_all_finite``), the float predicates, ``Assert`` and the element-wise
assertions (``assert_equal``, ``assert_less``, ``assert_positive``...) and the static
ones (``assert_rank``, ``assert_type``, ``assert_scalar``...), ``assert_shapes``
(symbolic shapes across tensors: ``ops/assert_shapes.py``), and the rest of TF1's
check_ops (``assert_near``, ``assert_rank_in``, ``is_non_decreasing``...:
``ops/check_helpers.py``), and ``set_log_device_placement`` (the sessions made from then on
log where each op runs: ``process_settings.py``).  The rest raises
``UnsupportedTF1Error`` naming it."""

from .ops.assertions import (assert_equal, assert_greater, assert_greater_equal, assert_integer,
                             assert_less, assert_less_equal, assert_negative,
                             assert_non_negative, assert_non_positive, assert_none_equal,
                             assert_positive, assert_rank, assert_rank_at_least, assert_scalar,
                             assert_type)
from .ops.assert_shapes import assert_shapes
from .ops.control_flow import Assert
from .ops.debugging import check_numerics
from .ops.debugging import verify_tensor_all_finite as assert_all_finite
from .ops.elementwise import is_finite, is_inf, is_nan
from .ops.check_helpers import (assert_near, assert_proper_iterable, assert_rank_in,
                                assert_same_float_dtype, is_non_decreasing, is_numeric_tensor,
                                is_strictly_increasing)
from .process_settings import get_log_device_placement, set_log_device_placement

__all__ = ["check_numerics", "assert_all_finite", "is_finite", "is_inf", "is_nan", "Assert",
           "assert_equal", "assert_greater", "assert_greater_equal", "assert_less",
           "assert_less_equal", "assert_negative", "assert_non_negative",
           "assert_non_positive", "assert_none_equal", "assert_positive", "assert_integer",
           "assert_rank", "assert_rank_at_least", "assert_scalar", "assert_type",
           "assert_near", "assert_proper_iterable", "assert_rank_in", "assert_same_float_dtype",
           "is_non_decreasing", "is_numeric_tensor", "is_strictly_increasing", "assert_shapes",
           "set_log_device_placement", "get_log_device_placement"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("debugging", name)
