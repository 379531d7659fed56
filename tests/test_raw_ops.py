"""ds.raw_ops beyond tests/tf1_programs/p73_raw_ops.py (checked against TensorFlow): which
op types it offers, names, and an op type devsession does not run."""

import pytest

import devsession as ds
from devsession.unsupported import UnsupportedTF1Error


def test_it_offers_devsessions_ops_and_those_its_importer_builds():
    names = dir(ds.raw_ops)
    assert {"Sum", "Conv2D", "DecodeWav", "Einsum", "BatchMatMulV2", "Select"} <= set(names)
    assert not [n for n in names if n.startswith("_")]          # devsession's private ops
    assert "MakeDatasetIterator" not in names                   # devsession's, not TF's
    assert ds.raw_ops.Sum.__name__ == "Sum" and "axis" in ds.raw_ops.Sum.__doc__


def test_an_op_type_devsession_does_not_run_is_unsupported():
    assert not hasattr(ds.raw_ops, "AudioSpectrogram")
    with pytest.raises(UnsupportedTF1Error, match="tf.raw_ops.AudioSpectrogram"):
        ds.raw_ops.AudioSpectrogram  # noqa: B018


def test_names_are_made_unique_as_the_graphs_are():
    with ds.Graph().as_default():
        first = ds.raw_ops.AddV2(x=1.0, y=2.0, name="total")
        second = ds.raw_ops.AddV2(x=first, y=2.0, name="total")
        assert (first.op.name, second.op.name) == ("total", "total_1")
        with ds.Session() as sess:
            assert sess.run(second) == 5.0
