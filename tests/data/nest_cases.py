"""tf.nest cases run by the recorder (make_tf_nest.py, with TensorFlow's ``tf.compat.v1``)
and by tests/test_nest.py (with devsession): each case is a function of the TF1-API
module, and ``outcome`` describes what it returned or raised in plain JSON, so that the two
can be compared."""

import collections
from collections.abc import Mapping

Pair = collections.namedtuple("Pair", "b a")


class Table(Mapping):
    """A mapping that is not a dict."""

    def __init__(self, items):
        self._items = dict(items)

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


def _sparse(tf):
    return tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])


def _ragged(tf):
    return tf.ragged.constant([[[1], [2, 3]], [[4]]])


def _defaultdict():
    d = collections.defaultdict(list)
    d["b"], d["a"] = 1, 2
    return d


def _add(*xs):
    return sum(xs)


CASES = {
    "flatten_nested": lambda tf: tf.nest.flatten({"b": 1, "a": [2, (3, 4)], "c": Pair(5, 6)}),
    "flatten_leaves": lambda tf: [tf.nest.flatten("abc"), tf.nest.flatten(None),
                                  tf.nest.flatten([]), tf.nest.flatten({}),
                                  tf.nest.flatten([[], [[]], ()])],
    "flatten_mapping": lambda tf: tf.nest.flatten(Table([("b", 1), ("a", 2)])),
    "flatten_views": lambda tf: [tf.nest.flatten({"b": 1, "a": 2}.values()),
                                 tf.nest.flatten({"b": 1, "a": 2}.keys())],
    "flatten_ordered": lambda tf: tf.nest.flatten(collections.OrderedDict([("b", 1),
                                                                           ("a", 2)])),
    "flatten_unsortable": lambda tf: tf.nest.flatten({1: 1, "a": 2}),
    "pack_ordered": lambda tf: tf.nest.pack_sequence_as(
        collections.OrderedDict([("b", 1), ("a", 2)]), [10, 20]),
    "pack_defaultdict": lambda tf: tf.nest.pack_sequence_as(_defaultdict(), [5, 6]),
    "pack_namedtuple": lambda tf: tf.nest.pack_sequence_as([Pair(0, (0, 0)), {"k": 0}],
                                                           [1, 2, 3, 4]),
    "pack_mapping": lambda tf: tf.nest.pack_sequence_as(Table([("b", 0), ("a", 0)]), [1, 2]),
    "pack_view": lambda tf: tf.nest.pack_sequence_as({"b": 0, "a": 0}.values(), [1, 2]),
    "pack_scalar": lambda tf: tf.nest.pack_sequence_as(0, [7]),
    "pack_too_few": lambda tf: tf.nest.pack_sequence_as([1, 2], [1]),
    "pack_scalar_too_many": lambda tf: tf.nest.pack_sequence_as(0, [1, 2]),
    "pack_not_a_list": lambda tf: tf.nest.pack_sequence_as([1, 2], 1),
    "same_list_tuple": lambda tf: tf.nest.assert_same_structure([1, 2], (1, 2)),
    "same_list_tuple_unchecked": lambda tf: tf.nest.assert_same_structure([1, 2], (1, 2),
                                                                          check_types=False),
    "same_lengths": lambda tf: tf.nest.assert_same_structure([1, 2], [1]),
    "same_keys": lambda tf: tf.nest.assert_same_structure({"a": 1}, {"b": 1}),
    "same_leaf_list": lambda tf: tf.nest.assert_same_structure(1, [1]),
    "same_depth": lambda tf: tf.nest.assert_same_structure([1, [2]], [1, 2]),
    "same_namedtuple_tuple": lambda tf: tf.nest.assert_same_structure(Pair(1, 2), (1, 2)),
    "same_dict_ordered": lambda tf: tf.nest.assert_same_structure(
        {"a": 1}, collections.OrderedDict(a=2)),
    "same_ok": lambda tf: tf.nest.assert_same_structure([1, {"a": (2,)}], ["x", {"a": ("y",)}]),
    "map_two": lambda tf: tf.nest.map_structure(_add, [1, (2, 3)], [10, (20, 30)]),
    "map_three_dicts": lambda tf: tf.nest.map_structure(_add, {"b": 1, "a": 2}, {"a": 3, "b": 4},
                                                        {"a": 5, "b": 6}),
    "map_types_differ": lambda tf: tf.nest.map_structure(_add, [1, (2, 3)], [10, [20, 30]]),
    "map_types_unchecked": lambda tf: tf.nest.map_structure(_add, [1, (2, 3)], [10, [20, 30]],
                                                            check_types=False),
    "map_none": lambda tf: tf.nest.map_structure(lambda x: x),
    "map_bad_keyword": lambda tf: tf.nest.map_structure(lambda x: x, [1], bad=1),
    "is_nested": lambda tf: [tf.nest.is_nested(v) for v in ([1], "ab", {}, Pair(1, 2), 3,
                                                            {"a": 1}.items(), b"x")],
    "sparse_leaf": lambda tf: tf.nest.flatten([_sparse(tf), 1]),
    "sparse_expanded": lambda tf: tf.nest.flatten([_sparse(tf), 1], expand_composites=True),
    "ragged_expanded": lambda tf: tf.nest.flatten({"r": _ragged(tf), "a": tf.constant(1.0)},
                                                  expand_composites=True),
    "slices_expanded": lambda tf: tf.nest.flatten(
        tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]), tf.constant([3, 2])),
        expand_composites=True),
    "sparse_mapped": lambda tf: tf.nest.map_structure(
        lambda t: t * 2 if t.dtype == tf.float32 else t, [_sparse(tf)], expand_composites=True),
    "ragged_packed": lambda tf: tf.nest.pack_sequence_as(
        [_ragged(tf)], tf.nest.flatten([_ragged(tf)], expand_composites=True),
        expand_composites=True),
    "sparse_against_tensor": lambda tf: tf.nest.assert_same_structure(
        _sparse(tf), tf.constant(1.0), expand_composites=True),
    "sparse_against_ragged": lambda tf: tf.nest.assert_same_structure(
        _sparse(tf), _ragged(tf), expand_composites=True),
    "sparse_against_tensor_unexpanded": lambda tf: tf.nest.assert_same_structure(
        _sparse(tf), tf.constant(1.0)),
}


def outcome(run) -> list:
    """["value", description] or ["error", class name, first line of the message]."""
    try:
        return ["value", describe(run())]
    except Exception as e:      # noqa: BLE001 - the class is what is compared
        return ["error", type(e).__name__, str(e).strip().splitlines()[0] if str(e) else ""]


def describe(x):
    """Plain JSON for a structure: containers with their kind, tensors by dtype and shape."""
    kind = type(x).__name__
    if kind in ("SparseTensor", "RaggedTensor", "IndexedSlices"):
        return [kind, [describe(getattr(x, field)) for field in _FIELDS[kind]]]
    if hasattr(x, "dtype") and hasattr(x, "op"):
        return ["tensor", x.dtype.name, list(x.shape.as_list())]
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ["namedtuple", kind, [describe(v) for v in x]]
    if isinstance(x, (list, tuple)):
        return [kind, [describe(v) for v in x]]
    if isinstance(x, Mapping):
        extra = [x.default_factory.__name__] if isinstance(x, collections.defaultdict) else []
        return [kind, [[k, describe(v)] for k, v in x.items()]] + extra
    return ["leaf", repr(x)]


_FIELDS = {"SparseTensor": ("indices", "values", "dense_shape"),
           "IndexedSlices": ("values", "indices"),
           "RaggedTensor": ("flat_values", "nested_row_splits")}
