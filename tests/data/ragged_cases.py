"""Ragged-tensor cases run by TF 2.21 (tests/data/make_ragged.py records what they
fetch) and by devsession (tests/test_ragged.py compares).  Each case is a function of
the TF1 module (``tf.compat.v1`` or ``devsession``) returning what to fetch; the ones in
ERROR_CASES fail at run time."""

import numpy as np


def _rt(tf):
    return tf.RaggedTensor.from_row_splits([1., 2., 3., 4., 5.], [0, 2, 2, 5])


def _rt2(tf):       # ragged rank 2: [[[1, 2], [3]], [], [[4, 5, 6]]]
    return tf.RaggedTensor.from_nested_row_splits([1, 2, 3, 4, 5, 6],
                                                  [[0, 2, 2, 3], [0, 2, 3, 6]])


CASES = {
    "from_row_splits": _rt,
    "from_row_splits_empty_rows": lambda tf: tf.RaggedTensor.from_row_splits(
        np.zeros([0], np.float32), [0, 0, 0]),
    "from_row_splits_no_rows": lambda tf: tf.RaggedTensor.from_row_splits(
        np.zeros([0], np.int32), [0]),
    "from_row_lengths": lambda tf: tf.RaggedTensor.from_row_lengths([1, 2, 3, 4], [1, 0, 3]),
    "from_row_starts": lambda tf: tf.RaggedTensor.from_row_starts([1, 2, 3, 4], [0, 1, 1]),
    "from_row_limits": lambda tf: tf.RaggedTensor.from_row_limits([1, 2, 3, 4], [1, 1, 4]),
    "from_value_rowids": lambda tf: tf.RaggedTensor.from_value_rowids(
        [1, 2, 3, 4], [0, 0, 2, 2]),
    "from_value_rowids_nrows": lambda tf: tf.RaggedTensor.from_value_rowids(
        [1, 2, 3, 4], [0, 0, 2, 2], nrows=5),
    "from_value_rowids_empty": lambda tf: tf.RaggedTensor.from_value_rowids(
        np.zeros([0], np.float32), np.zeros([0], np.int64)),
    "from_uniform_row_length": lambda tf: tf.RaggedTensor.from_uniform_row_length(
        [1, 2, 3, 4, 5, 6], 2),
    "from_uniform_row_length_nrows": lambda tf: tf.RaggedTensor.from_uniform_row_length(
        np.zeros([0], np.float32), 0, nrows=3),
    "from_uniform_row_length_ragged": lambda tf: tf.RaggedTensor.from_uniform_row_length(
        _rt(tf), 3),
    "from_nested_row_splits": _rt2,
    "from_nested_row_lengths": lambda tf: tf.RaggedTensor.from_nested_row_lengths(
        [1, 2, 3, 4, 5, 6], [[2, 0, 1], [2, 1, 3]]),
    "from_nested_value_rowids": lambda tf: tf.RaggedTensor.from_nested_value_rowids(
        [1, 2, 3, 4, 5, 6], [[0, 0, 2], [0, 0, 1, 2, 2, 2]]),
    "inner_dims": lambda tf: tf.RaggedTensor.from_row_splits(
        np.arange(12.).reshape(6, 2), [0, 1, 1, 6]),
    "from_tensor": lambda tf: tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0], [0, 0, 0]]),
    "from_tensor_padding": lambda tf: tf.RaggedTensor.from_tensor(
        [[1, 2, 0], [3, 0, 0], [0, 0, 0]], padding=0),
    "from_tensor_padding_inner": lambda tf: tf.RaggedTensor.from_tensor(
        [[[1, 2], [0, 0]], [[0, 0], [0, 0]], [[0, 1], [0, 0]]], padding=[0, 0]),
    "from_tensor_lengths": lambda tf: tf.RaggedTensor.from_tensor(
        [[1, 2, 0], [3, 0, 0], [4, 5, 6]], lengths=[2, 5, 0]),
    "from_tensor_ragged_rank_2": lambda tf: tf.RaggedTensor.from_tensor(
        np.arange(12).reshape(2, 3, 2), ragged_rank=2),
    "from_tensor_ragged_rank_2_padding": lambda tf: tf.RaggedTensor.from_tensor(
        [[[1, 0], [2, 3]], [[0, 0], [4, 0]]], padding=0, ragged_rank=2),
    "from_tensor_nested_lengths": lambda tf: tf.RaggedTensor.from_tensor(
        np.arange(12).reshape(2, 3, 2), lengths=([2, 1], [1, 2, 0])),
    "from_sparse": lambda tf: tf.RaggedTensor.from_sparse(tf.SparseTensor(
        [[0, 0], [0, 1], [2, 0]], [1., 2., 3.], [4, 5])),
    "to_tensor": lambda tf: _rt(tf).to_tensor(),
    "to_tensor_default": lambda tf: _rt(tf).to_tensor(default_value=-1.),
    "to_tensor_shape_pad": lambda tf: _rt(tf).to_tensor(shape=[4, 4]),
    "to_tensor_shape_cut": lambda tf: _rt(tf).to_tensor(shape=[2, 2]),
    "to_tensor_shape_partial": lambda tf: _rt(tf).to_tensor(shape=[None, 5]),
    "to_tensor_rank_2": lambda tf: _rt2(tf).to_tensor(default_value=9),
    "to_tensor_inner": lambda tf: tf.RaggedTensor.from_row_splits(
        np.arange(6.).reshape(3, 2), [0, 1, 1, 3]).to_tensor(default_value=[7., 8.]),
    "to_tensor_strings": lambda tf: tf.ragged.constant([["a"], [], ["b", "c"]]).to_tensor(),
    "to_tensor_no_rows": lambda tf: tf.RaggedTensor.from_row_splits(
        np.zeros([0], np.float32), [0]).to_tensor(),
    "to_sparse": lambda tf: _rt(tf).to_sparse(),
    "to_sparse_rank_2": lambda tf: _rt2(tf).to_sparse(),
    "to_sparse_inner": lambda tf: tf.RaggedTensor.from_row_splits(
        np.arange(6.).reshape(3, 2), [0, 1, 1, 3]).to_sparse(),
    "constant": lambda tf: tf.ragged.constant([[1, 2], [], [3]]),
    "constant_float": lambda tf: tf.ragged.constant([[1.5], [2., 3.]]),
    "constant_rank_2": lambda tf: tf.ragged.constant([[[1, 2], [3]], [], [[4]]]),
    "constant_ragged_rank_1": lambda tf: tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]],
                                                            ragged_rank=1),
    "constant_inner_shape": lambda tf: tf.ragged.constant(
        [[[1, 2], [3, 4]], [[5, 6]]], inner_shape=(2,)),
    "constant_dtype": lambda tf: tf.ragged.constant([[1, 2], [3]], dtype=tf.float64),
    "constant_int32_splits": lambda tf: tf.ragged.constant([[1, 2], [3]],
                                                           row_splits_dtype=tf.int32),
    "constant_empty": lambda tf: tf.ragged.constant([[], []]),
    "constant_strings": lambda tf: tf.ragged.constant([["a", "bc"], ["d"]]),
    "range": lambda tf: tf.ragged.range([0, 2, 5], [3, 5, 5]),
    "range_limits_only": lambda tf: tf.ragged.range([3, 0, 2]),
    "range_deltas": lambda tf: tf.ragged.range([0, 10], 5, [2, -3]),
    "range_float": lambda tf: tf.ragged.range([0., 1.], [1., 2.], 0.3),
    "range_scalar": lambda tf: tf.ragged.range(2, 7, 2),
    "range_int32_splits": lambda tf: tf.ragged.range([1, 2], row_splits_dtype=tf.int32),
    "row_lengths": lambda tf: _rt(tf).row_lengths(),
    "row_lengths_axis_2": lambda tf: _rt2(tf).row_lengths(axis=2),
    "nested_row_lengths": lambda tf: list(_rt2(tf).nested_row_lengths()),
    "row_starts": lambda tf: _rt(tf).row_starts(),
    "row_limits": lambda tf: _rt(tf).row_limits(),
    "value_rowids": lambda tf: _rt(tf).value_rowids(),
    "nrows": lambda tf: _rt(tf).nrows(),
    "nrows_int32": lambda tf: _rt(tf).nrows(out_type=tf.int32),
    "bounding_shape": lambda tf: _rt2(tf).bounding_shape(),
    "bounding_shape_axis": lambda tf: _rt2(tf).bounding_shape(axis=1),
    "bounding_shape_inner": lambda tf: tf.RaggedTensor.from_row_splits(
        np.arange(6.).reshape(3, 2), [0, 1, 1, 3]).bounding_shape(),
    "bounding_shape_no_rows": lambda tf: tf.RaggedTensor.from_row_splits(
        np.zeros([0], np.float32), [0]).bounding_shape(),
    "values": lambda tf: _rt2(tf).values,
    "flat_values": lambda tf: _rt2(tf).flat_values,
    "row_splits": lambda tf: _rt2(tf).row_splits,
    "nested_row_splits": lambda tf: list(_rt2(tf).nested_row_splits),
    "with_values": lambda tf: _rt(tf).with_values(tf.constant([5, 4, 3, 2, 1])),
    "with_flat_values": lambda tf: _rt2(tf).with_flat_values(
        tf.constant([1., 2., 3., 4., 5., 6.]) * 2.),
    "with_row_splits_dtype": lambda tf: _rt2(tf).with_row_splits_dtype(tf.int32),
    "getitem_row": lambda tf: _rt(tf)[2],
    "getitem_negative": lambda tf: _rt(tf)[-3],
    "getitem_rank_2_row": lambda tf: _rt2(tf)[0],
    "getitem_slice": lambda tf: _rt(tf)[1:],
    "getitem_slice_negative": lambda tf: _rt2(tf)[-2:],
    "getitem_slice_empty": lambda tf: _rt(tf)[2:1],
    "getitem_tuple": lambda tf: _rt(tf)[0:2, :],
    "row_splits_to_segment_ids": lambda tf: tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]),
    "segment_ids_to_row_splits": lambda tf: tf.ragged.segment_ids_to_row_splits([0, 0, 2]),
    "segment_ids_to_row_splits_num": lambda tf: tf.ragged.segment_ids_to_row_splits(
        [0, 0, 2], num_segments=5),
    "map_flat_values": lambda tf: tf.ragged.map_flat_values(tf.square, _rt(tf)),
    "map_flat_values_two": lambda tf: tf.ragged.map_flat_values(
        tf.add, _rt(tf), _rt(tf)),
    "map_flat_values_kwargs": lambda tf: tf.ragged.map_flat_values(
        tf.multiply, x=_rt2(tf), y=3),
    "boolean_mask_dense": lambda tf: tf.ragged.boolean_mask(
        [[1, 2, 3], [4, 5, 6]], [[True, False, True], [False, False, True]]),
    "boolean_mask_dense_rank_3": lambda tf: tf.ragged.boolean_mask(
        np.arange(8).reshape(2, 2, 2), np.array([[[1, 0], [1, 1]], [[0, 0], [0, 1]]], bool)),
    "boolean_mask_vector": lambda tf: tf.ragged.boolean_mask([1, 2, 3], [True, False, True]),
    "boolean_mask_ragged": lambda tf: tf.ragged.boolean_mask(
        _rt(tf), tf.ragged.constant([[True, False], [], [False, True, True]])),
    "boolean_mask_ragged_rows": lambda tf: tf.ragged.boolean_mask(
        _rt(tf), [True, False, True]),
    "boolean_mask_ragged_rank_2": lambda tf: tf.ragged.boolean_mask(
        _rt2(tf), tf.ragged.constant([[True, False], [], [True]])),
    "stack_dynamic_partitions": lambda tf: tf.ragged.stack_dynamic_partitions(
        ["a", "b", "c", "d", "e"], [3, 0, 2, 2, 3], 5),
}

