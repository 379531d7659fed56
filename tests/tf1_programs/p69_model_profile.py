"""Counting a model's parameters and float operations with tf.profiler (tfprof), as TF1
papers and scripts do: the scope view with ProfileOptionBuilder's float_operation and
trainable_variables_parameter presets, the op view, custom options (depth, name filters,
ordering, accounting only what is shown), ops whose shapes are not known, a report
written to a file, write_op_log and a multi-step Profiler."""

import os
import tempfile

import numpy as np


def _tree(node, depth=0):
    """A GraphNodeProto (scope view) as nested lists: what a test can compare."""
    shapes = {int(k): [d.size for d in v.dim] for k, v in node.input_shapes.items()}
    entry = [node.name, int(node.float_ops), int(node.total_float_ops),
             int(node.parameters), int(node.total_parameters),
             int(node.total_definition_count), sorted(shapes.items())]
    return entry + [[_tree(c, depth + 1) for c in node.children]]


def _chain(node):
    """A MultiGraphNodeProto (op view): its children form a chain, one op type each."""
    found = []
    while node.children:
        node = node.children[0]
        found.append([node.name, int(node.float_ops), int(node.total_float_ops),
                      int(node.parameters), int(node.total_parameters),
                      sorted(g.name for g in node.graph_nodes)])
    return found


def _report(tf, graph, options, cmd="scope", **kwargs):
    """profile() with its text report written to a file; (proto, report lines)."""
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "report.txt")
    options = (tf.profiler.ProfileOptionBuilder(options)
               .with_file_output(path).build())
    result = tf.profiler.profile(graph, cmd=cmd, options=options, **kwargs)
    with open(path) as f:
        text = f.read()
    os.remove(path)
    os.rmdir(folder)
    start = text.index("node name")
    end = text.index("=====", start) if "=====" in text[start:] else len(text)
    return result, text[start:end].rstrip("\n").split("\n")


