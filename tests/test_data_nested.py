"""``Dataset.interleave`` and ``flat_map``: a dataset per element, run as a nested
pipeline (``kernels/reference/dataset.py``), in TF's deterministic order."""

from __future__ import annotations

import pytest

import devsession as ds
from test_data import run_all

Dataset = ds.data.Dataset


def repeated(x):
    """``x`` repeated ``x`` times (TF's programs below wrote ``tf.fill([x], x)``)."""
    return Dataset.from_tensor_slices(ds.fill(ds.reshape(x, [1]), x))


def offsets(x):
    return Dataset.from_tensor_slices(ds.range(x)).map(lambda y: y + 10 * x)


# TF 2.21 produced these (tf.compat.v1 graph mode, the same pipelines with tf.data)
TF_ORDERS = [
    # Dataset.range(1, 6).interleave(repeated, cycle_length=2, block_length=1)
    ((1, 6, repeated, 2, 1), [1, 2, 2, 3, 3, 4, 3, 4, 4, 5, 4, 5, 5, 5, 5]),
    # ... cycle_length=3, block_length=2
    ((1, 6, repeated, 3, 2), [1, 2, 2, 3, 3, 4, 4, 3, 4, 4, 5, 5, 5, 5, 5]),
    # Dataset.range(0, 5).interleave(offsets, cycle_length=2, block_length=3)
    ((0, 5, offsets, 2, 3), [10, 20, 21, 30, 31, 32, 40, 41, 42, 43]),
]


@pytest.mark.parametrize("case, tf_order", TF_ORDERS)
def test_interleave_gives_tfs_order(case, tf_order):
    start, stop, fn, cycle, block = case
    dataset = Dataset.range(start, stop).interleave(fn, cycle_length=cycle,
                                                    block_length=block)
    assert dataset.output_types == ds.int64
    assert [int(v) for v in run_all(dataset)] == tf_order


def test_flat_map_gives_tfs_order():
    # TF 2.21: Dataset.range(1, 5).flat_map(repeated)
    assert [int(v) for v in run_all(Dataset.range(1, 5).flat_map(repeated))] == \
        [1, 2, 2, 3, 3, 3, 4, 4, 4, 4]


def test_interleaved_record_files_then_parsed_and_batched(tmp_path):
    paths = []
    for name in "abc":
        paths.append(str(tmp_path / f"{name}.tfrecord"))
        with ds.io.TFRecordWriter(paths[-1]) as writer:
            for i in range(3):
                example = ds.train.Example(features=ds.train.Features(feature={
                    "v": ds.train.Feature(int64_list=ds.train.Int64List(
                        value=[10 * "abc".index(name) + i]))}))
                writer.write(example.SerializeToString())
    files = ds.placeholder(ds.string, [None])
    spec = {"v": ds.io.FixedLenFeature([], ds.int64)}
    dataset = Dataset.from_tensor_slices(files) \
        .interleave(ds.data.TFRecordDataset, cycle_length=2) \
        .map(lambda record: ds.parse_single_example(record, spec)["v"]).batch(4)
    iterator = dataset.make_initializable_iterator()
    with ds.Session() as sess:
        sess.run(iterator.initializer, {files: paths})
        batches = [sess.run(iterator.get_next()).tolist() for _ in range(3)]
    assert batches == [[0, 10, 1, 11], [2, 12, 20, 21], [22]]


def test_interleave_inside_a_zip_and_after_a_map():
    left = Dataset.range(1, 4).map(lambda x: x * 2).flat_map(repeated)
    both = Dataset.zip((Dataset.range(100), left))
    assert [(int(a), int(b)) for a, b in run_all(both)][:4] == [(0, 2), (1, 2), (2, 4), (3, 4)]
    assert len(run_all(both)) == 2 + 4 + 6


def test_a_function_not_returning_a_dataset_is_a_type_error():
    with pytest.raises(TypeError, match="must return a Dataset, got Tensor"):
        Dataset.range(3).flat_map(lambda x: x + 1)
    with pytest.raises(TypeError, match="must return tensors, got Dataset"):
        Dataset.range(3).map(lambda x: Dataset.range(2))
    with pytest.raises(ValueError, match="cycle_length must be positive"):
        Dataset.range(3).interleave(repeated, cycle_length=0)


def test_a_graph_def_with_an_interleave_imports_and_runs():
    graph = ds.Graph()
    with graph.as_default():
        Dataset.range(1, 4).interleave(repeated, cycle_length=2) \
            .make_one_shot_iterator().get_next(name="next")
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(graph.as_graph_def(), name="")
    with ds.Session(graph=imported) as sess:
        assert [int(sess.run("next:0")) for _ in range(6)] == [1, 2, 2, 3, 3, 3]
