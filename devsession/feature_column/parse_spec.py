"""``make_parse_example_spec``: the features dict ``tf.parse_example`` needs to read the
raw features of a list of columns from serialized ``tf.train.Example`` protos (a dense
numeric feature a ``FixedLenFeature``, a categorical one a ``VarLenFeature``)."""

from __future__ import annotations

from .columns_base import FeatureColumn

__all__ = ["make_parse_example_spec"]


def make_parse_example_spec(feature_columns) -> dict:
    """TF1's ``tf.feature_column.make_parse_example_spec``: every column's raw features
    by key, each a ``FixedLenFeature`` or ``VarLenFeature`` (ValueError when two
    columns want one key parsed differently)."""
    result = {}
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError("All feature_columns must be _FeatureColumn instances. "
                             f"Given: {column}")
        config = column._parse_example_spec
        for key, value in config.items():
            if key in result and value != result[key]:
                raise ValueError(f"feature_columns contain different parse_spec for key "
                                 f"{key}. Given {value} and {result[key]}")
        result.update(config)
    return result