def main(tf, out):
    rng = np.random.RandomState(0)
    builder = tf.profiler.ProfileOptionBuilder
    graph = tf.Graph()
    with graph.as_default():
        images = tf.placeholder(tf.float32, [8, 12, 12, 3], name="images")
        labels = tf.placeholder(tf.int32, [8], name="labels")
        with tf.variable_scope("conv1"):
            kernel = tf.get_variable("kernel", initializer=tf.constant(
                (0.2 * rng.standard_normal((3, 3, 3, 4))).astype(np.float32)))
            bias = tf.get_variable("bias", initializer=tf.zeros([4]))
            conv = tf.nn.relu(tf.nn.bias_add(
                tf.nn.conv2d(images, kernel, [1, 1, 1, 1], "SAME"), bias))
            pooled = tf.nn.max_pool(conv, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        with tf.variable_scope("dense"):
            w = tf.get_variable("w", initializer=tf.constant(
                (0.1 * rng.standard_normal((6 * 6 * 4, 10))).astype(np.float32)))
            b = tf.get_variable("b", initializer=tf.zeros([10]))
            logits = tf.matmul(tf.reshape(pooled, [8, 6 * 6 * 4]), w) + b
        step = tf.Variable(0, trainable=False, name="global_step")
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        probs = tf.nn.softmax(logits)
        scaled = tf.square(logits - 1.0) * 0.5
        avg = tf.nn.avg_pool(conv, [1, 3, 3, 1], [1, 1, 1, 1], "SAME")
        total = tf.add_n([tf.reduce_sum(probs), tf.reduce_sum(scaled), tf.reduce_sum(avg)])
        del loss, step, total

    # the two presets every FLOPs/params snippet uses
    flops, lines = _report(tf, graph, builder.float_operation())
    out["flops_total"] = int(flops.total_float_ops)
    out["flops_tree"] = _tree(flops)
    out["flops_report"] = lines
    params, lines = _report(tf, graph, builder.trainable_variables_parameter())
    out["params_total"] = int(params.total_parameters)
    out["params_tree"] = _tree(params)
    out["params_report"] = lines
    out["float_operation_options"] = builder.float_operation()
    out["params_options"] = builder.trainable_variables_parameter()

    # the op view: one entry per op type, each accounting the ones after it
    ops, lines = _report(tf, graph, builder.float_operation(), cmd="op")
    out["op_view_total"] = int(ops.total_float_ops)
    out["op_view_chain"] = _chain(ops)
    out["op_view_report"] = lines
    param_ops, lines = _report(tf, graph, builder.trainable_variables_parameter(), cmd="op")
    out["op_view_params"] = [int(param_ops.total_parameters), _chain(param_ops)]
    out["op_view_params_report"] = lines

    # a dense model (no reshape or sparse cross entropy: TF's builders add a Const and a
    # name scope there that devsession's graph holds as attrs, so the counts of defined
    # nodes differ), with every kind of option
    plain = tf.Graph()
    with plain.as_default():
        x = tf.placeholder(tf.float32, [8, 20], name="x")
        with tf.variable_scope("hidden"):
            w1 = tf.get_variable("w", initializer=tf.constant(
                (0.3 * rng.standard_normal((20, 16))).astype(np.float32)))
            b1 = tf.get_variable("b", initializer=tf.zeros([16]))
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
        with tf.variable_scope("dense"):
            w2 = tf.get_variable("w", initializer=tf.constant(
                (0.3 * rng.standard_normal((16, 10))).astype(np.float32)))
            b2 = tf.get_variable("b", initializer=tf.zeros([10]))
            scores = tf.nn.bias_add(tf.matmul(h, w2), b2)
        tf.Variable(0, trainable=False, name="global_step")
        tf.reduce_mean(tf.square(tf.nn.softmax(scores) - 0.1) * 2.0)
        tf.reduce_sum(tf.nn.log_softmax(scores))
    # both statistics, by name, three levels, two scopes only, hiding biases
    custom = (builder(builder.float_operation()).with_max_depth(3)
              .select(["params", "float_ops"]).order_by("name")
              .with_node_names(show_name_regexes=["dense.*", "hidden.*"],
                               hide_name_regexes=[".*/b", "hidden/add"])
              .account_displayed_op_only(False).build())
    result, lines = _report(tf, plain, custom)
    out["custom_tree"] = _tree(result)
    out["custom_report"] = lines
    # every op type accounted (placeholders have shapes, so they count as parameters)
    everything = (builder().with_max_depth(2)
                  .select(["params", "float_ops", "occurrence", "input_shapes", "op_types"])
                  .order_by("params").build())
    result, lines = _report(tf, plain, everything)
    out["all_types_tree"] = _tree(result)
    out["all_types_report"] = lines
    result, lines = _report(tf, plain, everything, cmd="op")
    out["all_types_op_view"] = [int(result.total_parameters), _chain(result), lines]
    # trimmed below a scope, started at one, minimum float ops, some types accounted
    trimmed = (builder(builder.float_operation())
               .with_node_names(trim_name_regexes=["hidden"]).build())
    out["trimmed_tree"] = _tree(_report(tf, plain, trimmed)[0])
    started = (builder(builder.float_operation())
               .with_node_names(start_name_regexes=["dense"]).build())
    out["started_tree"] = _tree(_report(tf, plain, started)[0])
    small = builder(builder.float_operation()).with_min_float_operations(300).build()
    out["min_flops_tree"] = _tree(_report(tf, plain, small)[0])
    products = (builder(builder.float_operation())
                .with_accounted_types(["MatMul", "BiasAdd"]).build())
    result = _report(tf, plain, products)[0]
    out["accounted_types"] = [int(result.total_float_ops), _tree(result)]
    op_started = (builder(builder.float_operation()).with_max_depth(2)
                  .with_node_names(start_name_regexes=["Softmax"]).build())
    out["op_view_started"] = _chain(_report(tf, plain, op_started, cmd="op")[0])

    # every op type TF counts, each built once, and the gradients of pools, bias_add
    # and rsqrt: float ops per op type (the op view), the op log's names
    kernels = tf.Graph()
    with kernels.as_default():
        img = tf.constant(rng.uniform(0, 1, (2, 9, 9, 3)).astype(np.float32))
        filt = tf.constant(rng.uniform(0, 1, (3, 3, 3, 5)).astype(np.float32))
        conv = tf.nn.conv2d(img, filt, [1, 2, 2, 1], "SAME")
        tf.nn.conv2d_backprop_input([2, 9, 9, 3], filt, conv, [1, 2, 2, 1], "SAME")
        tf.nn.conv2d_backprop_filter(img, [3, 3, 3, 5], conv, [1, 2, 2, 1], "SAME")
        tf.nn.depthwise_conv2d_native(img, tf.ones([2, 2, 3, 2]), [1, 1, 1, 1], "VALID")
        tf.nn.conv3d(tf.ones([1, 4, 5, 5, 2]), tf.ones([2, 3, 3, 2, 4]), [1, 1, 1, 1, 1],
                     "VALID")
        pooled = tf.nn.max_pool(img, [1, 3, 3, 1], [1, 2, 2, 1], "VALID")
        averaged = tf.nn.avg_pool(img, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        bias = tf.ones([3])
        tf.math.rsqrt(img + 1.0)
        # one gradient each: where paths meet, TF sums with AddN and devsession with Add
        for y, x in ((pooled, img), (averaged, img), (tf.nn.bias_add(img, bias), bias)):
            tf.gradients(tf.reduce_sum(y), [x])
        a = tf.ones([3, 4, 5])
        tf.matmul(tf.ones([4, 6]), tf.ones([4, 7]), transpose_a=True)
        tf.nn.l2_loss(img)
        tf.math.squared_difference(a, 2.0)
        tf.math.reciprocal(a)
        tf.math.log(a)
        tf.negative(a)
        tf.pow(a, 2.0)
        tf.maximum(a, 0.5)
        tf.minimum(a, 0.5)
        tf.math.argmax(a, 2)
        tf.math.argmin(a, 1)
        tf.realdiv(a, 3.0)
        tf.greater_equal(a, 1.0)
        tf.not_equal(a, 1.0)
        with tf.control_dependencies([a]):
            tf.add_n([a, a, a])
        counter = tf.Variable(tf.zeros([6]), name="counter")
        tf.assign_add(counter, tf.ones([6]))
    counted = tf.profiler.profile(
        kernels, cmd="op",
        options=builder(builder.float_operation()).with_empty_output().build())
    out["kernel_flops"] = [[n[0], n[1]] for n in _chain(counted)]
    out["kernel_flops_total"] = int(counted.total_float_ops)

    # shapes known only at run time: those ops have no float ops
    unknown = tf.Graph()
    with unknown.as_default():
        x = tf.placeholder(tf.float32, [None, 20], name="x")
        w2 = tf.get_variable("w2", initializer=tf.constant(
            rng.standard_normal((20, 5)).astype(np.float32)))
        y = tf.nn.relu(tf.matmul(x, w2) + 1.0)
        tf.reduce_sum(y * y)
        fixed = tf.matmul(tf.ones([4, 20]), w2)
        del fixed
    partial = tf.profiler.profile(
        unknown, options=builder(builder.float_operation()).with_empty_output().build())
    out["unknown_shapes_total"] = int(partial.total_float_ops)
    out["unknown_shapes_tree"] = _tree(partial)
    unknown_params = tf.profiler.profile(
        unknown, options=builder(builder.trainable_variables_parameter())
        .with_empty_output().build())
    out["unknown_params_total"] = int(unknown_params.total_parameters)
    # the default options (trainable parameters) and the default graph
    with graph.as_default():
        default = tf.profiler.profile(
            options=builder(builder.trainable_variables_parameter())
            .with_empty_output().build())
    out["default_graph_params"] = int(default.total_parameters)

    # write_op_log: the op log TF's command-line profiler reads
    folder = tempfile.mkdtemp()
    tf.profiler.write_op_log(graph, folder, add_trace=False)
    log = tf.profiler.OpLogProto()
    with open(os.path.join(folder, "tfprof_log"), "rb") as f:
        log.ParseFromString(f.read())
    os.remove(os.path.join(folder, "tfprof_log"))
    os.rmdir(folder)
    out["op_log"] = sorted([e.name, int(e.float_ops), list(e.types)] for e in log.log_entries)

    # a Profiler over several traced steps: the same static counts, nodes that ran
    with graph.as_default():
        init = tf.global_variables_initializer()
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        profiler = tf.profiler.Profiler(graph)
        feed = {images: rng.uniform(0, 1, (8, 12, 12, 3)).astype(np.float32),
                labels: np.arange(8, dtype=np.int32) % 10}
        for i in range(2):
            meta = tf.RunMetadata()
            sess.run(logits, feed,
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=meta)
            profiler.add_step(i, meta)
        counted = profiler.profile_name_scope(
            builder(builder.trainable_variables_parameter()).with_empty_output().build())
        out["profiler_params"] = int(counted.total_parameters)
        by_op = profiler.profile_operations(
            builder(builder.float_operation()).with_empty_output().build())
        out["profiler_op_flops"] = [int(by_op.total_float_ops), _chain(by_op)]
        timed = profiler.profile_name_scope(
            builder().with_empty_output().select(["micros", "occurrence"]).build())
        out["profiler_timed"] = timed.total_exec_micros > 0
