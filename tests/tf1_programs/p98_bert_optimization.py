"""BERT's TF1 optimization.py and a tiny BERT written as google-research/bert's
modeling.py writes it: get_shape_list with a dynamic batch, word embeddings by tf.gather
and by a one-hot matmul, token-type and position embeddings (tf.slice under an
assert_less_equal control dependency), a hand-written layer norm under "LayerNorm",
attention through reshape/transpose to [B, N, F, H] with the (1 - mask) * -10000 adder,
the tanh gelu, the first-token pooler, the masked-LM head (gather_indexes over flattened
offsets, output weights tied to the word embeddings, a weighted mean) and a log_softmax
next-sentence loss; trained by create_optimizer (polynomial_decay with linear warm-up
blended by a cast comparison) and AdamWeightDecayOptimizer, a tf.train.Optimizer
subclass making its own adam_m/adam_v variables, with the global step advanced by a
separate assign (ordered after the update: BERT's own leaves it racing the learning
rate's read); then run_classifier's warm start (get_assignment_map_from_checkpoint over
list_variables, init_from_checkpoint with a name->name map, the restored names logged as
BERT logs them), its metric_fn (tf.metrics.accuracy and tf.metrics.mean weighted by
is_real_example) and its predict path (a vocabulary read through tf.gfile, tf.train.Example
records written by TFRecordWriter and parsed by parse_single_example in a tf.data map,
batches that drop the remainder, OutOfRangeError after the last)."""

import os
import tempfile

import numpy as np

VOCAB, HIDDEN, HEADS, SEQ, BATCH, INTERMEDIATE, MAX_POS, TYPES = 11, 8, 2, 5, 3, 16, 7, 2


def _strip_index(name):
    """BERT's re.match("^(.*):\\d+$", name), written without re."""
    head, sep, tail = name.rpartition(":")
    return head if sep and tail.isdigit() else name


