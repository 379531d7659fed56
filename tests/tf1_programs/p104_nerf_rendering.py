"""A tiny NeRF as Mildenhall et al.'s TF1 run_nerf.py / run_nerf_helpers.py wrote it, on a
synthetic 4x5 image: rays from a camera-to-world variable and a pixel grid (tf.meshgrid with
indexing='xy', the rotation as reduce_sum(dirs[..., None, :] * c2w[:3, :3], -1), origins
by tf.broadcast_to), positional encoding (sin/cos of 2.**tf.linspace frequencies,
tf.concat), coarse and fine tf.layers.dense MLPs (a skip concat, view directions) run as
run_network did: shapes as Dimension lists and TensorShapes, batchified over
range(0, x.shape[0], chunk) under AUTO_REUSE; stratified depths from numpy noise,
raw2outputs volume rendering (dists with a 1e10 tail, tf.norm of the directions, alpha, an
exclusive tf.math.cumprod transmittance, rgb / depth / acc / disp maps, white background),
hierarchical sampling (sample_pdf: tf.cumsum, tf.searchsorted side='right' of numpy u or of
det linspace u broadcast to a Dimension list, clamps, tf.gather with batch_dims, tf.where on
small denominators, tf.stop_gradient, tf.sort of the merged depths), coarse + fine MSE,
PSNR both by tf.image.psnr and -10 log10, Adam with tf.train.exponential_decay on the
networks only; the gradients for the first layer, the camera pose and the depth noise
(through the sort); a deterministic test render after training.  Edges: searchsorted of an
unsorted row (TF's binary search, no check) and of mismatched batches (TF's run-time
error, also where the static shapes disagree: TF builds it), cumprod's reverse/exclusive
combinations and their gradients (a zero factor's: TF's div_no_nan gives 0, not the true
1.5), tf.sort / tf.argsort DESCENDING, a ray whose weights are all zero (the pdf's +1e-5
makes its samples uniform) and empty rays (disp_map 0 / 0 is NaN through tf.maximum)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    height, width, focal, n_coarse, n_fine, near, far = 4, 5, 4.0, 8, 8, 2.0, 6.0
    n_rays = height * width
    yy, xx = np.mgrid[0:height, 0:width] / 4.0
    target_img = np.stack([0.5 + 0.4 * np.sin(3 * xx), 0.3 + 0.5 * yy * xx,
                           0.8 - 0.3 * yy], -1).astype(np.float32)
    angle = 0.3
    pose = np.array([[np.cos(angle), 0, np.sin(angle), 1.5 * np.sin(angle)],
                     [0, 1, 0, 0.1], [-np.sin(angle), 0, np.cos(angle), 4.0 * np.cos(angle)]],
                    np.float32)
    t_noise = rng.uniform(size=(n_rays, n_coarse)).astype(np.float32)
    u_fine = np.sort(rng.uniform(size=(n_rays, n_fine)), -1).astype(np.float32)

    c2w = tf.Variable(pose, name="c2w")
    target = tf.placeholder(tf.float32, [height, width, 3], name="target")
    t_rand = tf.placeholder(tf.float32, [n_rays, n_coarse], name="t_rand")
    u = tf.placeholder(tf.float32, [n_rays, n_fine], name="u")

    def get_rays(c2w):
        i, j = tf.meshgrid(tf.range(width, dtype=tf.float32), tf.range(height, dtype=tf.float32),
                           indexing="xy")
        dirs = tf.stack([(i - width * .5) / focal, -(j - height * .5) / focal,
                         -tf.ones_like(i)], -1)
        rays_d = tf.reduce_sum(dirs[..., np.newaxis, :] * c2w[:3, :3], -1)
        rays_o = tf.broadcast_to(c2w[:3, -1], tf.shape(rays_d))
        return rays_o, rays_d

    def embed(x, n_freqs):
        freqs = 2. ** tf.linspace(0., n_freqs - 1., n_freqs)
        scaled = tf.reshape(x[..., None, :] * freqs[:, None], [-1, 3 * n_freqs])
        return tf.concat([x, tf.sin(scaled), tf.cos(scaled)], -1)

    def dense(x, units, name, activation=None):
        fan_in = x.shape[-1].value
        kernel = rng.normal(0, 1 / np.sqrt(fan_in), (fan_in, units)).astype(np.float32)
        return tf.layers.dense(x, units, activation, name=name,
                               kernel_initializer=tf.constant_initializer(kernel))

    def network(embedded):
        inputs, views = embedded[:, :27], embedded[:, 27:]
        h = dense(dense(inputs, 32, "l0", tf.nn.relu), 32, "l1", tf.nn.relu)
        h = dense(tf.concat([inputs, h], -1), 32, "l2", tf.nn.relu)   # the skip connection
        alpha = dense(h, 1, "alpha")
        h = dense(tf.concat([dense(h, 32, "bottleneck"), views], -1), 16, "views", tf.nn.relu)
        return tf.concat([dense(h, 3, "rgb"), alpha], -1)

    def run_network(inputs, viewdirs, scope, chunk=96):
        with tf.variable_scope(scope, reuse=tf.AUTO_REUSE):
            embedded = embed(tf.reshape(inputs, [-1, inputs.shape[-1]]), 4)
            input_dirs = tf.broadcast_to(viewdirs[:, None], inputs.shape)
            embedded = tf.concat([embedded, embed(tf.reshape(input_dirs, [-1, 3]), 2)], -1)
            outputs_flat = tf.concat([network(embedded[i:i + chunk])    # batchify
                                      for i in range(0, embedded.shape[0], chunk)], 0)
            return tf.reshape(outputs_flat, list(inputs.shape[:-1]) + [outputs_flat.shape[-1]])

    def raw2outputs(raw, z_vals, rays_d):
        dists = z_vals[..., 1:] - z_vals[..., :-1]
        dists = tf.concat([dists, tf.broadcast_to([1e10], dists[..., :1].shape)], -1)
        dists = dists * tf.norm(rays_d[..., None, :], axis=-1)
        rgb = tf.sigmoid(raw[..., :3])
        alpha = 1.0 - tf.exp(-tf.nn.relu(raw[..., 3]) * dists)
        weights = alpha * tf.math.cumprod(1. - alpha + 1e-10, -1, exclusive=True)
        rgb_map = tf.reduce_sum(weights[..., None] * rgb, -2)
        depth_map = tf.reduce_sum(weights * z_vals, -1)
        acc_map = tf.reduce_sum(weights, -1)
        disp_map = 1. / tf.maximum(1e-10, depth_map / acc_map)
        return rgb_map + (1. - acc_map[..., None]), depth_map, acc_map, disp_map, weights

    def sample_pdf(bins, weights, u=None):
        weights += 1e-5
        pdf = weights / tf.reduce_sum(weights, -1, keepdims=True)
        cdf = tf.cumsum(pdf, -1)
        cdf = tf.concat([tf.zeros_like(cdf[..., :1]), cdf], -1)
        if u is None:                                           # det=True at test time
            u = tf.broadcast_to(tf.linspace(0., 1., n_fine), list(cdf.shape[:-1]) + [n_fine])
        inds = tf.searchsorted(cdf, u, side="right")
        below = tf.maximum(0, inds - 1)
        above = tf.minimum(cdf.shape[-1] - 1, inds)
        inds_g = tf.stack([below, above], -1)
        cdf_g = tf.gather(cdf, inds_g, axis=-1, batch_dims=len(inds_g.shape) - 2)
        bins_g = tf.gather(bins, inds_g, axis=-1, batch_dims=len(inds_g.shape) - 2)
        denom = cdf_g[..., 1] - cdf_g[..., 0]
        denom = tf.where(denom < 1e-5, tf.ones_like(denom), denom)
        t = (u - cdf_g[..., 0]) / denom
        return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])

    rays_o, rays_d = [tf.reshape(r, [-1, 3]) for r in get_rays(c2w)]
    viewdirs = rays_d / tf.norm(rays_d, axis=-1, keepdims=True)

    def render(t_rand=None, u=None):
        t_vals = tf.linspace(0., 1., n_coarse)
        z_vals = tf.broadcast_to(near * (1. - t_vals) + far * t_vals, [n_rays, n_coarse])
        if t_rand is not None:                                  # stratified sampling
            mids = .5 * (z_vals[..., 1:] + z_vals[..., :-1])
            upper = tf.concat([mids, z_vals[..., -1:]], -1)
            lower = tf.concat([z_vals[..., :1], mids], -1)
            z_vals = lower + (upper - lower) * t_rand
        pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
        coarse = raw2outputs(run_network(pts, viewdirs, "coarse"), z_vals, rays_d)
        z_vals_mid = .5 * (z_vals[..., 1:] + z_vals[..., :-1])
        z_samples = tf.stop_gradient(sample_pdf(z_vals_mid, coarse[-1][..., 1:-1], u))
        z_fine = tf.sort(tf.concat([z_vals, z_samples], -1), -1)
        pts = rays_o[..., None, :] + rays_d[..., None, :] * z_fine[..., :, None]
        return coarse, raw2outputs(run_network(pts, viewdirs, "fine"), z_fine, rays_d), z_fine

    (rgb0, _, _, _, weights0), (rgb, depth, acc, disp, _), z_fine = render(t_rand, u)
    _, (test_rgb, test_depth, _, test_disp, _), test_z = render()
    target_s = tf.reshape(target, [-1, 3])
    img_loss = tf.reduce_mean(tf.square(rgb - target_s))
    img_loss0 = tf.reduce_mean(tf.square(rgb0 - target_s))
    loss = img_loss + img_loss0
    psnr = -10. * tf.log(img_loss) / tf.log(10.)
    psnr_image = tf.image.psnr(tf.reshape(rgb, [height, width, 3]), target, max_val=1.0)
    global_step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(5e-3, global_step, 4, 0.5)
    net_vars = tf.trainable_variables("coarse") + tf.trainable_variables("fine")
    train_op = tf.train.AdamOptimizer(lr).minimize(loss, global_step, var_list=net_vars)
    grads = tf.gradients(loss, [tf.trainable_variables("coarse/l0")[0], c2w, t_rand])

    zero_ray = sample_pdf(tf.constant([[0., 1., 2., 3., 4.]]), tf.zeros([1, 4]),
                          tf.constant([[0., .3, .5, .99]]))
    empty = raw2outputs(tf.fill([2, 4, 4], -1.), tf.constant([[2., 3., 4., 5.]] * 2),
                        tf.constant([[0., 0., -1.], [.3, 0., -1.]]))   # sigma 0: nothing hit
    x = tf.constant([[1., 2., 3., 4.], [.5, -1., 2., 1.5]])
    combos = [tf.math.cumprod(x, -1, exclusive=e, reverse=r) for e in (False, True)
              for r in (False, True)]
    sortable = tf.constant([[3., 1., 2., 1.], [0., -5., 7., 2.]])
    seq, vals = tf.placeholder(tf.float32, [None, None]), tf.placeholder(tf.float32, [None, None])
    feed = {target: target_img, t_rand: t_noise, u: u_fine}
    out["shapes"] = [t.shape.as_list() for t in (z_fine, rgb, disp, test_z)]
    out["variables"] = [v.name for v in net_vars[:4]] + [len(net_vars)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["rays"] = sess.run([rays_o, rays_d], feed)
        first = sess.run({"rgb0": rgb0, "rgb": rgb, "depth": depth, "acc": acc, "disp": disp,
                          "z_fine": z_fine, "weights0": weights0, "psnr": psnr,
                          "psnr_image": psnr_image}, feed)
        out.update({"first_" + k: v for k, v in first.items()})
        out["first_grads"] = sess.run(grads, feed)
        out["losses"] = np.array([sess.run([train_op, img_loss, img_loss0, lr], feed)[1:]
                                  for _ in range(6)])
        out["after"] = sess.run([rgb, depth, z_fine, psnr, psnr_image, global_step], feed)
        out["test_render"] = sess.run([test_rgb, test_depth, test_disp, test_z])
        out["zero_ray_samples"] = sess.run(zero_ray)
        *out["empty_rays"], empty_disp = sess.run(empty[:4])     # white, depth 0, acc 0
        out["empty_disp_nan"] = np.isnan(empty_disp).tolist()   # disp: 1 / max(1e-10, 0 / 0)
        out["cumprod_combos"] = sess.run(combos)
        out["cumprod_grads"] = sess.run([tf.gradients(tf.reduce_sum(c * x), x)[0] for c in combos])
        opaque = tf.constant([.5, 0., 2.])          # 1 - alpha of a fully opaque sample: 0
        out["cumprod_zero_grad"] = sess.run(tf.gradients(tf.math.cumprod(opaque), opaque)[0])
        out["sorted"] = sess.run([tf.sort(sortable, direction="DESCENDING"),
                                  tf.argsort(sortable, direction="DESCENDING"),
                                  tf.sort(sortable, axis=0, direction="DESCENDING"),
                                  tf.argsort(sortable)])
        search = tf.searchsorted(seq, vals, side="right")
        out["unsorted_search"] = sess.run([search, tf.searchsorted(seq, vals)], {
            seq: [[5., 1., 4., 2., 3., 0., 6.]], vals: [[0., 1., 2., 3., 4., 5., 6., 7.]]})
        try:
            sess.run(search, {seq: [[0., 1., 2.], [1., 2., 3.]],
                              vals: [[.5], [1.5], [2.5]]})
        except tf.errors.OpError as error:
            out["mismatched_batch"] = [type(error).__name__, error.op.type, "Leading dim_size of "
                                      "both tensors must match." in error.message]
        static = tf.searchsorted(tf.constant([[0., 1.], [2., 3.]]), [[.5], [1.], [2.]])
        out["static_mismatch_shape"] = static.shape.as_list()     # TF builds it
        try:
            sess.run(static)
        except tf.errors.OpError as error:
            out["static_mismatch"] = type(error).__name__
    out["_tol"] = {"first_grads": {"rtol": 1e-3, "atol": 1e-7}}
