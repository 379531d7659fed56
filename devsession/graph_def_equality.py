"""``tf.test.assert_equal_graph_def``: two GraphDefs describe the same graph, as TF's
``EqualGraphDef`` decides it: the same nodes by name (in any order), each with the same
op, device, data inputs in order, control inputs as a set, and attrs (internal ones,
named ``_...``, ignored).  The failure names the first difference."""

from __future__ import annotations

import re

from .proto import graph_pb2

__all__ = ["assert_equal_graph_def", "graph_def_difference"]

# the random part of a sharded save's temporary file name (TF's Saver writes one)
_SHARDED_SAVE = re.compile(rb"_temp_[0-9a-z]{32}/part")


def assert_equal_graph_def(actual, expected, checkpoint_v2: bool = False,
                           hash_table_shared_name: bool = False) -> None:
    """AssertionError naming the first difference between the GraphDefs; with
    ``checkpoint_v2`` a Saver's randomized temporary file names, with
    ``hash_table_shared_name`` hash tables' shared names, are not compared."""
    for name, value in (("actual", actual), ("expected", expected)):
        if not isinstance(value, graph_pb2.GraphDef):
            raise TypeError(f"Expected tf.GraphDef for {name}, got {type(value).__name__}")
    if checkpoint_v2 or hash_table_shared_name:
        actual, expected = graph_pb2.GraphDef.FromString(actual.SerializeToString()), \
            graph_pb2.GraphDef.FromString(expected.SerializeToString())
        for graph_def in (actual, expected):
            if checkpoint_v2:
                _drop_sharded_save_names(graph_def)
            if hash_table_shared_name:
                _drop_hash_table_names(graph_def)
    difference = graph_def_difference(actual, expected)
    if difference:
        raise AssertionError(difference)


def graph_def_difference(actual, expected) -> str:
    """The first difference between two GraphDefs' nodes, or ""."""
    theirs = {node.name: node for node in expected.node}
    for node in actual.node:
        if node.name not in theirs:
            return f"Found unexpected node '{_summary(node)}' not in expected graph:\n" \
                   f"{_listing(expected)}"
    ours = {node.name for node in actual.node}
    for node in expected.node:
        if node.name not in ours:
            return f"Did not find expected node '{_summary(node)}'"
    for node in actual.node:
        difference = _node_difference(node, theirs[node.name])
        if difference:
            return difference
    return ""


def _node_difference(actual, expected) -> str:
    name = actual.name
    if actual.op != expected.op:
        return f"Node named '{name}' has op {actual.op} that does not match expected " \
               f"{expected.op}"
    if actual.device != expected.device:
        return f"Node named '{name}' has device {actual.device} that does not match " \
               f"expected {expected.device}"
    data, control = _inputs(actual)
    expected_data, expected_control = _inputs(expected)
    if data != expected_data:
        return f"Node named '{name}' has inputs {list(data)} that do not match expected " \
               f"{list(expected_data)}"
    if control != expected_control:
        return f"Node named '{name}' has control inputs {sorted(control)} that do not " \
               f"match expected {sorted(expected_control)}"
    attrs = {key for key in actual.attr if not key.startswith("_")}
    expected_attrs = {key for key in expected.attr if not key.startswith("_")}
    for key in sorted(expected_attrs - attrs):
        return f"Node named '{name}' missing expected attr '{key}'"
    for key in sorted(attrs - expected_attrs):
        return f"Node named '{name}' has unexpected attr '{key}' with value: " \
               f"{_text(actual.attr[key])}"
    for key in sorted(attrs):
        if actual.attr[key].SerializeToString(deterministic=True) != \
                expected.attr[key].SerializeToString(deterministic=True):
            return f"Node named '{name}' has attr '{key}' with value: " \
                   f"{_text(actual.attr[key])} that does not match expected: " \
                   f"{_text(expected.attr[key])}"
    return ""


def _inputs(node) -> tuple[tuple, frozenset]:
    data = tuple(i for i in node.input if not i.startswith("^"))
    return data, frozenset(i for i in node.input if i.startswith("^"))


def _summary(node) -> str:
    return f"{node.name} = {node.op}({', '.join(node.input)})"


def _listing(graph_def) -> str:
    return "\n".join(_summary(node) for node in graph_def.node)


def _text(value) -> str:
    return str(value).strip().replace("\n", " ")


def _drop_sharded_save_names(graph_def) -> None:
    for node in graph_def.node:
        for key in [k for k, v in node.attr.items()
                    if any(_SHARDED_SAVE.search(s) for s in v.tensor.string_val)]:
            del node.attr[key]


def _drop_hash_table_names(graph_def) -> None:
    for node in graph_def.node:
        if node.op == "HashTableV2" and "shared_name" in node.attr:
            node.attr["shared_name"].s = b""
