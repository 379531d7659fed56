"""tf.raw_ops: ops called by their OpDef's names with keyword arguments (the inputs as
TF's API names them: Sum's axis, Squeeze's axis, Where's condition), single, list and
named-tuple outputs, reference inputs, ops TF's importer builds from others (Einsum,
MatrixBandPart, BatchMatMulV2), and the TypeErrors of bad calls."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    x = tf.constant(rng.standard_normal((2, 3)).astype(np.float32))
    images = tf.constant(rng.uniform(0, 1, (1, 5, 5, 2)).astype(np.float32))
    kernel = tf.constant(rng.standard_normal((3, 3, 2, 4)).astype(np.float32))
    raw = tf.raw_ops
    ops = {
        "add": raw.AddV2(x=x, y=1.0),
        "matmul": raw.MatMul(a=x, b=x, transpose_b=True),
        "batch_matmul": raw.BatchMatMulV2(x=tf.stack([x, x]), y=tf.transpose(x), adj_y=False),
        "sum": raw.Sum(input=x, axis=[1], keep_dims=True),
        "mean": raw.Mean(input=x, axis=0),
        "max": raw.Max(input=x, axis=[0, 1]),
        "argmax": raw.ArgMax(input=x, dimension=1, output_type=tf.int64),
        "cast": raw.Cast(x=x * 3.0, DstT=tf.int32),
        "expand": raw.ExpandDims(input=x, axis=0),
        "squeeze": raw.Squeeze(input=tf.zeros([1, 3, 1]), axis=[0]),
        "transpose": raw.Transpose(x=x, perm=[1, 0]),
        "reshape": raw.Reshape(tensor=x, shape=[3, 2]),
        "concat": raw.ConcatV2(values=[x, x, x], axis=1),
        "pack": raw.Pack(values=[x, x], axis=1),
        "fill": raw.Fill(dims=[2, 2], value=7),
        "range": raw.Range(start=1, limit=10, delta=3),
        "one_hot": raw.OneHot(indices=[0, 2, -1], depth=3, on_value=5.0, off_value=-1.0),
        "gather": raw.GatherV2(params=x, indices=[1, 0, 1], axis=0),
        "strided": raw.StridedSlice(input=x, begin=[0, 1], end=[2, 3], strides=[1, 1],
                                    shrink_axis_mask=0, end_mask=0),
        "tile": raw.Tile(input=x, multiples=[2, 1]),
        "pad": raw.PadV2(input=x, paddings=[[1, 0], [0, 2]], constant_values=9.0),
        "where": raw.Where(condition=x > 0.0),
        "select": raw.SelectV2(condition=x > 0.0, t=x, e=-x),
        "cumsum": raw.Cumsum(x=x, axis=1, exclusive=True),
        "einsum": raw.Einsum(inputs=[x, x], equation="ij,kj->ik"),
        "band": raw.MatrixBandPart(input=tf.ones([4, 4]), num_lower=1, num_upper=0),
        "conv": raw.Conv2D(input=images, filter=kernel, strides=[1, 2, 2, 1], padding="SAME"),
        "pool": raw.MaxPool(input=images, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                            padding="VALID"),
        "bias": raw.BiasAdd(value=x, bias=[1.0, 2.0, 3.0]),
        "softmax": raw.Softmax(logits=x),
        "relu": raw.Relu(features=x),
        "bitcast": raw.Bitcast(input=tf.constant([1.0]), type=tf.int32),
        "as_string": raw.AsString(input=[1.5, 2.25], precision=2),
        "string_join": raw.StringJoin(inputs=[["a", "b"], "-x"], separator="+"),
    }
    top = raw.TopKV2(input=x, k=2)
    unique = raw.Unique(x=[4, 1, 4, 2], out_idx=tf.int64)
    split = raw.Split(axis=1, value=x, num_split=3)
    unpacked = raw.Unpack(value=x, num=2, axis=0)
    xent = raw.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=[2, 0])
    shapes = raw.ShapeN(input=[x, tf.zeros([4])])
    identities = raw.IdentityN(input=[x, tf.constant([1, 2])])
    out["output_kinds"] = [type(top).__name__, list(top._fields), len(split),
                           type(split).__name__, list(unique._fields),
                           list(xent._fields), len(shapes), len(identities)]
    out["dtypes"] = {k: t.dtype.name for k, t in ops.items()}
    counter = tf.Variable([1.0, 2.0], name="counter")
    assigned = raw.AssignAdd(ref=counter, value=[10.0, 20.0])
    nothing = raw.NoOp(name="nothing")
    out["no_op"] = [nothing.type, nothing.name]
    with tf.Session() as sess:
        sess.run(counter.initializer)
        for key, value in sess.run(ops).items():
            out[key] = value
        out["top"] = list(sess.run(top))
        out["unique"] = list(sess.run(unique))
        out["split"] = sess.run(split)
        out["unpacked"] = sess.run(unpacked)
        out["xent"] = list(sess.run(xent))
        out["shape_n"] = sess.run(shapes)
        out["identity_n"] = sess.run(identities)
        out["assign_add"] = [sess.run(assigned), sess.run(counter)]
    errors = []
    for call in (lambda: raw.AddV2(x, 1.0), lambda: raw.Sum(input=x),
                 lambda: raw.Sum(input=x, axis=1, bogus=True)):
        try:
            call()
            errors.append(None)
        except TypeError:
            errors.append("TypeError")
    out["errors"] = errors
