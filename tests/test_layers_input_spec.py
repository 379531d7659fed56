"""tf.layers.InputSpec (devsession/layers_input_spec.py): a custom layer's input_spec is
checked on every call as TF's legacy tf.layers check it; every case in
tests/data/input_spec_cases.py gives TensorFlow's outcome (tests/data/tf_input_spec.json,
written by make_tf_input_spec.py)."""

import json
import os

import pytest

import devsession as ds
import input_spec_cases as cases

RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                       "tf_input_spec.json")))


@pytest.mark.parametrize("spec,x", cases.CALLS)
def test_a_call_is_checked_as_tensorflow_checks_it(spec, x):
    with ds.Graph().as_default():
        assert cases.call_outcome(ds, spec, x) == RECORDED["calls"][f"{spec}/{x}"]


@pytest.mark.parametrize("name", sorted(cases.CONSTRUCTIONS))
def test_a_spec_is_made_as_tensorflow_makes_it(name):
    assert cases.construction_outcome(ds, name) == RECORDED["constructions"][name]


def test_specs_of_several_inputs_are_matched_in_order_or_by_name():
    class Pair(ds.layers.Layer):
        def call(self, inputs):
            return inputs["a"] if isinstance(inputs, dict) else inputs[0]

    with ds.Graph().as_default():
        layer = Pair(name="pair")
        layer.input_spec = [ds.layers.InputSpec(ndim=2, name="a"),
                            ds.layers.InputSpec(dtype="int32", name="b")]
        a, b = ds.placeholder(ds.float32, [2, 3]), ds.placeholder(ds.int32, [4])
        assert layer([a, b]) is not None and layer({"b": b, "a": a}) is not None
        with pytest.raises(ValueError, match=r'Input 1 of layer "pair" is incompatible with '
                                             r"the layer: expected dtype=int32"):
            layer([a, a])
        with pytest.raises(ValueError, match='Layer "pair" expects 2 input'):
            layer([a])
        with pytest.raises(ValueError, match='Missing data for input "b"'):
            layer({"a": a})
        with pytest.raises(TypeError, match="Inputs to a layer should be tensors"):
            layer([a, "b"])
