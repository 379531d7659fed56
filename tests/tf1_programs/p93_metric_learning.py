"""Metric learning as TF1 face-embedding code wrote it: a tiny conv net on 6x6 inputs ending
in tf.nn.l2_normalize, pairwise distances from a matmul and its diag_part with the mask
and epsilon trick that keeps tf.sqrt's gradient finite at zero, the batch-hard triplet loss
(hardest positive by a masked reduce_max, hardest negative by reduce_min over distances plus
max * (1 - mask)), the batch-all loss over a 3-D mask with count_nonzero of the active
triplets, semi-hard negatives by a three-argument tf.where, a contrastive loss, an N-pair /
InfoNCE loss over matmul(a, p, transpose_b=True) / temperature (sparse softmax cross
entropy and the same by reduce_logsumexp), class centers updated by scatter_sub under
control_dependencies and recomputed by unsorted_segment_sum, recall@k by top_k over a
small gallery, tf.linalg.band_part of known and unknown rank, a few steps of Nesterov
momentum and Adam, and the edge cases: an anchor without a positive (finite gradients, the
naive sqrt's too: TF's SqrtGrad is 0 where no gradient flows, even at 0), a batch of one
class (its hardest negative is the zero distance to itself: the naive sqrt's gradient is
not finite there, the epsilon trick's is), and the errors a user hits."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    classes, dim = 4, 4
    patterns = rng.normal(size=(classes, 6, 6, 1)).astype(np.float32)
    labels_np = np.array([0, 0, 0, 1, 1, 2, 2, 3], np.int32)      # class 3: no positive
    images_np = patterns[labels_np] + 0.6 * rng.normal(size=(8, 6, 6, 1)).astype(np.float32)
    views_np = images_np + 0.3 * rng.normal(size=images_np.shape).astype(np.float32)
    gallery_labels_np = np.array([0, 1, 2, 3, 0, 1], np.int32)
    gallery_np = (patterns[gallery_labels_np]
                  + 0.6 * rng.normal(size=(6, 6, 6, 1))).astype(np.float32)
    conv_k = rng.normal(0, 0.4, (3, 3, 1, 3)).astype(np.float32)
    proj_w = rng.normal(0, 0.4, (12, dim)).astype(np.float32)

    def embed(x, reuse=None):
        with tf.variable_scope("embed", reuse=reuse):
            h = tf.layers.conv2d(x, 3, 3, activation=tf.nn.relu, name="conv",
                                 kernel_initializer=tf.constant_initializer(conv_k))
            h = tf.layers.flatten(tf.layers.max_pooling2d(h, 2, 2))
            h = tf.layers.dense(h, dim, name="proj",
                                kernel_initializer=tf.constant_initializer(proj_w))
            return tf.nn.l2_normalize(h, axis=1)

    def pairwise_distances(e, squared=False, naive=False):
        dot = tf.matmul(e, e, transpose_b=True)
        norms = tf.diag_part(dot) if naive else tf.linalg.diag_part(dot)
        d = tf.maximum(tf.expand_dims(norms, 0) - 2.0 * dot + tf.expand_dims(norms, 1), 0.0)
        if squared or naive:
            return d if squared else tf.sqrt(d)
        zero = tf.to_float(tf.equal(d, 0.0))
        return tf.sqrt(d + zero * 1e-16) * (1.0 - zero)

    def masks(labels):
        same = tf.equal(tf.expand_dims(labels, 0), tf.expand_dims(labels, 1))
        not_self = tf.logical_not(tf.cast(tf.eye(tf.shape(labels)[0]), tf.bool))
        return tf.logical_and(same, not_self), tf.logical_not(same)

    def batch_hard(labels, d, margin=0.5):
        positive, negative = masks(labels)
        hardest_pos = tf.reduce_max(tf.to_float(positive) * d, axis=1, keepdims=True)
        row_max = tf.reduce_max(d, axis=1, keepdims=True)
        hardest_neg = tf.reduce_min(d + row_max * (1.0 - tf.to_float(negative)), axis=1,
                                    keepdims=True)
        return tf.reduce_mean(tf.nn.relu(margin + hardest_pos - hardest_neg)), hardest_pos

    def batch_all(labels, d, margin=0.5):
        positive, negative = masks(labels)
        valid = tf.logical_and(tf.expand_dims(positive, 2), tf.expand_dims(negative, 1))
        triplets = tf.nn.relu(tf.expand_dims(d, 2) - tf.expand_dims(d, 1) + margin)
        triplets *= tf.to_float(valid)
        active = tf.math.count_nonzero(tf.greater(triplets, 1e-16))
        total = tf.reduce_sum(tf.to_float(valid))
        loss = tf.reduce_sum(triplets) / (tf.to_float(active) + 1e-16)
        return loss, active, total

    images = tf.placeholder(tf.float32, [None, 6, 6, 1], name="images")
    views = tf.placeholder(tf.float32, [None, 6, 6, 1], name="views")
    labels = tf.placeholder(tf.int32, [None], name="labels")
    emb = embed(images)
    emb_views = embed(views, reuse=True)
    dist = pairwise_distances(emb)
    hard_loss, hardest_pos = batch_hard(labels, dist)
    all_loss, active, valid_total = batch_all(labels, pairwise_distances(emb, squared=True))
    naive_loss, _ = batch_hard(labels, pairwise_distances(emb, naive=True))
    positive, negative = masks(labels)
    semi_hard = tf.reduce_min(tf.where(
        tf.logical_and(negative, tf.greater(dist, hardest_pos)), dist,
        tf.fill(tf.shape(dist), 4.0)), axis=1)
    upper = tf.linalg.band_part(tf.ones_like(dist), 0, -1) - tf.linalg.band_part(
        tf.ones_like(dist), 0, 0)
    pair_dist = tf.boolean_mask(dist, tf.cast(upper, tf.bool))
    positive_dist = tf.boolean_mask(dist, positive)
    negative_pairs = tf.where(tf.logical_and(negative, tf.cast(upper, tf.bool)))

    # contrastive loss on pairs (first half, second half)
    half = tf.shape(emb)[0] // 2
    same_pair = tf.to_float(tf.equal(labels[:half], labels[half:]))
    pair_d = tf.sqrt(tf.reduce_sum(tf.square(emb[:half] - emb[half:]), 1) + 1e-12)
    contrastive = tf.reduce_mean(same_pair * tf.square(pair_d) + (1.0 - same_pair) *
                                 tf.square(tf.nn.relu(1.0 - pair_d)))

    # N-pair / InfoNCE: each image against its own second view
    logits = tf.matmul(emb, emb_views, transpose_b=True) / 0.2
    npair = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.range(tf.shape(logits)[0]), logits=logits))
    npair_lse = tf.reduce_mean(tf.reduce_logsumexp(logits, 1) - tf.linalg.diag_part(logits))

    # center loss, centers moved by scatter_sub before each step
    centers = tf.Variable(tf.zeros([classes, dim]), trainable=False, name="centers")
    batch_centers = tf.gather(centers, labels)
    center_loss = tf.reduce_mean(tf.reduce_sum(tf.square(emb - batch_centers), 1))
    _, unique_idx, unique_count = tf.unique_with_counts(labels)
    appear = tf.to_float(tf.gather(unique_count, unique_idx))
    center_update = tf.scatter_sub(centers, labels, 0.5 * (batch_centers - emb) /
                                   tf.expand_dims(1.0 + appear, 1))
    sums = tf.unsorted_segment_sum(emb, labels, classes)
    counts = tf.unsorted_segment_sum(tf.ones_like(labels), labels, classes)
    class_means = sums / tf.to_float(tf.expand_dims(tf.maximum(counts, 1), 1))

    total = hard_loss + 0.1 * center_loss
    variables = tf.trainable_variables()
    grads = tf.gradients(total, variables)
    naive_grads = tf.gradients(naive_loss, variables)
    with tf.control_dependencies([center_update]):
        train_triplet = tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True).minimize(
            total)
    train_npair = tf.train.AdamOptimizer(0.02).minimize(npair + 0.5 * contrastive)

    gallery = tf.constant(gallery_np)
    similarity = tf.matmul(emb, embed(gallery, reuse=True), transpose_b=True)
    _, top = tf.math.top_k(similarity, k=3)
    retrieved = tf.gather(tf.constant(gallery_labels_np), top)
    hits = tf.equal(retrieved, tf.expand_dims(labels, 1))
    recall = [tf.reduce_mean(tf.to_float(tf.reduce_any(hits[:, :k], 1))) for k in (1, 3)]

    out["names"] = [v.op.name for v in variables]
    feed = {images: images_np, views: views_np, labels: labels_np}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["distances"], out["embeddings"] = sess.run([dist, emb], feed)
        out["first_grads"] = sess.run(grads, feed)
        out["naive_grads_nan"] = [bool(np.isnan(g).any()) for g in sess.run(naive_grads, feed)]
        out["first_losses"] = sess.run([hard_loss, all_loss, active, valid_total, naive_loss,
                                        contrastive, npair, npair_lse], feed)
        out["mining"] = sess.run([hardest_pos, semi_hard, pair_dist, positive_dist,
                                  negative_pairs], feed)
        out["recall_before"] = sess.run(recall, feed)
        history = []
        for _ in range(4):
            _, l, c = sess.run([train_triplet, hard_loss, center_loss], feed)
            history.append([l, c])
        out["triplet_losses"] = np.array(history)
        out["centers"], out["class_means"], out["counts"] = sess.run(
            [centers, class_means, counts], feed)
        out["npair_losses"] = np.array([sess.run([train_npair, npair], feed)[1]
                                        for _ in range(4)])
        out["recall_after"], out["top"] = sess.run([recall, top], feed)

        one_class = {images: images_np[:4], views: views_np[:4], labels: np.zeros(4, np.int32)}
        out["one_class"] = sess.run([hard_loss, all_loss, active, valid_total,
                                     tf.size(negative_pairs)], one_class)
        out["one_class_grads_finite"] = [bool(np.isfinite(g).all())
                                         for g in sess.run(grads, one_class)]
        out["one_class_naive_grads_finite"] = [bool(np.isfinite(g).all())
                                               for g in sess.run(naive_grads, one_class)]
        out["zero_embedding"] = sess.run(tf.nn.l2_normalize(tf.zeros([2, 3]), axis=1))
        any_rank = tf.placeholder(tf.float32, name="any_rank")       # rank unknown
        out["band_any_rank"] = sess.run(tf.linalg.band_part(any_rank, 0, -1),
                                        {any_rank: out["distances"][:6].reshape(2, 3, 8)})

        errors = {}
        k_in = tf.placeholder(tf.int32, [], name="k")
        runtime = {     # built and run inside the try: TF raises these when run
            "top_k_too_large": lambda: (tf.math.top_k(similarity, k=k_in)[1],
                                        {**feed, k_in: 7}),
            "scatter_out_of_range": lambda: (tf.scatter_sub(centers, [5], tf.ones([1, dim])),
                                             {}),
            "segment_out_of_range": lambda: (tf.unsorted_segment_sum(emb, labels, 3), feed),
            "label_out_of_range": lambda: (tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=tf.zeros([8, 3])), feed),
            "band_part_rank1": lambda: (tf.linalg.band_part(tf.zeros([4]), 0, -1), {}),
        }
        for key, build_fetch in runtime.items():
            try:
                sess.run(*build_fetch())
                errors[key] = None
            except tf.errors.OpError as e:
                errors[key] = type(e).__name__
    build = {
        "boolean_mask_shape": lambda: tf.boolean_mask(tf.zeros([4, 4]), tf.ones([3], tf.bool)),
        "where_shapes": lambda: tf.where(tf.ones([4, 4], tf.bool), tf.zeros([4, 4]),
                                         tf.zeros([4, 3])),
        "top_k_static": lambda: tf.math.top_k(tf.zeros([2, 3]), k=4),
    }
    for key, call in build.items():
        try:
            call()
            errors[key] = None
        except (ValueError, tf.errors.InvalidArgumentError) as e:
            errors[key] = type(e).__name__
    out["errors"] = errors
    out["_tol"] = {k: {"rtol": 1e-3, "atol": 1e-5} for k in (
        "first_grads", "triplet_losses", "npair_losses", "centers", "class_means")}