# Elementwise math, reductions, concat and stack through TF's ragged dispatch.
CASES.update({
    "add_scalar": lambda tf: _rt(tf) + 1.,
    "radd_scalar": lambda tf: 1. + _rt(tf),
    "sub_ragged": lambda tf: _rt(tf) - _rt(tf) * 2.,
    "rsub": lambda tf: 10. - _rt(tf),
    "mul_rank_2": lambda tf: _rt2(tf) * _rt2(tf),
    "truediv": lambda tf: _rt(tf) / 2.,
    "rtruediv": lambda tf: 1. / _rt(tf),
    "floordiv": lambda tf: _rt2(tf) // 2,
    "mod": lambda tf: _rt2(tf) % 4,
    "pow": lambda tf: _rt(tf) ** 2.,
    "neg": lambda tf: -_rt2(tf),
    "abs": lambda tf: abs(_rt(tf) - 3.),
    "less": lambda tf: _rt(tf) < 3.,
    "greater_equal_ragged": lambda tf: _rt(tf) >= _rt(tf) * 0. + 2.,
    "and": lambda tf: (_rt(tf) > 1.) & (_rt(tf) < 5.),
    "invert": lambda tf: ~(_rt(tf) > 2.),
    "add_inner_broadcast": lambda tf: tf.RaggedTensor.from_row_splits(
        np.arange(6., dtype=np.float32).reshape(3, 2), [0, 1, 1, 3]) + tf.constant([10., 20.]),
    "tf_add": lambda tf: tf.add(_rt(tf), _rt(tf)),
    "tf_multiply_scalar": lambda tf: tf.multiply(_rt2(tf), 3),
    "math_sin": lambda tf: tf.math.sin(_rt(tf)),
    "math_exp": lambda tf: tf.exp(_rt(tf)),
    "math_sqrt": lambda tf: tf.math.sqrt(_rt(tf)),
    "math_maximum": lambda tf: tf.maximum(_rt(tf), 2.5),
    "cast": lambda tf: tf.cast(_rt(tf), tf.int32),
    "nn_relu": lambda tf: tf.nn.relu(_rt(tf) - 3.),
    "logical_not": lambda tf: tf.logical_not(_rt(tf) > 2.),
    "reduce_sum_all": lambda tf: tf.reduce_sum(_rt(tf)),
    "reduce_sum_0": lambda tf: tf.reduce_sum(_rt(tf), axis=0),
    "reduce_sum_1": lambda tf: tf.reduce_sum(_rt(tf), axis=1),
    "reduce_sum_neg": lambda tf: tf.reduce_sum(_rt(tf), axis=-1),
    "reduce_sum_keepdims": lambda tf: tf.reduce_sum(_rt(tf), axis=1, keepdims=True),
    "reduce_mean_0": lambda tf: tf.reduce_mean(_rt(tf), axis=0),
    "reduce_mean_1": lambda tf: tf.reduce_mean(_rt(tf), axis=1),
    "reduce_max_1": lambda tf: tf.reduce_max(_rt(tf), axis=1),
    "reduce_min_0": lambda tf: tf.reduce_min(_rt(tf), axis=0),
    "reduce_prod_1": lambda tf: tf.reduce_prod(_rt(tf), axis=1),
    "reduce_any_1": lambda tf: tf.reduce_any(_rt(tf) > 3., axis=1),
    "reduce_all_1": lambda tf: tf.reduce_all(_rt(tf) > 1., axis=1),
    "reduce_sum_int_1": lambda tf: tf.reduce_sum(tf.ragged.constant([[1, 2], [], [3]]), axis=1),
    "reduce_max_int_1": lambda tf: tf.reduce_max(tf.ragged.constant([[1, 2], [], [3]]), axis=1),
    "reduce_sum_rank_2_axis_2": lambda tf: tf.reduce_sum(_rt2(tf), axis=2),
    "reduce_sum_inner_axis": lambda tf: tf.reduce_sum(tf.RaggedTensor.from_row_splits(
        np.arange(6.).reshape(3, 2), [0, 1, 1, 3]), axis=2),
    "reduce_sum_inner_1": lambda tf: tf.reduce_sum(tf.RaggedTensor.from_row_splits(
        np.arange(6.).reshape(3, 2), [0, 1, 1, 3]), axis=1),
    "concat_0": lambda tf: tf.concat([_rt(tf), tf.ragged.constant([[7., 8.]])], 0),
    "concat_1": lambda tf: tf.concat([_rt(tf), _rt(tf) * 10.], 1),
    "concat_0_rank_2": lambda tf: tf.concat([_rt2(tf), _rt2(tf)], 0),
    "concat_dense": lambda tf: tf.concat([_rt(tf), tf.constant([[0.], [1.], [2.]])], 1),
    "gather_rows": lambda tf: tf.gather(_rt(tf), [2, 0, 2]),
    "gather_rows_rank_2": lambda tf: tf.gather(_rt2(tf), [2, 1]),
    "gather_no_rows": lambda tf: tf.gather(_rt(tf), np.zeros([0], np.int32)),
    "stack_0": lambda tf: tf.stack([_rt(tf), _rt(tf)], 0),
    "stack_1": lambda tf: tf.stack([_rt(tf), _rt(tf) + 1.], 1),
})