class _Bert(object):
    def __init__(self, tf, rng):
        self.tf = tf
        self.rng = rng

    def initializer(self, shape):
        return self.tf.constant_initializer(self.rng.normal(0, 0.3, shape).astype(np.float32))

    def get_shape_list(self, tensor, expected_rank=None):
        shape = tensor.shape.as_list()
        if expected_rank is not None and len(shape) != expected_rank:
            raise ValueError("For the tensor `%s` in scope `%s`, the actual rank `%d` is not "
                             "equal to the expected rank `%s`"
                             % (tensor.name, self.tf.get_variable_scope().name, len(shape),
                                expected_rank))
        non_static_indexes = [i for i, dim in enumerate(shape) if dim is None]
        if not non_static_indexes:
            return shape
        dyn_shape = self.tf.shape(tensor)
        for index in non_static_indexes:
            shape[index] = dyn_shape[index]
        return shape

    def gelu(self, x):
        tf = self.tf
        cdf = 0.5 * (1.0 + tf.tanh((np.sqrt(2 / np.pi) * (x + 0.044715 * tf.pow(x, 3)))))
        return x * cdf

    def dropout(self, x, dropout_prob):
        if dropout_prob is None:
            return x
        return self.tf.nn.dropout(x, 1.0 - dropout_prob)

    def layer_norm(self, x, name=None):
        tf = self.tf
        with tf.variable_scope(name, default_name="LayerNorm"):
            mean, variance = tf.nn.moments(x, axes=[-1], keep_dims=True)
            gamma = tf.get_variable("gamma", [HIDDEN], initializer=tf.ones_initializer())
            beta = tf.get_variable("beta", [HIDDEN], initializer=tf.zeros_initializer())
            return (x - mean) * tf.rsqrt(variance + 1e-12) * gamma + beta

    def embedding_lookup(self, input_ids, use_one_hot_embeddings):
        tf = self.tf
        input_ids = tf.expand_dims(input_ids, axis=[-1])
        embedding_table = tf.get_variable(
            name="word_embeddings", shape=[VOCAB, HIDDEN],
            initializer=self.initializer([VOCAB, HIDDEN]))
        flat_input_ids = tf.reshape(input_ids, [-1])
        if use_one_hot_embeddings:
            one_hot_input_ids = tf.one_hot(flat_input_ids, depth=VOCAB)
            output = tf.matmul(one_hot_input_ids, embedding_table)
        else:
            output = tf.gather(embedding_table, flat_input_ids)
        input_shape = self.get_shape_list(input_ids)
        output = tf.reshape(output, input_shape[0:-1] + [input_shape[-1] * HIDDEN])
        return output, embedding_table

    def embedding_postprocessor(self, input_tensor, token_type_ids, dropout_prob):
        tf = self.tf
        batch_size, seq_length, width = self.get_shape_list(input_tensor, expected_rank=3)
        output = input_tensor
        token_type_table = tf.get_variable(
            name="token_type_embeddings", shape=[TYPES, width],
            initializer=self.initializer([TYPES, width]))
        flat_token_type_ids = tf.reshape(token_type_ids, [-1])
        one_hot_ids = tf.one_hot(flat_token_type_ids, depth=TYPES)
        token_type_embeddings = tf.matmul(one_hot_ids, token_type_table)
        output += tf.reshape(token_type_embeddings, [batch_size, seq_length, width])
        assert_op = tf.assert_less_equal(seq_length, MAX_POS)
        with tf.control_dependencies([assert_op]):
            full_position_embeddings = tf.get_variable(
                name="position_embeddings", shape=[MAX_POS, width],
                initializer=self.initializer([MAX_POS, width]))
            position_embeddings = tf.slice(full_position_embeddings, [0, 0],
                                           [seq_length, -1])
            position_embeddings = tf.reshape(position_embeddings, [1, seq_length, width])
            output += position_embeddings
        return self.dropout(self.layer_norm(output, name="LayerNorm"), dropout_prob)

    def attention_mask(self, from_tensor, to_mask):
        tf = self.tf
        batch_size, from_seq_length = self.get_shape_list(from_tensor, expected_rank=2)
        to_seq_length = self.get_shape_list(to_mask, expected_rank=2)[1]
        to_mask = tf.cast(tf.reshape(to_mask, [batch_size, 1, to_seq_length]), tf.float32)
        broadcast_ones = tf.ones(shape=[batch_size, from_seq_length, 1], dtype=tf.float32)
        return broadcast_ones * to_mask

    def attention_layer(self, layer_input, mask, batch_size, seq_length, dropout_prob):
        tf = self.tf
        size = HIDDEN // HEADS

        def transpose_for_scores(input_tensor):
            output_tensor = tf.reshape(input_tensor, [batch_size, seq_length, HEADS, size])
            return tf.transpose(output_tensor, [0, 2, 1, 3])

        def dense(name):
            return tf.layers.dense(layer_input, HEADS * size, name=name,
                                   kernel_initializer=self.initializer([HIDDEN, HIDDEN]))

        query_layer = transpose_for_scores(dense("query"))
        key_layer = transpose_for_scores(dense("key"))
        value_layer = transpose_for_scores(dense("value"))
        attention_scores = tf.matmul(query_layer, key_layer, transpose_b=True)
        attention_scores = tf.multiply(attention_scores, 1.0 / np.sqrt(float(size)))
        mask = tf.expand_dims(mask, axis=[1])
        adder = (1.0 - tf.cast(mask, tf.float32)) * -10000.0
        attention_scores += adder
        attention_probs = tf.nn.softmax(attention_scores)
        attention_probs = self.dropout(attention_probs, dropout_prob)
        context_layer = tf.matmul(attention_probs, value_layer)
        context_layer = tf.transpose(context_layer, [0, 2, 1, 3])
        context_layer = tf.reshape(context_layer, [batch_size * seq_length, HEADS * size])
        return context_layer, attention_probs

    def model(self, input_ids, input_mask, token_type_ids, is_training,
              use_one_hot_embeddings):
        tf = self.tf
        dropout_prob = 0.0          # keep 1.0: nothing here draws from TF's generator
        input_shape = self.get_shape_list(input_ids, expected_rank=2)
        batch_size, seq_length = input_shape
        with tf.variable_scope("bert"):
            with tf.variable_scope("embeddings"):
                embedding_output, table = self.embedding_lookup(input_ids,
                                                                use_one_hot_embeddings)
                embedding_output = self.embedding_postprocessor(
                    embedding_output, token_type_ids, dropout_prob)
            with tf.variable_scope("encoder"):
                mask = self.attention_mask(input_ids, input_mask)
                prev_output = tf.reshape(embedding_output, [-1, HIDDEN])
                with tf.variable_scope("layer_0"):
                    layer_input = prev_output
                    with tf.variable_scope("attention"):
                        with tf.variable_scope("self"):
                            attention_head, probs = self.attention_layer(
                                layer_input, mask, batch_size, seq_length, dropout_prob)
                        with tf.variable_scope("output"):
                            attention_output = tf.layers.dense(
                                attention_head, HIDDEN,
                                kernel_initializer=self.initializer([HIDDEN, HIDDEN]))
                            attention_output = self.dropout(attention_output, dropout_prob)
                            attention_output = self.layer_norm(attention_output + layer_input)
                    with tf.variable_scope("intermediate"):
                        intermediate_output = tf.layers.dense(
                            attention_output, INTERMEDIATE, activation=self.gelu,
                            kernel_initializer=self.initializer([HIDDEN, INTERMEDIATE]))
                    with tf.variable_scope("output"):
                        layer_output = tf.layers.dense(
                            intermediate_output, HIDDEN,
                            kernel_initializer=self.initializer([INTERMEDIATE, HIDDEN]))
                        layer_output = self.dropout(layer_output, dropout_prob)
                        layer_output = self.layer_norm(layer_output + attention_output)
                sequence_output = tf.reshape(layer_output, input_shape + [HIDDEN])
            with tf.variable_scope("pooler"):
                first_token_tensor = tf.squeeze(sequence_output[:, 0:1, :], axis=1)
                pooled_output = tf.layers.dense(
                    first_token_tensor, HIDDEN, activation=tf.tanh,
                    kernel_initializer=self.initializer([HIDDEN, HIDDEN]))
        self.embedding_table = table
        return pooled_output, sequence_output, probs

    def gather_indexes(self, sequence_tensor, positions):
        tf = self.tf
        batch_size, seq_length, width = self.get_shape_list(sequence_tensor, expected_rank=3)
        flat_offsets = tf.reshape(tf.range(0, batch_size, dtype=tf.int32) * seq_length, [-1, 1])
        flat_positions = tf.reshape(positions + flat_offsets, [-1])
        flat_sequence_tensor = tf.reshape(sequence_tensor, [batch_size * seq_length, width])
        return tf.gather(flat_sequence_tensor, flat_positions)

    def masked_lm_output(self, input_tensor, output_weights, positions, label_ids,
                         label_weights):
        tf = self.tf
        input_tensor = self.gather_indexes(input_tensor, positions)
        with tf.variable_scope("cls/predictions"):
            with tf.variable_scope("transform"):
                input_tensor = tf.layers.dense(
                    input_tensor, units=HIDDEN, activation=self.gelu,
                    kernel_initializer=self.initializer([HIDDEN, HIDDEN]))
                input_tensor = self.layer_norm(input_tensor)
            output_bias = tf.get_variable("output_bias", shape=[VOCAB],
                                          initializer=tf.zeros_initializer())
            logits = tf.matmul(input_tensor, output_weights, transpose_b=True)
            logits = tf.nn.bias_add(logits, output_bias)
            log_probs = tf.nn.log_softmax(logits, axis=-1)
            label_ids = tf.reshape(label_ids, [-1])
            label_weights = tf.reshape(label_weights, [-1])
            one_hot_labels = tf.one_hot(label_ids, depth=VOCAB, dtype=tf.float32)
            per_example_loss = -tf.reduce_sum(log_probs * one_hot_labels, axis=[-1])
            numerator = tf.reduce_sum(label_weights * per_example_loss)
            denominator = tf.reduce_sum(label_weights) + 1e-5
            loss = numerator / denominator
        return loss, per_example_loss, log_probs

    def classifier(self, output_layer, labels, num_labels):
        tf = self.tf
        hidden_size = output_layer.shape[-1].value
        output_weights = tf.get_variable(
            "output_weights", [num_labels, hidden_size],
            initializer=self.initializer([num_labels, hidden_size]))
        output_bias = tf.get_variable("output_bias", [num_labels],
                                      initializer=tf.zeros_initializer())
        with tf.variable_scope("loss"):
            output_layer = self.dropout(output_layer, 0.0)
            logits = tf.matmul(output_layer, output_weights, transpose_b=True)
            logits = tf.nn.bias_add(logits, output_bias)
            probabilities = tf.nn.softmax(logits, axis=-1)
            log_probs = tf.nn.log_softmax(logits, axis=-1)
            one_hot_labels = tf.one_hot(labels, depth=num_labels, dtype=tf.float32)
            per_example_loss = -tf.reduce_sum(one_hot_labels * log_probs, axis=-1)
            loss = tf.reduce_mean(per_example_loss)
        return loss, per_example_loss, logits, probabilities


