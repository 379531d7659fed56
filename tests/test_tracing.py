"""Traced runs report every graph node that ran, fused or not, on every session type."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import devsession as ds
from devsession.distributed.transport.messages import stats_from_proto, stats_to_proto
from devsession.proto import worker_pb2

CHAIN = ["scaled", "shifted", "rectified", "centred"]   # the fused members, in order
CHAIN_OPS = ["Mul", "Add", "Relu", "Sub"]


def chain_graph():
    """x -> (x * 2 + 1) -> relu -> - x, all on one device so the chain fuses (the gRPC
    suite spreads only unplaced nodes over tasks)."""
    g = ds.Graph()
    with g.as_default(), ds.device("/device:CPU:0"):
        x = ds.placeholder(ds.float32, (None, 5), name="x")
        two = ds.constant(2.0, name="two")
        one = ds.constant(1.0, name="one")
        scaled = ds.multiply(x, two, name="scaled")
        shifted = ds.add(scaled, one, name="shifted")
        rectified = ds.nn.relu(shifted, name="rectified")
        centred = ds.subtract(rectified, x, name="centred")
    return g, x, centred


# Big enough that each member's share of the fused loop spans many microseconds, far
# above the resolution of epoch-second floats (~0.2 us).
XV = np.linspace(-2, 2, 500_000, dtype=np.float32).reshape(-1, 5)


def traced_run(sess, x, y):
    meta = ds.RunMetadata()
    out = sess.run(y, {x: XV}, options=ds.RunOptions(trace=True), run_metadata=meta)
    np.testing.assert_allclose(out, np.maximum(XV * 2 + 1, 0) - XV, rtol=1e-6)
    return meta


def test_every_member_of_a_fused_chain_has_a_stat_in_order(make_session):
    g, x, y = chain_graph()
    meta = traced_run(make_session(g), x, y)
    members = [s for s in meta.step_stats if s.node in CHAIN]
    assert [s.node for s in members] == CHAIN
    assert [s.op for s in members] == CHAIN_OPS
    # They ran inside one fused kernel (named after its root, as TF names fused nodes),
    # on one device, and tile the kernel's time in order.
    assert {s.kernel for s in members} == {"centred"}
    assert len({s.device for s in members}) == 1 and members[0].device.endswith("CPU:0")
    for before, after in zip(members, members[1:]):
        assert after.start == pytest.approx(before.start + before.duration, abs=1e-6)
    assert all(s.duration > 2e-6 for s in members)
    # Nodes that ran alone name no kernel; every executed node is there once.
    assert all(s.kernel == "" for s in meta.step_stats if s.node not in CHAIN)
    assert {"two", "one"} <= {s.node for s in meta.step_stats}
    assert len([s for s in meta.step_stats if s.node in CHAIN]) == len(CHAIN)


def test_unfused_chain_reports_the_same_nodes(make_session):
    g, x, y = chain_graph()
    sess = make_session(g, optimizer=ds.OptimizerOptions(fusion=False))
    meta = traced_run(sess, x, y)
    members = [s for s in meta.step_stats if s.node in CHAIN]
    assert [s.node for s in members] == CHAIN and all(s.kernel == "" for s in members)


def test_chrome_trace_names_the_fused_members(make_session):
    g, x, y = chain_graph()
    meta = traced_run(make_session(g), x, y)
    events = [e for e in json.loads(meta.chrome_trace())["traceEvents"] if e["ph"] == "X"]
    kernel = next(e for e in events if e["args"].get("members"))
    assert kernel["name"] == "centred" and kernel["args"]["members"] == CHAIN
    assert kernel["args"]["ops"] == CHAIN_OPS
    # Each member is an event of its own, nested in the kernel's interval, in order.
    nested = [e for e in events if e["args"].get("kernel") == "centred"]
    assert [e["name"] for e in nested] == CHAIN
    assert nested[0]["ts"] == pytest.approx(kernel["ts"])
    assert sum(e["dur"] for e in nested) == pytest.approx(kernel["dur"])
    assert all(e["pid"] == kernel["pid"] and e["tid"] == kernel["tid"] for e in nested)


def test_no_stats_without_trace(make_session):
    g, x, y = chain_graph()
    sess = make_session(g)
    meta = ds.RunMetadata()
    sess.run(y, {x: XV}, run_metadata=meta)
    sess.run(y, {x: XV}, options=ds.RunOptions(trace=False), run_metadata=meta)
    assert meta.step_stats == []
    assert json.loads(meta.chrome_trace())["traceEvents"] == []


def test_stats_keep_their_kernel_and_shapes_across_the_wire():
    stats = [ds.NodeStats("a", "Mul", "CPU:0", 1.0, 0.5, 7, kernel="b"),
             ds.NodeStats("b", "Relu", "CPU:0", 1.5, 0.5, 7, kernel="b",
                          output_shapes=((2, 3),)),
             ds.NodeStats("c", "Sum", "CPU:0", 2.0, 0.25, 7, output_shapes=((), (0, 4)))]
    reply = worker_pb2.RunGraphResponse()
    stats_to_proto(stats, reply.stats, "/job:worker/replica:0/task:1")
    decoded = stats_from_proto(worker_pb2.RunGraphResponse.FromString(
        reply.SerializeToString()).stats)
    assert decoded == [dataclasses.replace(s, device="/job:worker/replica:0/task:1/device:CPU:0")
                       for s in stats]


def test_tf1_trace_level_traces_and_step_stats_read_as_tf_proto(make_session):
    """TF1's ``RunOptions(trace_level=FULL_TRACE)``, and the walk TF1 code does over
    ``run_metadata.step_stats.dev_stats[i].node_stats``."""
    assert (ds.RunOptions.NO_TRACE, ds.RunOptions.SOFTWARE_TRACE,
            ds.RunOptions.HARDWARE_TRACE, ds.RunOptions.FULL_TRACE) == (0, 1, 2, 3)
    g, x, y = chain_graph()
    sess = make_session(g)
    meta = ds.RunMetadata()
    sess.run(y, {x: XV}, options=ds.RunOptions(trace_level=ds.RunOptions.FULL_TRACE),
             run_metadata=meta)
    assert {s.node for s in meta.step_stats} >= set(CHAIN)
    devices = meta.step_stats.dev_stats
    assert [d.device for d in devices] == sorted(meta.devices(), key=[
        s.device for s in meta.step_stats].index)
    nodes = [n for d in devices for n in d.node_stats]
    assert len(nodes) == len(meta.step_stats)
    by_name = {n.node_name: n for n in nodes}
    stat = next(s for s in meta.step_stats if s.node == "centred")
    centred = by_name["centred"]
    assert centred.timeline_label == "centred = Sub()"
    assert centred.all_start_micros == int(stat.start * 1e6)
    assert centred.op_end_rel_micros == centred.all_end_rel_micros == round(
        stat.duration * 1e6)
    assert centred.all_end_rel_micros >= centred.op_start_rel_micros == 0


def test_trace_level_and_trace_agree():
    assert ds.RunOptions(trace_level=ds.RunOptions.SOFTWARE_TRACE).trace
    assert not ds.RunOptions(trace_level=ds.RunOptions.NO_TRACE).trace
    assert ds.RunOptions(trace=True).trace_level == ds.RunOptions.FULL_TRACE
    assert ds.RunOptions().trace_level == ds.RunOptions.NO_TRACE
    assert ds.RunOptions(timeout_in_ms=250).timeout_s == 0.25
    assert ds.RunOptions(timeout_in_ms=0).timeout_s is None    # TF's 0: no deadline
    with pytest.raises(TypeError):
        ds.RunOptions(trace_level="FULL_TRACE")
    with pytest.raises(ValueError):
        ds.RunOptions(timeout_in_ms=-1)


def test_no_trace_level_gives_no_stats(make_session):
    g, x, y = chain_graph()
    sess = make_session(g)
    meta = ds.RunMetadata()
    sess.run(y, {x: XV}, options=ds.RunOptions(trace_level=ds.RunOptions.NO_TRACE),
             run_metadata=meta)
    assert meta.step_stats == [] and meta.step_stats.dev_stats == []