# tf.strings' Unicode functions and bytes_split.  Malformed UTF-8: a stray continuation
# byte, a truncated 3-byte sequence, an overlong form, a surrogate, a lead past U+10FFFF.
_BAD_UTF8 = [b"a\x80b", b"\xe2\x82", b"\xe2\x82x", b"\xc0\xaf", b"\xed\xa0\x80",
             b"\xf4\x90\x80\x80", b"\xf0\x9f\x98\x8a!", b"\x01\x1fz"]
_UTF16 = ["h\u00e9\U0001f60a".encode("utf-16-be"), b"\xd8\x00\x00a", b"\x00a\x00",
          b"\xdc\x00"]
_UTF32 = ["x\U0001f60a".encode("utf-32-be"), b"\x00\x11\x00\x00", b"\x00\x00\xd8\x00",
          b"\x00\x00\x00a\x00"]


def _strings(tf, values):
    return tf.constant(np.array(values, dtype=object))


CASES.update({
    "unicode_decode": lambda tf: tf.strings.unicode_decode(
        ["h\u00e9llo", "", "\u4e16\u754c"], "UTF-8"),
    "unicode_decode_scalar": lambda tf: tf.strings.unicode_decode("h\u00e9", "UTF-8"),
    "unicode_decode_matrix": lambda tf: tf.strings.unicode_decode(
        [["ab", "\u00e9"], ["", "c"]], "UTF-8"),
    "unicode_decode_bad_replace": lambda tf: tf.strings.unicode_decode(
        _strings(tf, _BAD_UTF8), "UTF-8"),
    "unicode_decode_bad_ignore": lambda tf: tf.strings.unicode_decode(
        _strings(tf, _BAD_UTF8), "UTF-8", errors="ignore"),
    "unicode_decode_bad_char": lambda tf: tf.strings.unicode_decode(
        _strings(tf, _BAD_UTF8), "UTF-8", replacement_char=63),
    "unicode_decode_controls": lambda tf: tf.strings.unicode_decode(
        _strings(tf, _BAD_UTF8), "UTF-8", replace_control_characters=True),
    "unicode_decode_utf16": lambda tf: tf.strings.unicode_decode(
        _strings(tf, _UTF16), "UTF-16-BE"),
    "unicode_decode_utf32": lambda tf: tf.strings.unicode_decode(
        _strings(tf, _UTF32), "UTF-32-BE"),
    "unicode_decode_with_offsets": lambda tf: list(tf.strings.unicode_decode_with_offsets(
        _strings(tf, _BAD_UTF8), "UTF-8")),
    "unicode_decode_with_offsets_utf16": lambda tf: list(
        tf.strings.unicode_decode_with_offsets(_strings(tf, _UTF16), "UTF-16-BE")),
    "unicode_split": lambda tf: tf.strings.unicode_split(
        ["h\u00e9llo", "", "\u4e16\u754c"], "UTF-8"),
    "unicode_split_bad": lambda tf: tf.strings.unicode_split(
        _strings(tf, _BAD_UTF8), "UTF-8"),
    "unicode_split_with_offsets": lambda tf: list(tf.strings.unicode_split_with_offsets(
        ["\u00e9a", "\U0001f60a"], "UTF-8")),
    "unicode_encode": lambda tf: tf.strings.unicode_encode(
        tf.ragged.constant([[104, 233], [], [0x1F60A, 65]]), "UTF-8"),
    "unicode_encode_utf16": lambda tf: tf.strings.unicode_encode(
        tf.ragged.constant([[104, 233], [0x1F60A]]), "UTF-16-BE"),
    "unicode_encode_utf32": lambda tf: tf.strings.unicode_encode(
        tf.ragged.constant([[104, 0x1F60A]]), "UTF-32-BE"),
    "unicode_encode_bad_replace": lambda tf: tf.strings.unicode_encode(
        tf.ragged.constant([[65, -1, 0xD800, 0x110000, 66]]), "UTF-8"),
    "unicode_encode_bad_ignore": lambda tf: tf.strings.unicode_encode(
        tf.ragged.constant([[65, -1, 0xD800, 0x110000, 66]]), "UTF-8", errors="ignore"),
    "unicode_encode_bad_char": lambda tf: tf.strings.unicode_encode(
        tf.ragged.constant([[65, -1, 66]]), "UTF-8", replacement_char=42),
    "unicode_encode_dense": lambda tf: tf.strings.unicode_encode([[104, 105], [106, 107]],
                                                                 "UTF-8"),
    "unicode_encode_vector": lambda tf: tf.strings.unicode_encode([104, 105], "UTF-8"),
    "unicode_encode_rank_2": lambda tf: tf.strings.unicode_encode(
        tf.ragged.constant([[[104], [105, 106]], []]), "UTF-8"),
    "unicode_transcode": lambda tf: tf.strings.unicode_transcode(
        ["h\u00e9", "\U0001f60a"], "UTF-8", "UTF-16-BE"),
    "unicode_transcode_bad": lambda tf: tf.strings.unicode_transcode(
        _strings(tf, _BAD_UTF8), "UTF-8", "UTF-8"),
    "unicode_transcode_bad_ignore": lambda tf: tf.strings.unicode_transcode(
        _strings(tf, _BAD_UTF8), "UTF-8", "UTF-32-BE", errors="ignore"),
    "unicode_transcode_matrix": lambda tf: tf.strings.unicode_transcode(
        [["a", "\u00e9"]], "UTF-8", "UTF-8"),
    "unicode_transcode_utf16": lambda tf: tf.strings.unicode_transcode(
        _strings(tf, _UTF16), "UTF-16-BE", "UTF-8", replacement_char=35),
    "unicode_script": lambda tf: tf.strings.unicode_script(
        [[72, 0x416, 0x4e16, 0x3042], [0x5d0, 0x300, 0x1f60a, 0xe000], [0xd800, -1, 0x110000,
                                                                       0x10ffff]]),
    "unicode_script_empty": lambda tf: tf.strings.unicode_script(np.zeros([0], np.int32)),
    "unicode_script_ragged": lambda tf: tf.strings.unicode_script(
        tf.strings.unicode_decode(["h\u00e9\u4e16", ""], "UTF-8")),
    "bytes_split": lambda tf: tf.strings.bytes_split(["h\u00e9", "", "ab"]),
    "bytes_split_scalar": lambda tf: tf.strings.bytes_split("abc"),
    "bytes_split_matrix": lambda tf: tf.strings.bytes_split([["ab", ""], ["c", "de"]]),
})