def _optimizer_class(tf):
    class AdamWeightDecayOptimizer(tf.train.Optimizer):
        """A basic Adam optimizer that includes "correct" L2 weight decay."""

        def __init__(self, learning_rate, weight_decay_rate=0.0, beta_1=0.9, beta_2=0.999,
                     epsilon=1e-6, exclude_from_weight_decay=None,
                     name="AdamWeightDecayOptimizer"):
            super(AdamWeightDecayOptimizer, self).__init__(False, name)
            self.learning_rate = learning_rate
            self.weight_decay_rate = weight_decay_rate
            self.beta_1 = beta_1
            self.beta_2 = beta_2
            self.epsilon = epsilon
            self.exclude_from_weight_decay = exclude_from_weight_decay

        def apply_gradients(self, grads_and_vars, global_step=None, name=None):
            assignments = []
            for (grad, param) in grads_and_vars:
                if grad is None or param is None:
                    continue
                param_name = self._get_variable_name(param.name)
                m = tf.get_variable(
                    name=param_name + "/adam_m", shape=param.shape.as_list(),
                    dtype=tf.float32, trainable=False, initializer=tf.zeros_initializer())
                v = tf.get_variable(
                    name=param_name + "/adam_v", shape=param.shape.as_list(),
                    dtype=tf.float32, trainable=False, initializer=tf.zeros_initializer())
                next_m = (tf.multiply(self.beta_1, m) + tf.multiply(1.0 - self.beta_1, grad))
                next_v = (tf.multiply(self.beta_2, v)
                          + tf.multiply(1.0 - self.beta_2, tf.square(grad)))
                update = next_m / (tf.sqrt(next_v) + self.epsilon)
                if self._do_use_weight_decay(param_name):
                    update += self.weight_decay_rate * param
                update_with_lr = self.learning_rate * update
                next_param = param - update_with_lr
                assignments.extend([param.assign(next_param), m.assign(next_m),
                                    v.assign(next_v)])
            return tf.group(*assignments, name=name)

        def _do_use_weight_decay(self, param_name):
            if not self.weight_decay_rate:
                return False
            if self.exclude_from_weight_decay:
                for r in self.exclude_from_weight_decay:
                    if r in param_name:           # re.search of a plain pattern
                        return False
            return True

        def _get_variable_name(self, param_name):
            return _strip_index(param_name)

    return AdamWeightDecayOptimizer


