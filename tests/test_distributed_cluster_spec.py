"""ClusterSpec: parsing, checking and printing the cluster's tasks (no sockets)."""

from __future__ import annotations

import json

import pytest

import devsession as ds
from devsession.distributed.cluster_spec import ClusterSpec, parse_address, parse_task_name, \
    task_name


def test_dense_and_sparse_jobs():
    spec = ds.ClusterSpec({"worker": ["127.0.0.1:2222", "127.0.0.1:2223"],
                           "ps": {0: "h:1", 3: "h:4"}})
    assert spec.jobs == ["ps", "worker"]
    assert spec.num_tasks("worker") == 2 and spec.task_indices("ps") == [0, 3]
    assert spec.task_address("ps", 3) == "h:4"
    assert spec.job_tasks("ps") == ["h:1", None, None, "h:4"]
    assert spec.tasks() == [("ps", 0), ("ps", 3), ("worker", 0), ("worker", 1)]
    assert spec.as_dict() == {"ps": {0: "h:1", 3: "h:4"},
                              "worker": ["127.0.0.1:2222", "127.0.0.1:2223"]}
    assert ClusterSpec(spec) == spec and hash(ClusterSpec(spec)) == hash(spec)
    assert spec.task_names()[0] == "/job:ps/replica:0/task:0"


def test_string_forms_round_trip():
    text = "worker=127.0.0.1:2222,127.0.0.1:2223;ps=[::1]:2224"
    spec = ClusterSpec.from_string(text)
    assert spec.task_address("ps", 0) == "[::1]:2224"
    assert ClusterSpec.from_string(spec.to_string()) == spec
    sparse = ClusterSpec({"w": {1: "a:1"}})
    assert ClusterSpec.from_string(sparse.to_string()) == sparse
    assert ClusterSpec.from_string(json.dumps({"w": ["a:1"]})) == ClusterSpec({"w": ["a:1"]})


def test_tf_config_shape():
    config = json.dumps({"cluster": {"worker": ["a:1", "b:2"]},
                         "task": {"type": "worker", "index": 1}})
    spec, job, task = ClusterSpec.from_tf_config(config)
    assert spec.task_address(job, task) == "b:2"
    with pytest.raises(ValueError, match="cluster"):
        ClusterSpec.from_tf_config('{"task": {}}')
    with pytest.raises(ValueError, match="JSON"):
        ClusterSpec.from_tf_config("{nope")


@pytest.mark.parametrize("bad, match", [
    ({"worker": ["nohost"]}, "host:port"),
    ({"worker": ["h:99999"]}, "host:port"),
    ({"1job": ["h:1"]}, "Job name"),
    ({"worker": ["h:1", "h:1"]}, "both"),
    ({"worker": 3}, "list or a dict"),
])
def test_bad_specs_say_what_is_wrong(bad, match):
    with pytest.raises((ValueError, TypeError), match=match):
        ClusterSpec(bad)


def test_port_zero_may_repeat_and_be_replaced():
    spec = ClusterSpec({"w": ["127.0.0.1:0", "127.0.0.1:0"]})
    resolved = spec.with_address("w", 1, "127.0.0.1:5000")
    assert resolved.task_address("w", 1) == "127.0.0.1:5000"
    assert spec.task_address("w", 1) == "127.0.0.1:0"


def test_lookups_of_missing_tasks_list_what_exists():
    spec = ClusterSpec({"worker": ["a:1"]})
    with pytest.raises(ValueError, match="jobs: \\['worker'\\]"):
        spec.task_address("ps", 0)
    with pytest.raises(ValueError, match="tasks: \\[0\\]"):
        spec.task_address("worker", 4)
    assert not spec.has_task("worker", 4) and not ClusterSpec()


def test_task_names():
    assert task_name("worker", 2) == "/job:worker/replica:0/task:2"
    assert parse_task_name("/job:worker/replica:0/task:2") == ("worker", 2)
    assert parse_address("[::1]:80") == ("[::1]", 80)
    with pytest.raises(ValueError):
        parse_task_name("/device:CPU:0")