def _hidden(tf, value, dtype=np.int64):
    """``value`` as a tensor the graph cannot see into (TF checks constants statically)."""
    return tf.placeholder_with_default(np.array(value, dtype), [None])


ERROR_CASES = {
    "row_splits_not_zero": lambda tf: tf.RaggedTensor.from_row_splits(
        [1, 2], _hidden(tf, [1, 2])),
    "row_splits_decreasing": lambda tf: tf.RaggedTensor.from_row_splits(
        [1, 2], _hidden(tf, [0, 2, 1, 2])),
    "row_splits_too_few_values": lambda tf: tf.RaggedTensor.from_row_splits(
        [1, 2], _hidden(tf, [0, 3])),
    "row_lengths_negative": lambda tf: tf.RaggedTensor.from_row_lengths(
        [1, 2], _hidden(tf, [3, -1])),
    "value_rowids_unsorted": lambda tf: tf.RaggedTensor.from_value_rowids(
        [1, 2], _hidden(tf, [1, 0])),
    "range_zero_delta": lambda tf: tf.ragged.range([0, 1], [3, 4], _hidden(tf, [1, 0], np.int32)),
    "range_sizes_differ": lambda tf: tf.ragged.range(
        _hidden(tf, [0, 1], np.int32), _hidden(tf, [2, 3, 4], np.int32)),
    "getitem_out_of_range": lambda tf: _rt(tf)[5],
    "uniform_row_length_uneven": lambda tf: tf.RaggedTensor.from_uniform_row_length(
        [1, 2, 3], tf.placeholder_with_default(np.int64(2), []), nrows=2),
    "unicode_decode_strict": lambda tf: tf.strings.unicode_decode(
        _strings(tf, [b"ok", b"a\x80"]), "UTF-8", errors="strict"),
    "unicode_encode_strict": lambda tf: tf.strings.unicode_encode(
        tf.ragged.constant([[65, 0xD800]]), "UTF-8", errors="strict"),
    "unicode_decode_unknown_encoding": lambda tf: tf.strings.unicode_decode(
        ["a"], "UTF-7-XYZ"),
    "unicode_transcode_strict": lambda tf: tf.strings.unicode_transcode(
        [b"\xff"], "UTF-8", "UTF-16-BE", errors="strict"),
    "unicode_decode_bad_errors": lambda tf: tf.strings.unicode_decode(
        ["a"], "UTF-8", errors="bad"),
    "map_flat_values_splits_differ": lambda tf: tf.ragged.map_flat_values(
        tf.add, _rt(tf), tf.RaggedTensor.from_row_splits([1., 2., 3., 4., 5.],
                                                         _hidden(tf, [0, 1, 2, 5]))),
}
