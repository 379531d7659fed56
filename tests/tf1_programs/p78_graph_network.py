"""A graph neural network trained TF1-style (as GCN's and graph_nets' TF1 code): node
features and an edge list fed as placeholders, an edge model on tf.gather'd sender and
receiver states, aggregation by unsorted_segment_sum/mean/max (max's empty segments masked
by in-degree from tf.math.bincount), a residual by tensor_scatter_nd_add, a GCN layer as a
normalised tf.SparseTensor adjacency times a dense matrix, per-graph readouts by
segment_sum/segment_mean on sorted graph ids, edge scores by gather_nd on a scatter_nd'd
adjacency, a train/test node split by dynamic_partition and predictions put back by
dynamic_stitch; Kipf and Welling's feeds (sparse_placeholders fed tuples, sparse dropout by
sparse_retain); a few Adam steps, gradients of each op (features included), int64 degrees,
static shapes (known for a fixed batch's constant ids), and the errors of out-of-range ids
at run time."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    # two graphs in a batch: nodes 0-4 (graph 0) and 5-8 (graph 1); 4 and 8 receive nothing
    senders_np = np.array([0, 1, 1, 2, 3, 4, 5, 6, 7, 6, 8], np.int32)
    receivers_np = np.array([1, 0, 2, 3, 1, 3, 6, 7, 5, 5, 7], np.int32)
    graph_np = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1], np.int32)
    feats_np = rng.normal(size=(9, 3)).astype(np.float32)
    labels_np = rng.randint(0, 3, 9).astype(np.int32)
    split_np = np.array([0, 1, 0, 0, 1, 0, 0, 1, 0], np.int32)     # 0: train, 1: test
    target_np = np.array([[0.5], [-1.0]], np.float32)

    nodes = tf.placeholder(tf.float32, [None, 3], name="nodes")
    senders = tf.placeholder(tf.int32, [None], name="senders")
    receivers = tf.placeholder(tf.int32, [None], name="receivers")
    graph_ids = tf.placeholder(tf.int32, [None], name="graph_ids")
    split = tf.placeholder(tf.int32, [None], name="split")
    labels = tf.placeholder(tf.int32, [None], name="labels")
    n = tf.shape(nodes)[0]

    def weight(name, shape):
        return tf.Variable(rng.normal(0, 0.4, shape).astype(np.float32), name=name)
    w_in, w_send, w_recv = weight("w_in", (3, 4)), weight("w_send", (4, 4)), \
        weight("w_recv", (4, 4))
    w_gcn, w_out, w_graph = weight("w_gcn", (16, 4)), weight("w_out", (4, 3)), \
        weight("w_graph", (12, 1))

    h0 = tf.tanh(tf.matmul(nodes, w_in))
    messages = tf.nn.relu(tf.matmul(tf.gather(h0, senders), w_send)
                          + tf.matmul(tf.gather(h0, receivers), w_recv))
    agg_sum = tf.math.unsorted_segment_sum(messages, receivers, n)
    agg_mean = tf.math.unsorted_segment_mean(messages, receivers, n)
    agg_max_raw = tf.math.unsorted_segment_max(messages, receivers, n)
    in_degree = tf.math.bincount(receivers, minlength=n)
    agg_max = tf.where(in_degree > 0, agg_max_raw, tf.zeros_like(agg_max_raw))
    residual = tf.tensor_scatter_nd_add(h0, tf.expand_dims(receivers, 1), messages)

    loops = tf.range(n)
    rows, cols = tf.concat([receivers, loops], 0), tf.concat([senders, loops], 0)
    d_inv_sqrt = tf.rsqrt(tf.cast(in_degree + 1, tf.float32))
    adjacency = tf.SparseTensor(tf.cast(tf.stack([rows, cols], 1), tf.int64),
                                tf.gather(d_inv_sqrt, rows) * tf.gather(d_inv_sqrt, cols),
                                tf.cast(tf.stack([n, n]), tf.int64))
    h1 = tf.nn.relu(tf.sparse.sparse_dense_matmul(
        adjacency, tf.matmul(tf.concat([residual, agg_sum, agg_mean, agg_max], 1), w_gcn)))

    logits = tf.matmul(h1, w_out)
    train_logits, test_logits = tf.dynamic_partition(logits, split, 2)
    train_labels, test_labels = tf.dynamic_partition(labels, split, 2)
    node_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=train_labels, logits=train_logits))
    index_parts = tf.dynamic_partition(tf.range(n), split, 2)
    predictions = tf.dynamic_stitch(index_parts, [tf.argmax(train_logits, 1, output_type=tf.int32),
                                                  tf.argmax(test_logits, 1, output_type=tf.int32)])
    test_accuracy = tf.reduce_mean(tf.cast(tf.equal(
        tf.argmax(test_logits, 1, output_type=tf.int32), test_labels), tf.float32))

    readout = tf.concat([tf.segment_sum(h1, graph_ids), tf.segment_mean(h1, graph_ids),
                         tf.math.unsorted_segment_max(h1, graph_ids, 2)], 1)
    graph_pred = tf.matmul(readout, w_graph)
    graph_loss = tf.reduce_mean(tf.square(graph_pred - target_np))
    edge_index = tf.stack([senders, receivers], 1)
    dense_adj = tf.scatter_nd(edge_index, tf.ones_like(senders, tf.float32), tf.stack([n, n]))
    scores = tf.gather_nd(tf.matmul(h1, h1, transpose_b=True) * dense_adj, edge_index)
    loss = node_loss + 0.5 * graph_loss + 0.01 * tf.reduce_mean(tf.square(scores))
    variables = [w_in, w_send, w_recv, w_gcn, w_out, w_graph]
    grads = tf.gradients(loss, [nodes] + variables)
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss)

    fixed_ids = tf.constant(graph_np)      # a fixed batch: sizes known when the graph is built
    out["static_shapes"] = [t.get_shape().as_list() for t in
                            [agg_sum, in_degree, train_logits, predictions, readout, dense_adj,
                             tf.math.unsorted_segment_sum(messages, receivers, 9),
                             tf.math.unsorted_segment_sum(h1, fixed_ids,
                                                          tf.reduce_max(fixed_ids) + 1),
                             tf.math.bincount(tf.constant(receivers_np)),
                             tf.repeat(readout, 3, axis=0)]]
    # graph_nets' broadcast of each graph's globals to its nodes
    graph_to_nodes = tf.repeat(graph_pred, tf.math.bincount(graph_ids), axis=0)
    d_graph_to_nodes = tf.gradients(tf.reduce_sum(graph_to_nodes * nodes[:, :1]),
                                    [w_graph, nodes])
    degree64 = tf.math.bincount(tf.cast(receivers, tf.int64), minlength=10)

    # Kipf & Welling's GCN feeds: sparse features and the normalised support as
    # sparse_placeholders fed (indices, values, shape) tuples; sparse dropout by sparse_retain
    sym = np.eye(9, dtype=np.float32)
    sym[receivers_np, senders_np] = sym[senders_np, receivers_np] = 1.0
    norm = sym / np.sqrt(np.outer(sym.sum(1), sym.sum(0)))
    sparse_feats = feats_np * (np.abs(feats_np) > 0.5)
    as_tuple = lambda a: (np.argwhere(a).astype(np.int64), a[a != 0], np.array(a.shape, np.int64))
    feat_sp = tf.sparse_placeholder(tf.float32, shape=tf.constant([9, 3], tf.int64))
    support = tf.sparse_placeholder(tf.float32)
    keep_prob = tf.placeholder_with_default(1.0, [])
    kept = tf.cast(tf.floor(keep_prob + tf.random_uniform(tf.shape(feat_sp.values))), tf.bool)
    dropped = tf.sparse_retain(feat_sp, kept) * (1.0 / keep_prob)
    w_kipf = weight("w_kipf", (3, 3))
    kipf_logits = tf.sparse_tensor_dense_matmul(support,
                                                tf.sparse_tensor_dense_matmul(dropped, w_kipf))
    mask = tf.constant((split_np == 0) / np.mean(split_np == 0), tf.float32)
    kipf_loss = tf.reduce_mean(mask * tf.nn.softmax_cross_entropy_with_logits(
        labels=tf.one_hot(labels, 3), logits=kipf_logits)) + 5e-4 * tf.nn.l2_loss(w_kipf)
    kipf_train = tf.train.AdamOptimizer(0.05).minimize(kipf_loss, var_list=[w_kipf])
    kipf_feed = {feat_sp: as_tuple(sparse_feats), support: as_tuple(norm), labels: labels_np}

    # each op on its own, with its gradient (empty max segments masked out of the sum)
    x = tf.placeholder(tf.float32, [6, 2], name="x")
    x_np = rng.normal(size=(6, 2)).astype(np.float32)
    ids = [0, 2, 0, 2, 3, 3]    # segments 1 and 4 are empty
    op_values = {
        "unsorted_max": tf.math.unsorted_segment_max(x, ids, 5),
        "unsorted_min_dropped": tf.math.unsorted_segment_min(x, [0, -1, 0, 2, -1, 1], 3),
        "unsorted_mean": tf.math.unsorted_segment_mean(x, ids, 5),
        "unsorted_sqrt_n": tf.math.unsorted_segment_sqrt_n(x, ids, 5),
        "unsorted_sum_2d_ids": tf.math.unsorted_segment_sum(
            tf.reshape(x, [3, 2, 2]), [[0, 1], [1, 1], [3, -1]], 4),
        "segment_sum_gap": tf.segment_sum(x, [0, 0, 2, 2, 2, 3]),
        "segment_mean": tf.segment_mean(x, [0, 0, 1, 1, 1, 2]),
        "segment_max": tf.math.segment_max(x, [0, 0, 1, 1, 1, 2]),
        "gather_nd": tf.gather_nd(x, [[0, 1], [5, 0], [0, 1]]),
        "gather_nd_rows": tf.gather_nd(x, [[4], [1], [4]]),
        "scatter_nd": tf.scatter_nd([[1], [3], [1]], x[:3], [5, 2]),
        "tensor_scatter_add": tf.tensor_scatter_nd_add(x, [[0, 0], [5, 1], [0, 0]], x[1:4, 0]),
        "stitch": tf.dynamic_stitch([[0, 2], [1, 2]], [x[:2], x[2:4]]),
        "sparse_matmul": tf.sparse.sparse_dense_matmul(
            tf.SparseTensor([[0, 1], [2, 0], [1, 5]], x[:3, 0], [3, 6]), x),
        "sparse_matmul_adjoint": tf.sparse_tensor_dense_matmul(
            tf.SparseTensor([[1, 0], [0, 2], [5, 1]], x[:3, 0], [6, 3]), x, adjoint_a=True),
        "partition_0": tf.dynamic_partition(x, [1, 0, 1, 1, 0, 0], 2)[0],
    }
    op_grads = {}
    for key, value in op_values.items():
        safe = tf.where(value > -1e30, value, tf.zeros_like(value))
        flat = tf.reshape(safe, [-1])
        coeff = tf.constant(np.linspace(0.5, 1.5, 40).astype(np.float32))[:tf.size(flat)]
        # gather_nd's gradient by rows is IndexedSlices in TF: fetched dense
        op_grads[key] = tf.convert_to_tensor(tf.gradients(tf.reduce_sum(flat * coeff), x)[0])

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {nodes: feats_np, senders: senders_np, receivers: receivers_np,
                graph_ids: graph_np, split: split_np, labels: labels_np}
        first = sess.run({"agg_sum": agg_sum, "agg_mean": agg_mean, "agg_max_raw": agg_max_raw,
                          "agg_max": agg_max, "in_degree": in_degree, "h1": h1,
                          "readout": readout, "dense_adj": dense_adj, "scores": scores,
                          "residual": residual, "messages": messages}, feed)
        out.update({"first_" + k: v for k, v in first.items()})
        out["first_grads"] = sess.run(grads, feed)
        history = []
        for _ in range(6):
            _, a, b = sess.run([train_op, node_loss, graph_loss], feed)
            history.append([a, b])
        out["losses"] = np.array(history)
        out["predictions"], out["test_accuracy"] = sess.run([predictions, test_accuracy], feed)
        out["graph_pred"], out["graph_to_nodes"], out["d_graph_to_nodes"] = sess.run(
            [graph_pred, graph_to_nodes, d_graph_to_nodes], feed)
        out["degree64"] = sess.run(degree64, feed)
        out["kipf_losses"] = np.array([sess.run([kipf_train, kipf_loss], kipf_feed)[1]
                                       for _ in range(4)])
        out["kipf_logits_shape"] = [kipf_logits.get_shape().as_list(),
                                    list(sess.run(kipf_logits, kipf_feed).shape)]
        out["op_values"] = sess.run(op_values, {x: x_np})
        out["op_grads"] = sess.run(op_grads, {x: x_np})

        errors = {}
        bad_feeds = {
            "receiver_out_of_range": (agg_sum, {messages: first["messages"], receivers:
                                                np.where(receivers_np == 7, 9, receivers_np)}),
            "sender_out_of_range": (messages, {senders: np.where(senders_np == 8, 12,
                                                                 senders_np)}),
            "unsorted_graph_ids": (readout, {graph_ids: graph_np[::-1]}),
            "split_out_of_range": (train_logits, {split: split_np * 2}),
            "scatter_out_of_bounds": (dense_adj, {senders: senders_np + 1}),
            "negative_degree_id": (in_degree, {receivers: receivers_np - 1}),
        }
        for key, (fetch, bad) in bad_feeds.items():
            try:
                sess.run(fetch, {**feed, **bad})
                errors[key] = None
            except tf.errors.OpError as e:
                errors[key] = type(e).__name__
        no_5 = sess.run(agg_sum, {**feed, messages: first["messages"],
                                  receivers: np.where(receivers_np == 5, -1, receivers_np)})
        errors["negative_receiver_dropped"] = bool(np.all(no_5[5] == 0))
        out["errors"] = errors
    try:
        tf.math.unsorted_segment_sum(tf.ones([3, 2]), [0, 1], 2)
        out["build_error"] = None
    except ValueError as e:
        out["build_error"] = type(e).__name__
    out["_tol"] = {"losses": {"rtol": 1e-3, "atol": 1e-4},
                   "graph_pred": {"rtol": 1e-3, "atol": 1e-4},
                   "graph_to_nodes": {"rtol": 1e-3, "atol": 1e-4},
                   "d_graph_to_nodes": {"rtol": 1e-3, "atol": 1e-4},
                   "kipf_losses": {"rtol": 1e-4, "atol": 1e-5},
                   "first_grads": {"rtol": 1e-3, "atol": 1e-5}}