def create_optimizer(tf, loss, init_lr, num_train_steps, num_warmup_steps):
    global_step = tf.train.get_or_create_global_step()
    learning_rate = tf.constant(value=init_lr, shape=[], dtype=tf.float32)
    learning_rate = tf.train.polynomial_decay(learning_rate, global_step, num_train_steps,
                                              end_learning_rate=0.0, power=1.0, cycle=False)
    if num_warmup_steps:
        global_steps_int = tf.cast(global_step, tf.int32)
        warmup_steps_int = tf.constant(num_warmup_steps, dtype=tf.int32)
        global_steps_float = tf.cast(global_steps_int, tf.float32)
        warmup_steps_float = tf.cast(warmup_steps_int, tf.float32)
        warmup_percent_done = global_steps_float / warmup_steps_float
        warmup_learning_rate = init_lr * warmup_percent_done
        is_warmup = tf.cast(global_steps_int < warmup_steps_int, tf.float32)
        learning_rate = ((1.0 - is_warmup) * learning_rate
                         + is_warmup * warmup_learning_rate)
    optimizer = _optimizer_class(tf)(
        learning_rate=learning_rate, weight_decay_rate=0.01, beta_1=0.9, beta_2=0.999,
        epsilon=1e-6, exclude_from_weight_decay=["LayerNorm", "layer_norm", "bias"])
    tvars = tf.trainable_variables()
    grads = tf.gradients(loss, tvars)
    (grads, _) = tf.clip_by_global_norm(grads, clip_norm=1.0)
    train_op = optimizer.apply_gradients(zip(grads, tvars), global_step=global_step)
    # BERT writes `new_global_step = global_step + 1` with no dependency: the learning
    # rate's read of global_step then races its assign (TF's executor happens to run the
    # assign first, so the first warm-up step trains at step 1's rate). Ordered here.
    with tf.control_dependencies([train_op]):
        new_global_step = global_step + 1
    train_op = tf.group(train_op, [global_step.assign(new_global_step)])
    return train_op, learning_rate, optimizer


