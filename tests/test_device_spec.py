"""DeviceSpec parsing, canonical strings and TF-style merging; device scopes on ops;
SessionOptions' canonical device.  Pure graph building: no session runs here."""

from __future__ import annotations

import dataclasses

import pytest

import devsession as ds
from devsession.device_spec import DeviceSpec, canonical_device


# --- parsing ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, fields, canonical", [
    ("cpu", dict(device_type="CPU", device_index=None), "/device:CPU:*"),
    ("CPU", dict(device_type="CPU", device_index=None), "/device:CPU:*"),
    ("gpu:1", dict(device_type="GPU", device_index=1), "/device:GPU:1"),
    ("cuda:0", dict(device_type="GPU", device_index=0), "/device:GPU:0"),
    ("/gpu:0", dict(device_type="GPU", device_index=0), "/device:GPU:0"),
    ("/cpu:0", dict(device_type="CPU", device_index=0), "/device:CPU:0"),
    ("/device:GPU:0", dict(device_type="GPU", device_index=0), "/device:GPU:0"),
    ("/device:cuda:3", dict(device_type="GPU", device_index=3), "/device:GPU:3"),
    ("/device:CPU:*", dict(device_type="CPU", device_index=None), "/device:CPU:*"),
    ("/job:worker/replica:0/task:1/device:gpu:2",
     dict(job="worker", replica=0, task=1, device_type="GPU", device_index=2),
     "/job:worker/replica:0/task:1/device:GPU:2"),
    ("/job:worker/task:1", dict(job="worker", task=1), "/job:worker/task:1"),
    ("/job:ps", dict(job="ps"), "/job:ps"),
    ("/replica:1", dict(replica=1), "/replica:1"),
    ("/job:worker/task:1/gpu:0", dict(job="worker", task=1, device_type="GPU", device_index=0),
     "/job:worker/task:1/device:GPU:0"),
    ("  /device:GPU:0  ", dict(device_type="GPU", device_index=0), "/device:GPU:0"),
])
def test_parse_long_and_short_forms(text, fields, canonical):
    spec = DeviceSpec.parse(text)
    assert spec == DeviceSpec(**fields)
    assert str(spec) == canonical
    assert spec.to_string() == canonical
    assert canonical_device(text) == canonical
    # The canonical string parses back to the same value.
    assert DeviceSpec.parse(canonical) == spec


@pytest.mark.parametrize("empty", [None, "", "   "])
def test_parse_empty_is_empty_spec(empty):
    spec = DeviceSpec.parse(empty)
    assert spec == DeviceSpec()
    assert spec.is_empty
    assert str(spec) == ""


def test_parse_passes_a_devicespec_through():
    spec = DeviceSpec(job="worker", task=2)
    assert DeviceSpec.parse(spec) is spec


def test_short_and_long_forms_are_equal_and_hash_alike():
    spellings = ["gpu:1", "cuda:1", "/gpu:1", "/device:GPU:1", "/device:gpu:1", "GPU:1"]
    specs = [DeviceSpec.parse(s) for s in spellings]
    assert len(set(specs)) == 1
    assert {specs[0]: "x"}[DeviceSpec.parse("/device:cuda:1")] == "x"


def test_devicespec_is_immutable():
    spec = DeviceSpec.parse("/job:worker/device:GPU:0")
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.job = "ps"
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.device_index = 3
    # replace() returns a new value and leaves the original alone.
    other = spec.replace(task=4)
    assert str(other) == "/job:worker/task:4/device:GPU:0"
    assert str(spec) == "/job:worker/device:GPU:0"


def test_task_key_and_local_name():
    spec = DeviceSpec.parse("/job:worker/task:1/device:GPU:2")
    assert spec.task_key == ("worker", 1)
    assert spec.local_name() == "/device:GPU:2"
    assert DeviceSpec.parse("/job:ps").local_name() == "/device:CPU:0"
    assert DeviceSpec.parse("gpu").local_name() == "/device:GPU:0"


