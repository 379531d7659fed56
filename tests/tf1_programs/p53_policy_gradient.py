"""Policy-gradient training with tf.distributions, as TF1 RL code wrote it: a softmax
policy as a Categorical over logits and a Gaussian policy as a Normal (loc from the
network, scale from a softplus'd variable), REINFORCE with discounted returns computed in
numpy, an entropy bonus, a PPO-style clipped ratio of new to old log-probabilities, and
tf.distributions.kl_divergence between the old and new policies; the actions are given,
so nothing depends on TF's random draws, except the samples checked by shape and range."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    steps, obs_dim, actions = 6, 4, 3
    observations = rng.normal(size=(steps, obs_dim)).astype(np.float32)
    taken = rng.randint(0, actions, steps).astype(np.int32)
    continuous = rng.normal(size=(steps, 1)).astype(np.float32)
    rewards = rng.uniform(-1, 1, steps).astype(np.float32)
    returns = np.array([sum(rewards[t:] * 0.9 ** np.arange(steps - t)) for t in range(steps)],
                       np.float32)

    obs = tf.placeholder(tf.float32, [None, obs_dim], name="obs")
    act = tf.placeholder(tf.int32, [None], name="actions")
    act_c = tf.placeholder(tf.float32, [None, 1], name="continuous_actions")
    ret = tf.placeholder(tf.float32, [None], name="returns")
    old_logits = tf.placeholder(tf.float32, [None, actions], name="old_logits")

    w = tf.Variable(rng.normal(0, 0.3, (obs_dim, actions)).astype(np.float32), name="w")
    w_mu = tf.Variable(rng.normal(0, 0.3, (obs_dim, 1)).astype(np.float32), name="w_mu")
    log_scale = tf.Variable([-0.5], name="log_scale")
    logits = tf.matmul(obs, w)
    policy = tf.distributions.Categorical(logits=logits)
    old_policy = tf.distributions.Categorical(logits=old_logits)
    gaussian = tf.distributions.Normal(loc=tf.matmul(obs, w_mu),
                                       scale=tf.nn.softplus(log_scale))

    log_prob = policy.log_prob(act)
    advantage = ret - tf.reduce_mean(ret)
    ratio = tf.exp(log_prob - old_policy.log_prob(act))
    clipped = tf.minimum(ratio * advantage,
                         tf.clip_by_value(ratio, 0.8, 1.2) * advantage)
    reinforce = -tf.reduce_mean(tf.reduce_sum(gaussian.log_prob(act_c), 1) * advantage)
    loss = -tf.reduce_mean(clipped) + reinforce - 0.01 * tf.reduce_mean(policy.entropy())
    kl = tf.reduce_mean(tf.distributions.kl_divergence(old_policy, policy))
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss)
    sample = policy.sample(seed=1)
    gaussian_sample = gaussian.sample(2, seed=2)

    out["event_shapes"] = [policy.event_shape.as_list(), gaussian.event_shape.as_list()]
    out["batch_shape_gaussian"] = gaussian.batch_shape.as_list()
    out["reparameterized"] = [policy.reparameterization_type ==
                              tf.distributions.FULLY_REPARAMETERIZED,
                              gaussian.reparameterization_type ==
                              tf.distributions.FULLY_REPARAMETERIZED]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {obs: observations, act: taken, act_c: continuous, ret: returns}
        first_logits = sess.run(logits, feed)
        feed[old_logits] = first_logits
        out["probs"] = sess.run(policy.probs, feed)
        out["entropy"] = sess.run(policy.entropy(), feed)
        out["gaussian_stats"] = np.array(sess.run([tf.reduce_mean(gaussian.stddev()),
                                                   tf.reduce_mean(gaussian.entropy())], feed))
        history = []
        for _ in range(5):
            _, l, k = sess.run([train_op, loss, kl], feed)
            history.append([l, k])
        out["history"] = np.array(history)
        out["final_kl"] = sess.run(kl, feed)
        drawn, drawn_c = sess.run([sample, gaussian_sample], feed)
        out["sample_shape"] = list(drawn.shape)
        out["sample_in_range"] = bool(((drawn >= 0) & (drawn < actions)).all())
        out["gaussian_sample_shape"] = list(drawn_c.shape)