def get_assignment_map_from_checkpoint(tf, tvars, init_checkpoint):
    initialized_variable_names = {}
    name_to_variable = {}
    for var in tvars:
        name_to_variable[_strip_index(var.name)] = var
    init_vars = tf.train.list_variables(init_checkpoint)
    assignment_map = {}
    for x in init_vars:
        (name, var) = (x[0], x[1])
        if name not in name_to_variable:
            continue
        assignment_map[name] = name
        initialized_variable_names[name] = 1
        initialized_variable_names[name + ":0"] = 1
    return assignment_map, initialized_variable_names


def convert_to_unicode(text):
    if isinstance(text, str):
        return text
    if isinstance(text, bytes):
        return text.decode("utf-8", "ignore")
    raise ValueError("Unsupported string type: %s" % (type(text)))


def load_vocab(tf, vocab_file):
    """tokenization.load_vocab: one token a line, read through tf.gfile."""
    vocab = {}
    index = 0
    with tf.gfile.GFile(vocab_file, "r") as reader:
        while True:
            token = convert_to_unicode(reader.readline())
            if not token:
                break
            token = token.strip()
            vocab[token] = index
            index += 1
    return vocab


def file_based_convert_examples_to_features(tf, examples, vocab, output_file):
    def create_int_feature(values):
        return tf.train.Feature(int64_list=tf.train.Int64List(value=list(values)))

    writer = tf.python_io.TFRecordWriter(output_file)
    for (words_a, words_b, label_id, is_real_example) in examples:
        tokens = ["[CLS]"] + words_a + ["[SEP]"] + words_b + ["[SEP]"]
        segment_ids = [0] * (len(words_a) + 2) + [1] * (len(words_b) + 1)
        input_ids = [vocab.get(t, vocab["[UNK]"]) for t in tokens][:SEQ]
        segment_ids = segment_ids[:SEQ]
        input_mask = [1] * len(input_ids)
        while len(input_ids) < SEQ:
            input_ids.append(0)
            input_mask.append(0)
            segment_ids.append(0)
        features = {}
        features["input_ids"] = create_int_feature(input_ids)
        features["input_mask"] = create_int_feature(input_mask)
        features["segment_ids"] = create_int_feature(segment_ids)
        features["label_ids"] = create_int_feature([label_id])
        features["is_real_example"] = create_int_feature([int(is_real_example)])
        tf_example = tf.train.Example(features=tf.train.Features(feature=features))
        writer.write(tf_example.SerializeToString())
    writer.close()


