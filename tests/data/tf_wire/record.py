"""Record TensorFlow's GraphDef schema for tests/test_tf_graphdef.py, and check both ways
that the two formats read each other.

    /work/peers/bin/python tests/data/tf_wire/record.py

Writes ``tf_descriptors.json``: for each message devsession's ``proto/graph.proto``
mirrors, TF's fields (name, number, type, repeated, message type) and TF's ``DataType``
enum.  The test checks every devsession field against it, so the two schemas cannot
drift apart without TensorFlow installed.  Before writing, it also checks what a schema
comparison cannot: a GraphDef devsession wrote, parsed by TF's own ``graph_pb2``, reads
back the same nodes, attrs and tensor values (and TF's ``import_graph_def`` accepts the
ops both have).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def descriptors() -> dict:
    from tensorflow.core.framework import (attr_value_pb2, graph_pb2, node_def_pb2, tensor_pb2,
                                           tensor_shape_pb2, types_pb2, versions_pb2)

    messages = {
        "GraphDef": graph_pb2.GraphDef, "NodeDef": node_def_pb2.NodeDef,
        "NodeDef.ExperimentalDebugInfo": node_def_pb2.NodeDef.ExperimentalDebugInfo,
        "AttrValue": attr_value_pb2.AttrValue,
        "AttrValue.ListValue": attr_value_pb2.AttrValue.ListValue,
        "NameAttrList": attr_value_pb2.NameAttrList, "TensorProto": tensor_pb2.TensorProto,
        "TensorShapeProto": tensor_shape_pb2.TensorShapeProto,
        "TensorShapeProto.Dim": tensor_shape_pb2.TensorShapeProto.Dim,
        "VersionDef": versions_pb2.VersionDef,
    }
    out = {"messages": {}, "DataType": {v.name: v.number
                                         for v in types_pb2.DataType.DESCRIPTOR.values}}
    for name, cls in messages.items():
        out["messages"][name] = {
            f.name: {"number": f.number, "type": f.type, "repeated": f.is_repeated,
                     "message": f.message_type.name if f.message_type else None}
            for f in cls.DESCRIPTOR.fields}
    return out


class _KernelsFinder:
    """Finds ``devsession.kernels`` in the repository's kernels/ folder, as an install
    maps it, so this script runs from a checkout in TensorFlow's environment."""

    def find_spec(self, name, path=None, target=None):
        if name != "devsession.kernels":
            return None
        import importlib.util

        folder = os.path.join(ROOT, "kernels")
        return importlib.util.spec_from_file_location(
            name, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])


def check_cross_parse() -> None:
    """A devsession GraphDef read by TF's graph_pb2 and imported by TF."""
    sys.path.insert(0, ROOT)
    sys.meta_path.insert(0, _KernelsFinder())
    import devsession as ds
    import tensorflow.compat.v1 as tf
    from tensorflow.core.framework import graph_pb2, tensor_pb2
    from tensorflow.python.framework import tensor_util

    g = ds.Graph()
    values = {"f32": np.arange(6, dtype=np.float32).reshape(2, 3), "i64": np.array([7, -8]),
              "f16": np.array([1.5, -0.0], np.float16), "b": np.array([True, False]),
              "f64": np.array(0.1)}
    with g.as_default():
        consts = {k: ds.constant(v, name=k) for k, v in values.items()}
        x = ds.placeholder(ds.float32, (None, 3), name="x")
        y = ds.matmul(x, consts["f32"], transpose_b=True, name="y")
        ds.reduce_sum(y, axis=[0, -1], keepdims=True, name="s")
        ds.random_uniform((2,), minval=0.1, maxval=2.5, name="r")
    data = g.as_graph_def().SerializeToString()
    tf_gd = graph_pb2.GraphDef.FromString(data)
    nodes = {n.name: n for n in tf_gd.node}
    assert [n.name for n in tf_gd.node] == [op.name for op in g.get_operations()]
    for key, value in values.items():
        got = tensor_util.MakeNdarray(nodes[key].attr["value"].tensor)
        assert got.dtype == value.dtype and np.array_equal(got, value), key
    assert list(nodes["x"].attr["shape"].shape.dim) == list(
        tf.TensorShape([None, 3]).as_proto().dim)
    assert nodes["y"].attr["transpose_b"].b and list(nodes["s"].attr["axis"].list.i) == [0, 1]
    assert nodes["r"].attr["maxval"].f == 2.5          # float32-exact: TF's float field
    assert nodes["r"].attr["minval"].WhichOneof("value") is None  # 0.1: devsession's double
    # TF imports the nodes whose op it shares with devsession's form.
    shared = graph_pb2.GraphDef()
    shared.node.extend(n for n in tf_gd.node if n.op in ("Const", "Placeholder"))
    with tf.Graph().as_default():
        tf.import_graph_def(shared, name="")
    # ...and devsession reads TF's TensorProto of every dtype it has.
    for value in values.values():
        proto = tensor_pb2.TensorProto()
        proto.CopyFrom(tensor_util.make_tensor_proto(value))
        from devsession.tensor_codec import proto_to_array
        from devsession.proto import graph_pb2 as ds_graph_pb2

        back = proto_to_array(ds_graph_pb2.TensorProto.FromString(proto.SerializeToString()))
        assert back.dtype == value.dtype and np.array_equal(back, value)


def main() -> None:
    check_cross_parse()
    path = os.path.join(HERE, "tf_descriptors.json")
    import tensorflow as tf

    record = {"tensorflow_version": tf.__version__, **descriptors()}
    with open(path, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"checked the cross-parse; wrote {path}")


if __name__ == "__main__":
    main()
