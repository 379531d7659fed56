"""Messages built from TF1's top-level proto classes (tf.NodeDef, tf.AttrValue,
tf.NameAttrList, tf.MetaGraphDef, tf.TensorInfo, tf.GraphDef) of a given module: the
recorder serializes TensorFlow's, tests/test_top_level_protos.py devsession's."""


def _node(tf):
    node = tf.NodeDef(name="scaled", op="Mul", input=["x", "two"], device="/cpu:0")
    node.attr["T"].CopyFrom(tf.AttrValue(type=1))
    node.attr["_class"].CopyFrom(tf.AttrValue(list=tf.AttrValue.ListValue(s=[b"loc:@x"])))
    return node


def _function_attr(tf):
    fn = tf.NameAttrList(name="body")
    fn.attr["n"].CopyFrom(tf.AttrValue(i=3))
    return tf.AttrValue(func=fn)


def _tensor_info(tf):
    info = tf.TensorInfo(name="x:0", dtype=1)
    info.tensor_shape.dim.add(size=-1)
    info.tensor_shape.dim.add(size=4)
    return info


def _meta_graph(tf):
    meta = tf.MetaGraphDef()
    meta.meta_info_def.tags.append("serve")
    meta.graph_def.node.add().CopyFrom(_node(tf))
    meta.signature_def["predict"].inputs["x"].CopyFrom(_tensor_info(tf))
    meta.signature_def["predict"].method_name = "tensorflow/serving/predict"
    return meta


def _graph(tf):
    graph = tf.GraphDef()
    graph.node.extend([_node(tf)])
    graph.versions.producer = 27
    return graph


CASES = {"node_def": _node, "function_attr": _function_attr, "tensor_info": _tensor_info,
         "meta_graph_def": _meta_graph, "graph_def": _graph,
         "float_attr": lambda tf: tf.AttrValue(f=0.5),
         "shape_attr": lambda tf: tf.AttrValue(shape=_tensor_info(tf).tensor_shape)}