def file_based_input_fn(tf, input_file, batch_size):
    name_to_features = {
        "input_ids": tf.FixedLenFeature([SEQ], tf.int64),
        "input_mask": tf.FixedLenFeature([SEQ], tf.int64),
        "segment_ids": tf.FixedLenFeature([SEQ], tf.int64),
        "label_ids": tf.FixedLenFeature([], tf.int64),
        "is_real_example": tf.FixedLenFeature([], tf.int64),
    }

    def _decode_record(record, name_to_features):
        example = tf.parse_single_example(record, name_to_features)
        for name in list(example.keys()):
            t = example[name]
            if t.dtype == tf.int64:
                t = tf.to_int32(t)
            example[name] = t
        return example

    d = tf.data.TFRecordDataset(input_file)
    d = d.map(lambda record: _decode_record(record, name_to_features))
    return d.batch(batch_size=batch_size, drop_remainder=True)


def main(tf, out):
    rng = np.random.RandomState(0)
    ids = rng.randint(1, VOCAB, (2, BATCH, SEQ)).astype(np.int32)
    masks = np.ones((2, BATCH, SEQ), np.int32)
    masks[:, 1, 3:] = 0
    masks[:, 2, 4:] = 0
    ids[masks == 0] = 0
    types = np.zeros((2, BATCH, SEQ), np.int32)
    types[:, :, 2:] = 1
    nsp_labels = np.array([[0, 1, 1], [1, 0, 1]], np.int32)
    lm_positions = np.array([[1, 3], [2, 0], [1, 2]], np.int32)
    lm_weights = np.array([[1, 1], [1, 0], [1, 1]], np.float32)
    lm_ids = np.where(lm_weights > 0, (lm_positions * 3 + 2) % VOCAB, 0).astype(np.int32)
    class_labels = np.array([[2, 0, 1], [1, 2, 0]], np.int32)
    workdir = tempfile.mkdtemp()
    init_checkpoint = os.path.join(workdir, "bert_model.ckpt")

    # --- "pretraining": the encoder and cls/seq_relationship trained by create_optimizer
    with tf.Graph().as_default():
        bert = _Bert(tf, rng)
        input_ids = tf.placeholder(tf.int32, [None, SEQ], name="input_ids")
        input_mask = tf.placeholder(tf.int32, [None, SEQ], name="input_mask")
        segment_ids = tf.placeholder(tf.int32, [None, SEQ], name="segment_ids")
        labels = tf.placeholder(tf.int32, [None], name="labels")
        pooled, sequence_output, probs = bert.model(
            input_ids, input_mask, segment_ids, True, use_one_hot_embeddings=False)
        positions = tf.placeholder(tf.int32, [None, 2], name="masked_lm_positions")
        lm_labels = tf.placeholder(tf.int32, [None, 2], name="masked_lm_ids")
        lm_label_weights = tf.placeholder(tf.float32, [None, 2], name="masked_lm_weights")
        lm_loss, lm_per_example, lm_log_probs = bert.masked_lm_output(
            sequence_output, bert.embedding_table, positions, lm_labels, lm_label_weights)
        with tf.variable_scope("cls/seq_relationship"):
            nsp_loss, per_example, _, _ = bert.classifier(pooled, labels, 2)
        loss = lm_loss + nsp_loss
        train_op, learning_rate, optimizer = create_optimizer(
            tf, loss, init_lr=0.05, num_train_steps=6, num_warmup_steps=2)
        global_step = tf.train.get_global_step()
        out["train_op_type"] = train_op.type
        out["optimizer_name"] = optimizer.get_name()
        out["sequence_shape"] = sequence_output.shape.as_list()
        out["pooled_shape"] = pooled.shape.as_list()
        out["shape_reprs"] = [repr(pooled.shape), repr(input_ids.shape[1]),
                              str(input_ids.shape[1]), repr(loss.shape)]
        out["trainable"] = [(v.name, v.shape.as_list()) for v in tf.trainable_variables()]
        out["global_names"] = sorted(v.op.name for v in tf.global_variables())
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {input_ids: ids[0], input_mask: masks[0], segment_ids: types[0],
                    labels: nsp_labels[0], positions: lm_positions, lm_labels: lm_ids,
                    lm_label_weights: lm_weights}
            out["lm_per_example"], out["lm_log_probs"] = sess.run(
                [lm_per_example, lm_log_probs], feed)
            out["attention_probs"] = sess.run(probs, feed)
            out["first_pooled"] = sess.run(pooled, feed)
            losses, rates, steps = [], [], []
            for i in range(6):
                feed = {input_ids: ids[i % 2], input_mask: masks[i % 2],
                        segment_ids: types[i % 2], labels: nsp_labels[i % 2],
                        positions: lm_positions, lm_labels: lm_ids,
                        lm_label_weights: lm_weights}
                rates.append(sess.run(learning_rate))
                losses.append(sess.run([train_op, loss], feed)[1])
                steps.append(int(sess.run(global_step)))
            out["losses"] = np.array(losses)
            out["lm_loss"], out["nsp_loss"] = sess.run([lm_loss, nsp_loss], feed)
            out["learning_rates"] = np.array(rates)
            out["steps"] = steps
            out["final_rate"] = sess.run(learning_rate)
            out["per_example_loss"] = sess.run(per_example, feed)
            out["adam_m_word_embeddings"] = sess.run("bert/embeddings/word_embeddings/adam_m:0")
            out["adam_v_gamma"] = sess.run("bert/embeddings/LayerNorm/gamma/adam_v:0")
            trained = {_strip_index(v.name): sess.run(v) for v in tf.trainable_variables()}
            out["trained_query"] = trained["bert/encoder/layer_0/attention/self/query/kernel"]
            out["trained_gamma"] = trained["bert/embeddings/LayerNorm/gamma"]
            saver.save(sess, init_checkpoint)

    # --- run_classifier: a fresh graph, one-hot embeddings, a new 3-way classifier
    with tf.Graph().as_default():
        bert = _Bert(tf, rng)
        input_ids = tf.placeholder(tf.int32, [None, SEQ], name="input_ids")
        input_mask = tf.placeholder(tf.int32, [None, SEQ], name="input_mask")
        segment_ids = tf.placeholder(tf.int32, [None, SEQ], name="segment_ids")
        labels = tf.placeholder(tf.int32, [None], name="label_ids")
        pooled, _, _ = bert.model(input_ids, input_mask, segment_ids, False,
                                  use_one_hot_embeddings=True)
        loss, per_example_loss, logits, probabilities = bert.classifier(pooled, labels, 3)
        is_real_example = tf.placeholder(tf.float32, [None], name="is_real_example")
        predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
        accuracy = tf.metrics.accuracy(labels=labels, predictions=predictions,
                                       weights=is_real_example)
        eval_loss = tf.metrics.mean(values=per_example_loss, weights=is_real_example)
        tvars = tf.trainable_variables()
        assignment_map, initialized_variable_names = get_assignment_map_from_checkpoint(
            tf, tvars, init_checkpoint)
        tf.train.init_from_checkpoint(init_checkpoint, assignment_map)
        log = []
        for var in tvars:
            init_string = ""
            if var.name in initialized_variable_names:
                init_string = ", *INIT_FROM_CKPT*"
            log.append("  name = %s, shape = %s%s" % (var.name, var.shape, init_string))
            tf.logging.info("  name = %s, shape = %s%s", var.name, var.shape, init_string)
        out["log"] = log
        out["initialized_variable_names"] = sorted(initialized_variable_names)
        out["assignment_map"] = sorted(assignment_map.items())
        out["checkpoint_names"] = sorted(name for name, _ in
                                         tf.train.list_variables(init_checkpoint))
        train_op, learning_rate, _ = create_optimizer(
            tf, loss, init_lr=0.02, num_train_steps=4, num_warmup_steps=0)
        feed = {input_ids: ids[1], input_mask: masks[1], segment_ids: types[1],
                labels: class_labels[1]}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = {_strip_index(v.name): sess.run(v) for v in tvars}
            out["restored_match"] = sorted(
                name for name in values if name in trained
                and np.array_equal(values[name], trained[name]))
            out["new_output_weights"] = values["output_weights"]
            out["restored_step"] = int(sess.run(tf.train.get_global_step()))
            out["probabilities"] = sess.run(probabilities, feed)
            tuned, rates = [], []
            for _ in range(4):
                rates.append(sess.run(learning_rate))
                tuned.append(sess.run([train_op, loss], feed)[1])
            out["tuned_losses"] = np.array(tuned)
            out["tuned_rates"] = np.array(rates)
            out["tuned_logits"] = sess.run(logits, feed)
            sess.run(tf.local_variables_initializer())
            feed[is_real_example] = np.array([1.0, 1.0, 0.0], np.float32)
            for batch in range(2):
                feed[labels] = class_labels[batch]
                sess.run([accuracy[1], eval_loss[1]], feed)
            out["eval_accuracy"], out["eval_loss"] = sess.run([accuracy[0], eval_loss[0]])
            out["local_names"] = sorted(v.op.name for v in tf.local_variables())

    # --- run_classifier's predict path: a vocabulary and TFRecords, read back by tf.data
    vocab_file = os.path.join(workdir, "vocab.txt")
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "dog",
              "ran", "away"]
    with tf.gfile.GFile(vocab_file, "w") as writer:
        writer.write("".join(token + "\n" for token in tokens))
    vocab = load_vocab(tf, vocab_file)
    out["vocab"] = sorted(vocab.items())
    output_dir = os.path.join(workdir, "output")
    tf.gfile.MakeDirs(output_dir)
    predict_file = os.path.join(output_dir, "predict.tf_record")
    examples = [(["the", "cat"], ["sat"], 1, True), (["dog"], ["ran", "away"], 2, True),
                (["the", "emu"], ["ran"], 0, True), ([], [], 0, False)]
    file_based_convert_examples_to_features(tf, examples, vocab, predict_file)
    out["record_exists"] = tf.gfile.Exists(predict_file)
    with tf.Graph().as_default():
        bert = _Bert(tf, rng)
        dataset = file_based_input_fn(tf, predict_file, BATCH)
        features = tf.data.make_one_shot_iterator(dataset).get_next()
        out["feature_shapes"] = sorted((k, v.shape.as_list(), v.dtype.name)
                                       for k, v in features.items())
        out["feature_log"] = ["  name = %s, shape = %s" % (name, features[name].shape)
                              for name in sorted(features.keys())]
        out["output_shapes"] = [(name, repr(shape)) for name, shape in
                                sorted(tf.data.get_output_shapes(dataset).items())]
        pooled, _, _ = bert.model(features["input_ids"], features["input_mask"],
                                  features["segment_ids"], False,
                                  use_one_hot_embeddings=False)
        _, _, _, probabilities = bert.classifier(pooled, features["label_ids"], 3)
        assignment_map, _ = get_assignment_map_from_checkpoint(
            tf, tf.trainable_variables(), init_checkpoint)
        tf.train.init_from_checkpoint(init_checkpoint, assignment_map)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, probs = sess.run([features, probabilities])
            out["predict_features"] = {k: v for k, v in got.items()}
            out["predict_probabilities"] = probs
            try:
                sess.run(probabilities)
                out["second_batch"] = "ran"
            except tf.errors.OutOfRangeError:
                out["second_batch"] = "OutOfRangeError"
    # Adam divides by sqrt(v) + 1e-6: gradients that are rounding noise (the key bias's is
    # zero in exact arithmetic, softmax ignoring a shift shared by every key) still move
    # their variables by about the rate, so trained values carry a little more round-off.
    out["_tol"] = {k: {"rtol": 1e-3, "atol": 1e-4} for k in (
        "losses", "per_example_loss", "adam_m_word_embeddings", "adam_v_gamma",
        "trained_query", "trained_gamma", "probabilities", "tuned_losses", "tuned_logits",
        "lm_loss", "nsp_loss", "eval_loss", "predict_probabilities")}