@pytest.mark.parametrize("text, bad_part", [
    ("tpu:0", "tpu:0"),
    ("/job:", "job:"),
    ("/task:x", "task:x"),
    ("/replica:one", "replica:one"),
    ("/job:w/foo:1", "foo:1"),
    ("/job:worker/bogus", "bogus"),
])
def test_invalid_spec_is_value_error_naming_the_part(text, bad_part):
    with pytest.raises(ValueError) as info:
        DeviceSpec.parse(text)
    message = str(info.value)
    assert repr(bad_part) in message
    assert repr(text) in message


def test_unknown_device_type_in_device_field_is_named():
    with pytest.raises(ValueError, match=r"Unknown device type 'TPU' in '/device:TPU:0'"):
        DeviceSpec.parse("/device:TPU:0")


@pytest.mark.parametrize("text", ["/device:GPU:x", "gpu:0:1", "/device:GPU:0:1"])
def test_bad_device_index_names_the_spec(text):
    with pytest.raises(ValueError, match="Cannot parse device spec"):
        DeviceSpec.parse(text)


@pytest.mark.parametrize("text", ["gpu:-1", "/device:GPU:-1"])
def test_negative_device_index_is_rejected(text):
    with pytest.raises(ValueError):
        DeviceSpec.parse(text)


@pytest.mark.parametrize("value", [3, 1.5, ["gpu:0"]])
def test_non_string_spec_is_type_error(value):
    with pytest.raises(TypeError, match="A device spec must be a string"):
        DeviceSpec.parse(value)


# --- merging ------------------------------------------------------------------------------

@pytest.mark.parametrize("outer, inner, merged", [
    ("/job:worker/task:1", "/device:GPU:0", "/job:worker/task:1/device:GPU:0"),
    ("/job:worker/task:1", "cuda:0", "/job:worker/task:1/device:GPU:0"),
    ("/job:worker/task:1/device:GPU:0", "/job:ps", "/job:ps/task:1/device:GPU:0"),
    ("/job:worker/task:1/device:GPU:0", "/task:3", "/job:worker/task:3/device:GPU:0"),
    ("/job:worker/device:GPU:1", "cpu:0", "/job:worker/device:CPU:0"),
    # Inner device type without an index clears the outer index (TF semantics).
    ("/device:GPU:1", "cpu", "/device:CPU:*"),
    ("/job:w/replica:2/device:GPU:1", "", "/job:w/replica:2/device:GPU:1"),
    ("", "/job:w/task:0", "/job:w/task:0"),
])
def test_merge_inner_fields_win(outer, inner, merged):
    outer_spec = DeviceSpec.parse(outer)
    result = outer_spec.merge(inner)
    assert str(result) == merged
    assert result == DeviceSpec.parse(merged)
    # Merging makes a new value; the outer one is unchanged.
    assert outer_spec == DeviceSpec.parse(outer)


# --- device scopes on ops -----------------------------------------------------------------

def test_nested_device_scopes_merge_into_op_device(graph):
    with ds.device("/job:worker/task:1"):
        a = ds.constant(1.0, name="a")
        with ds.device("/device:GPU:0"):
            b = ds.constant(2.0, name="b")
            with ds.device("cpu"):
                c = ds.constant(3.0, name="c")
            with ds.device("/job:ps"):
                d = ds.constant(4.0, name="d")
        e = ds.constant(5.0, name="e")
    f = ds.constant(6.0, name="f")
    assert a.op.device == "/job:worker/task:1"
    assert b.op.device == "/job:worker/task:1/device:GPU:0"
    assert c.op.device == "/job:worker/task:1/device:CPU:*"
    assert d.op.device == "/job:ps/task:1/device:GPU:0"
    assert e.op.device == "/job:worker/task:1"
    assert f.op.device == ""
    assert b.device == b.op.device  # Tensor.device mirrors its op


def test_device_scope_short_forms_are_canonical_on_ops(graph):
    with ds.device("gpu:1"):
        x = ds.placeholder(ds.float32, (2,), name="x")
        y = x * 2.0
    assert x.op.device == "/device:GPU:1"
    assert y.op.device == "/device:GPU:1"
    # The implicit Const for 2.0 is placed too.
    assert y.op.inputs[1].op.device == "/device:GPU:1"


