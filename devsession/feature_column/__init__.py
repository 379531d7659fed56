"""TF1's ``tf.feature_column``: how wide & deep and ranking models turn a dict of raw
features (dense tensors, SparseTensors of several values per example) into model inputs
in graph mode, without estimators.

* ``dense_columns.py``: ``numeric_column``, ``bucketized_column``, ``indicator_column``;
* ``categorical_columns.py``: ``categorical_column_with_identity``,
  ``..._with_vocabulary_list``, ``..._with_vocabulary_file`` (``ds.lookup`` tables),
  ``..._with_hash_bucket`` (TF's Fingerprint64 buckets);
* ``embedding_column.py``: ``embedding_column`` (a trained ``embedding_weights``
  variable, combined by mean/sum/sqrtn through ``nn.safe_embedding_lookup_sparse``);
* ``crossed_column.py``: ``crossed_column`` (TF's hashed ``SparseCross`` of feature
  names and categorical columns);
* ``weighted_column.py``: ``weighted_categorical_column`` (ids with weights from
  another feature);
* ``shared_embedding.py``: ``shared_embedding_columns`` (embeddings of several columns
  in one variable);
* ``parse_spec.py``: ``make_parse_example_spec`` (the features dict of
  ``tf.parse_example`` for a list of columns);
* ``layers.py``: ``input_layer`` (one dense tensor, the columns in name order) and
  ``linear_model`` (a weighted sum with per-column weights and a bias);
* ``columns_base.py``: the column base classes and the builder that reads features.

Not there yet (``UnsupportedTF1Error`` naming them): the ``sequence_*`` columns.
"""

from .categorical_columns import (categorical_column_with_hash_bucket,
                                  categorical_column_with_identity,
                                  categorical_column_with_vocabulary_file,
                                  categorical_column_with_vocabulary_list)
from .crossed_column import crossed_column
from .dense_columns import bucketized_column, indicator_column, numeric_column
from .embedding_column import embedding_column
from .layers import input_layer, linear_model
from .parse_spec import make_parse_example_spec
from .shared_embedding import shared_embedding_columns
from .weighted_column import weighted_categorical_column

__all__ = ["numeric_column", "bucketized_column", "indicator_column",
           "categorical_column_with_identity", "categorical_column_with_vocabulary_list",
           "categorical_column_with_vocabulary_file", "categorical_column_with_hash_bucket",
           "embedding_column", "input_layer", "linear_model", "crossed_column",
           "weighted_categorical_column", "shared_embedding_columns",
           "make_parse_example_spec"]


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("feature_column", name)
