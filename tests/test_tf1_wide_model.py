"""A TF1 "wide" linear model as the census tutorials built one, from today's TF1 surface
working together: a CSV file read by ``TextLineDataset`` + ``decode_csv``, a string
column hashed into buckets (``string_to_hash_bucket_fast``) and looked up as a
``SparseTensor`` (``embedding_lookup_sparse``), trained by ``FtrlOptimizer`` with L1;
then the weights frozen (``graph_util``) and the frozen graph run on new records."""

from __future__ import annotations

import numpy as np

import devsession as tf

BUCKETS = 64          # the six jobs land in six buckets (16 would put tech with sales)
JOBS = ["tech", "sales", "farm", "arts", "law", "care"]
RICH_JOBS = {"tech", "law"}


def write_records(path, count, seed):
    """age,job,label rows: the label is 1 for the rich jobs or an age past 50."""
    rng = np.random.default_rng(seed)
    ages = rng.uniform(18, 80, count)
    jobs = rng.choice(JOBS, count)
    labels = [(job in RICH_JOBS) or age > 50 for age, job in zip(ages, jobs)]
    lines = ["age,job,label"] + [f"{a:.1f},{j},{int(y)}" for a, j, y in zip(ages, jobs, labels)]
    path.write_text("\n".join(lines) + "\n")
    return ages, jobs, np.array(labels, np.float32)


def wide_logits(age, job):
    """logits = the job bucket's weight + w * (age - 50) / 10 + b."""
    ids = tf.string_to_hash_bucket_fast(job, BUCKETS)
    n = tf.shape(ids, out_type=tf.int64)[0]
    sparse_ids = tf.SparseTensor(
        indices=tf.stack([tf.range(n), tf.zeros_like(ids)], axis=1), values=ids,
        dense_shape=tf.stack([n, tf.constant(1, tf.int64)]))
    job_weights = tf.get_variable("job_weights", [BUCKETS, 1],
                                  initializer=tf.zeros_initializer())
    age_weight = tf.get_variable("age_weight", [1], initializer=tf.zeros_initializer())
    bias = tf.get_variable("bias", [1], initializer=tf.zeros_initializer())
    by_job = tf.nn.embedding_lookup_sparse(job_weights, sparse_ids, None, combiner="sum")
    return tf.reshape(by_job, [-1]) + age_weight * (age - 50.0) / 10.0 + bias


def test_a_wide_model_trains_from_csv_and_freezes(tmp_path):
    write_records(tmp_path / "train.csv", 600, seed=0)
    dataset = tf.data.TextLineDataset([str(tmp_path / "train.csv")]).skip(1).map(
        lambda line: tf.decode_csv(line, record_defaults=[[0.0], [""], [0]]))
    age, job, label = dataset.repeat(10).batch(64).make_one_shot_iterator().get_next()
    with tf.variable_scope("wide"):
        logits = wide_logits(age, job)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        labels=tf.cast(label, tf.float32), logits=logits))
    step = tf.train.get_or_create_global_step()
    train = tf.train.FtrlOptimizer(0.5, l1_regularization_strength=0.001).minimize(
        loss, global_step=step)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        try:
            while True:
                losses.append(sess.run([train, loss])[1])
        except tf.errors.OutOfRangeError:
            pass
        frozen = tf.graph_util.convert_variables_to_constants(
            sess, tf.get_default_graph().as_graph_def(), ["wide/add_1"])
    assert len(losses) == -(-600 * 10 // 64)
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:3])

    ages, jobs, labels = write_records(tmp_path / "test.csv", 200, seed=1)
    with tf.Graph().as_default() as graph:
        age_in = tf.placeholder(tf.float32, [None], name="age")
        job_in = tf.placeholder(tf.string, [None], name="job")
        (out,) = tf.import_graph_def(frozen, input_map={"IteratorGetNext:0": age_in,
                                                        "IteratorGetNext:1": job_in},
                                     return_elements=["wide/add_1:0"], name="")
        with tf.Session(graph=graph) as sess:
            predicted = sess.run(out, {age_in: ages.astype(np.float32),
                                       job_in: np.array([j.encode() for j in jobs], object)})
    accuracy = np.mean((predicted > 0) == (labels > 0.5))
    assert accuracy > 0.9, accuracy