def test_device_none_clears_outer_scopes(graph):
    with ds.device("/job:worker/task:1"), ds.device("gpu:0"):
        with ds.device(None):
            cleared = ds.constant(1.0)
            with ds.device("cpu:0"):
                inner = ds.constant(1.0)
        restored = ds.constant(1.0)
    assert cleared.op.device == ""
    assert inner.op.device == "/device:CPU:0"
    assert restored.op.device == "/job:worker/task:1/device:GPU:0"


def test_device_scope_accepts_devicespec_and_graph_method(graph):
    with graph.device(DeviceSpec(job="worker", task=0)):
        a = ds.constant(1.0)
    assert a.op.device == "/job:worker/task:0"


def test_invalid_device_scope_raises_before_entering(graph):
    with pytest.raises(ValueError, match="Cannot parse device spec"):
        with ds.device("/job:worker/nonsense"):
            pass  # pragma: no cover
    # The failed scope did not leave anything on the stack.
    assert ds.constant(1.0).op.device == ""


def test_device_scope_is_popped_after_an_exception(graph):
    with pytest.raises(RuntimeError):
        with ds.device("gpu:0"):
            raise RuntimeError("boom")
    assert ds.constant(1.0).op.device == ""


def test_variable_nodes_follow_the_device_scope(graph):
    with ds.device("/job:ps/task:0"):
        v = ds.Variable(1.0, name="v")
    for name in ("v", "v/initial_value", "v/Assign", "v/read"):
        assert graph.get_operation_by_name(name).device == "/job:ps/task:0"
    assert v.device == "/job:ps/task:0"


# --- SessionOptions -------------------------------------------------------------------------

@pytest.mark.parametrize("given, canonical", [
    ("gpu:1", "/device:GPU:1"),
    ("cuda:0", "/device:GPU:0"),
    ("/gpu:0", "/device:GPU:0"),
    ("cpu", "/device:CPU:*"),
    ("/device:GPU:0", "/device:GPU:0"),
    ("/job:worker/task:1/gpu:0", "/job:worker/task:1/device:GPU:0"),
    ("", ""),
    (None, ""),
])
def test_session_options_canonicalise_device(given, canonical):
    opts = ds.SessionOptions(device=given)
    assert isinstance(opts.device, DeviceSpec)      # parsed once, at the boundary
    assert opts.device == DeviceSpec.parse(canonical)
    assert str(opts.device) == canonical


def test_session_options_equal_for_equal_devices_and_hashable():
    a = ds.SessionOptions(device="gpu:1")
    b = ds.SessionOptions(device="/device:cuda:1")
    assert a == b
    assert hash(a) == hash(b)
    assert ds.SessionOptions(device="gpu:0") != a


def test_session_options_are_immutable():
    opts = ds.SessionOptions(device="gpu:1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.device = "cpu"
    changed = opts.replace(device="cuda:0")
    assert str(changed.device) == "/device:GPU:0"
    assert str(opts.device) == "/device:GPU:1"


def test_session_options_defaults_and_target():
    opts = ds.SessionOptions()
    assert opts.target == ""
    assert opts.device.is_empty and str(opts.device) == ""
    assert opts.allow_soft_placement is True
    assert opts.log_device_placement is False
    assert opts.is_local
    assert ds.SessionOptions(target=" local ").target == "local"
    assert not ds.SessionOptions(target="grpc://127.0.0.1:2222").is_local


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(device="tpu"), ValueError, "'tpu'"),
    (dict(device="/job:worker/bogus:1"), ValueError, "'bogus:1'"),
    (dict(device=3), TypeError, "must be a string"),
    (dict(target=5), TypeError, "target must be a string"),
    (dict(operation_timeout_s=0), ValueError, "operation_timeout_s"),
    (dict(operation_timeout_s=-1.0), ValueError, "operation_timeout_s"),
    (dict(inter_op_threads=-1), ValueError, "inter_op_threads"),
    (dict(intra_op_threads=-2), ValueError, "intra_op_threads"),
])
def test_session_options_reject_bad_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        ds.SessionOptions(**kwargs)
