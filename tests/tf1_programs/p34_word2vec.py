"""word2vec's training step (the TF1 tutorial's shape): an embedding lookup, nce_loss
and sampled_softmax_loss over fixed sampled values (the sampler's draws are TF's own
RNG, so the samples are given, as sampled_values allows), with accidental hits removed
or not and two true classes per example; losses, gradients and a few SGD steps; and the
log-uniform sampler's outputs as shapes, ranges and expected counts."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    vocab, dim, batch = 12, 4, 5
    embeddings = tf.Variable(rng.uniform(-1, 1, (vocab, dim)).astype(np.float32))
    nce_w = tf.Variable(rng.standard_normal((vocab, dim)).astype(np.float32) * 0.3)
    nce_b = tf.Variable(np.zeros(vocab, np.float32))
    words = tf.constant(rng.randint(0, vocab, batch).astype(np.int32))
    context = tf.constant(rng.randint(0, vocab, (batch, 1)).astype(np.int64))
    pairs = tf.constant(rng.randint(0, vocab, (batch, 2)).astype(np.int64))
    embedded = tf.nn.embedding_lookup(embeddings, words)
    sampled = (tf.constant(np.array([1, 4, 7, 0], np.int64)),
               tf.constant(rng.uniform(0.1, 0.9, (batch, 1)).astype(np.float32)),
               tf.constant(rng.uniform(0.1, 0.9, 4).astype(np.float32)))
    sampled_two = (sampled[0], tf.constant(rng.uniform(0.1, 0.9, (batch, 2)).astype(np.float32)),
                   sampled[2])
    nce = tf.reduce_mean(tf.nn.nce_loss(nce_w, nce_b, context, embedded, 4, vocab,
                                        sampled_values=sampled))
    nce_hits = tf.nn.nce_loss(nce_w, nce_b, context, embedded, 4, vocab,
                              sampled_values=sampled, remove_accidental_hits=True)
    softmax = tf.nn.sampled_softmax_loss(nce_w, nce_b, pairs, embedded, 4, vocab, num_true=2,
                                         sampled_values=sampled_two)
    grads = [tf.convert_to_tensor(g) for g in   # TF gives IndexedSlices: made dense
             tf.gradients(nce + tf.reduce_mean(softmax), [embeddings, nce_w, nce_b])]
    train = tf.train.GradientDescentOptimizer(0.5).minimize(nce)
    candidates, true_count, sampled_count = tf.nn.log_uniform_candidate_sampler(
        context, 1, 6, True, vocab, seed=5)
    out["sampler_shapes"] = [t.shape.as_list() for t in (candidates, true_count,
                                                         sampled_count)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["losses"] = sess.run([nce, nce_hits, softmax])
        out["grads"] = sess.run(grads)
        out["steps"] = np.array([sess.run([train, nce])[1] for _ in range(4)])
        drawn, true_expected, sampled_expected = sess.run([candidates, true_count,
                                                           sampled_count])
        out["sampler_distinct_in_range"] = bool(len(set(drawn.tolist())) == 6 and
                                               drawn.min() >= 0 and drawn.max() < vocab)
        out["expected_counts_in_0_1"] = bool(np.all((true_expected > 0) &
                                                     (true_expected <= 1)) and
                                              np.all((sampled_expected > 0) &
                                                     (sampled_expected <= 1)))
