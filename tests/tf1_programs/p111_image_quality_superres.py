"""A tiny super-resolution model with the image-quality and augmentation code of TF1 vision
scripts, on synthetic uint8 images: convert_image_dtype both ways (saturate=True, and the
unsaturated wrap), the low-resolution input made by resize_images/resize with each method
(align_corners, preserve_aspect_ratio, a fed size), a sub-pixel upsampler (depth_to_space)
over a resize_bicubic skip, trained a few Adam steps on 1 - ssim plus L1; psnr, ssim (and
their gradients), ssim_multiscale (default and fewer power factors), total_variation,
sobel_edges, image_gradients, extract_image_patches/extract_patches and its gradient;
fixed-factor augmentations on uint8 and float images (which keep the dtype), colour-space
round trips, flips, rotations, crops and pads; and the errors a user hits: ssim of an image
smaller than its filter (static: ValueError; fed: at run), total_variation of uint8 (Abs
takes no unsigned type), a central_crop fraction out of (0, 1], crop_to_bounding_box past
the image, no gradient through resize_area, patches across the batch (built, refused at
run), a patch window just past the image (no patches), adjust_hue of 4 channels (built,
refused at run), and crops, pads and resizes of a fully unknown shape with fed sizes"""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    base = rng.randint(0, 256, (2, 4, 4, 3)).astype(np.float32)
    smooth = np.kron(base, np.ones((1, 4, 4, 1), np.float32))
    raw = np.clip(smooth + rng.normal(0, 12, smooth.shape), 0, 255).astype(np.uint8)

    images = tf.placeholder(tf.uint8, [None, 16, 16, 3], name="images")
    hr = tf.image.convert_image_dtype(images, tf.float32)
    M = tf.image.ResizeMethod
    lows = {"bilinear": tf.image.resize_images(hr, [8, 8]),
            "nearest": tf.image.resize_images(hr, [8, 8], M.NEAREST_NEIGHBOR),
            "bicubic": tf.image.resize(hr, [8, 8], method=M.BICUBIC),
            "area": tf.image.resize_images(hr, [8, 8], M.AREA),
            "aligned": tf.image.resize_images(hr, [7, 7], align_corners=True),
            "uint8_nearest": tf.image.resize_images(images, [8, 8], M.NEAREST_NEIGHBOR),
            "uint8_area": tf.image.resize_images(images, [8, 8], M.AREA)}
    out["low_dtypes"] = {k: v.dtype.name for k, v in lows.items()}
    lr = lows["area"]

    w1 = tf.Variable(rng.normal(0, 0.2, (3, 3, 3, 8)).astype(np.float32), name="conv1")
    w2 = tf.Variable(rng.normal(0, 0.1, (3, 3, 8, 12)).astype(np.float32), name="conv2")
    feat = tf.nn.relu(tf.nn.conv2d(lr, w1, [1, 1, 1, 1], "SAME"))
    residual = tf.depth_to_space(tf.nn.conv2d(feat, w2, [1, 1, 1, 1], "SAME"), 2)
    sr = tf.clip_by_value(tf.image.resize_bicubic(lr, [16, 16]) + residual, 0.0, 1.0)
    ssim = tf.image.ssim(sr, hr, max_val=1.0)
    loss = tf.reduce_mean(1.0 - ssim) + tf.reduce_mean(tf.abs(sr - hr))
    ssim_grad = tf.gradients(tf.reduce_sum(ssim), residual)[0]
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    psnr = tf.image.psnr(sr, hr, max_val=1.0)
    psnr_uint8 = tf.image.psnr(images, tf.image.convert_image_dtype(sr, tf.uint8,
                                                                    saturate=True), 255)
    msssim = tf.image.ssim_multiscale(hr, sr, 1.0, power_factors=(0.4, 0.6), filter_size=5)
    out["sr_shape"] = sr.shape.as_list()
    out["psnr_dtype"] = psnr_uint8.dtype.name

    dy, dx = tf.image.image_gradients(hr)
    patches_v1 = tf.image.extract_image_patches(hr, ksizes=[1, 3, 3, 1], strides=[1, 4, 4, 1],
                                                rates=[1, 2, 2, 1], padding="VALID")
    patches_v2 = tf.image.extract_patches(hr, sizes=[1, 4, 4, 1], strides=[1, 5, 5, 1],
                                          rates=[1, 1, 1, 1], padding="SAME")
    patch_grad = tf.gradients(tf.reduce_sum(patches_v1 ** 2) + tf.reduce_sum(patches_v2), hr)[0]
    out["patch_shapes"] = [patches_v1.shape.as_list(), patches_v2.shape.as_list()]
    metrics = {"tv": tf.image.total_variation(hr),
               "sobel": tf.image.sobel_edges(hr[:, :6, :6, :1]), "dy": dy[:, :5, :5], "dx": dx,
               "patches_v1": patches_v1, "patches_v2": patches_v2, "patch_grad": patch_grad}
    out["metric_dtypes"] = {k: v.dtype.name for k, v in metrics.items()}

    img8 = tf.constant(raw[0])
    img = tf.image.convert_image_dtype(img8, tf.float32)
    augment = {
        "brightness_u8": tf.image.adjust_brightness(img8, 0.1),
        "brightness": tf.image.adjust_brightness(img, -0.2),
        "contrast_u8": tf.image.adjust_contrast(img8, 1.5),
        "contrast": tf.image.adjust_contrast(img, 0.5),
        "saturation_u8": tf.image.adjust_saturation(img8, 2.0),
        "hue": tf.image.adjust_hue(img, 0.25),
        "hue_u8": tf.image.adjust_hue(img8, -0.1),
        "gamma": tf.image.adjust_gamma(img, 2.0, 0.9),
        "gamma_u8": tf.image.adjust_gamma(img8, 0.5),
        "hsv": tf.image.rgb_to_hsv(img),
        "hsv_back": tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(img)) - img,
        "yiq_back": tf.image.yiq_to_rgb(tf.image.rgb_to_yiq(img)) - img,
        "yuv": tf.image.rgb_to_yuv(img),
        "yuv_back": tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(img)) - img,
        "flip": tf.image.flip_left_right(img8), "rot90": tf.image.rot90(img8, k=3),
        "rot_batch": tf.image.rot90(images, 2), "transpose": tf.image.transpose_image(img),
        "central": tf.image.central_crop(img8, 0.5),
        "crop": tf.image.crop_to_bounding_box(img8, 2, 3, 5, 6),
        "pad": tf.image.pad_to_bounding_box(img8, 1, 2, 18, 20),
        "crop_or_pad": tf.image.resize_image_with_crop_or_pad(img8, 10, 20),
        "standardized": tf.image.per_image_standardization(img8),
        "standardized_f": tf.image.per_image_standardization(img)}
    out["augment_dtypes"] = {k: v.dtype.name for k, v in augment.items()}
    out["augment_shapes"] = {k: v.shape.as_list() for k, v in augment.items()}

    def error(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the class is what the program records
            return type(e).__name__
        return None

    tiny = tf.placeholder(tf.float32, [1, None, None, 3], name="tiny")
    tiny_ssim = tf.image.ssim(tiny, tiny, 1.0)
    errors = {
        "ssim_small_static": error(lambda: tf.image.ssim(hr[:, :8, :8], sr[:, :8, :8], 1.0)),
        "psnr_dtypes": error(lambda: tf.image.psnr(images, hr, 1.0)),
        "tv_uint8": error(lambda: tf.image.total_variation(images)),
        "central_zero": error(lambda: tf.image.central_crop(img, 0.0)),
        "central_over": error(lambda: tf.image.central_crop(img, 1.5)),
        "crop_past": error(lambda: tf.image.crop_to_bounding_box(img8, 10, 0, 8, 8)),
        "pad_smaller": error(lambda: tf.image.pad_to_bounding_box(img8, 0, 0, 10, 10))}
    offset = tf.placeholder(tf.int32, [], name="offset")
    fed_crop = tf.image.crop_to_bounding_box(img8, offset, 0, 8, 8)
    out["fed_crop_shape"] = fed_crop.shape.as_list()
    unknown = tf.placeholder(tf.uint8, [None, None, None, 3], name="unknown")
    fed = {"pad_small": tf.image.pad_to_bounding_box(unknown, 1, 2, 12, 20),
           "crop_or_pad": tf.image.resize_image_with_crop_or_pad(unknown, offset, offset + 5),
           "central": tf.image.central_crop(unknown, 0.6),
           "bicubic": tf.image.resize_images(unknown, [offset, offset * 2], M.BICUBIC)}
    out["fed_shapes"] = {k: v.shape.as_list() for k, v in fed.items()}

    big = tf.constant(np.kron(rng.uniform(0, 1, (1, 11, 11, 1)),
                              np.ones((1, 16, 16, 1))).astype(np.float32))
    noisy = tf.clip_by_value(big + tf.constant(rng.normal(0, 0.05, (1, 176, 176, 1)),
                                               tf.float32), 0.0, 1.0)
    fed_size = tf.placeholder(tf.int32, [2], name="size")
    more = {
        "msssim_default": tf.image.ssim_multiscale(big, noisy, 1.0),
        "ssim_uint8": tf.image.ssim(images, tf.image.flip_up_down(images), 255),
        "psnr_mixed": tf.image.psnr(images, hr, 1.0),
        "psnr_grad": tf.gradients(tf.reduce_sum(tf.image.psnr(sr, hr, 1.0)), sr)[0][:, :3, :3],
        "ssim_grad_both": tf.gradients(tf.image.ssim(lows["bilinear"], lows["bicubic"], 1.0,
                                                     filter_size=7),
                                       [lows["bilinear"], lows["bicubic"]]),
        "bicubic_aligned": tf.image.resize_images(hr, [5, 6], M.BICUBIC, align_corners=True),
        "nearest_aligned": tf.image.resize_images(images, [5, 7], M.NEAREST_NEIGHBOR, True),
        "bilinear_u8": tf.image.resize_images(images, [9, 5]),
        "aspect": tf.image.resize_images(hr[:, :8], [12, 12], preserve_aspect_ratio=True),
        "fed_size": tf.image.resize_images(hr, fed_size, M.AREA),
        "to_uint8": tf.image.convert_image_dtype(tf.constant([[[-0.2, 0.5, 1.3]]]), tf.uint8),
        "f64": tf.image.convert_image_dtype(tf.constant([[[0.25]]], tf.float64), tf.float32),
        "int_scale": [tf.image.convert_image_dtype(img8[:2, :2], tf.int16),
                      tf.image.convert_image_dtype(tf.constant([[[2 ** 30, -5, 7]]]),
                                                   tf.uint8)],
        "bright_sat": tf.image.adjust_brightness(img8, 0.9),
        "gray_u8": tf.image.rgb_to_grayscale(img8),
        "hue_batch": tf.image.adjust_hue(hr[:, :4, :4], 0.4),
        "sat_f64": tf.image.adjust_saturation(tf.cast(img, tf.float64)[:3, :3], 0.3),
        "std_batch": tf.image.per_image_standardization(images[:, :4, :4]),
        "central_batch": tf.image.central_crop(images, 0.3),
        "crop_batch": tf.image.crop_to_bounding_box(images, 3, 1, 4, 5),
        "pad_crop_batch": tf.image.resize_image_with_crop_or_pad(images, 7, 19),
        "rot_k": tf.image.rot90(img8[:3, :5], tf.constant(5)),
        "space_depth": tf.gradients(tf.reduce_sum(tf.space_to_depth(hr, 4) ** 2), hr)[0][0, :2],
        "patch_same_grad": tf.gradients(tf.reduce_sum(tf.image.extract_image_patches(
            hr, [1, 3, 2, 1], [1, 2, 3, 1], [1, 3, 2, 1], "SAME") ** 2), hr)[0][0, :6, :6, 0],
        "hsv_grad": tf.gradients(tf.image.rgb_to_hsv(hr[:, :5, :5]), hr, grad_ys=tf.constant(
            np.tile([0.7, -1.3, 2.0], (2, 5, 5, 1)), tf.float32))[0][:, :5, :5],
        "tv_grad": tf.gradients(tf.reduce_sum(tf.image.total_variation(sr)), sr)[0][0, :4, :4]}
    out["more_shapes"] = {k: v.shape.as_list() for k, v in more.items()
                          if not isinstance(v, list)}
    errors.update({
        "area_gradient": error(lambda: tf.gradients(loss, hr)),
        "ssim_shapes": error(lambda: tf.image.ssim(hr, hr[:, :12], 1.0)),
        "psnr_shapes": error(lambda: tf.image.psnr(hr, hr[:, :, :8], 1.0)),
        "gradients_3d": error(lambda: tf.image.image_gradients(img)),
        "sobel_uint8": error(lambda: tf.image.sobel_edges(images)),
        "resize_float_size": error(lambda: tf.image.resize_images(hr, [8.0, 8.0])),
        "resize_rank": error(lambda: tf.image.resize_images(tf.zeros([4, 4]), [2, 2])),
        "patches_too_big": error(lambda: tf.image.extract_patches(
            hr, [1, 18, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"))})
    batch_rates = tf.image.extract_patches(hr, [1, 3, 3, 1], [1, 1, 1, 1], [2, 1, 1, 1],
                                           "VALID")         # builds; the kernel refuses it
    past = tf.image.extract_image_patches(hr, [1, 9, 3, 1], [1, 2, 1, 1], [1, 2, 1, 1],
                                          "VALID")         # a window past the image: none
    out["patches_past_shapes"] = [batch_rates.shape.as_list(), past.shape.as_list()]
    four_channels = tf.image.adjust_hue(tf.concat([img8, img8[..., :1]], -1), 0.2)
    out["four_channels"] = [four_channels.dtype.name, four_channels.shape.as_list()]
    errors["saturation_rank2"] = error(lambda: tf.image.adjust_saturation(img[0], 0.5))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["more"] = sess.run(more, {images: raw, fed_size: [6, 4]})
        feed = {images: raw}
        out["hr_roundtrip"] = bool(np.array_equal(
            sess.run(tf.image.convert_image_dtype(hr, tf.uint8, saturate=True), feed), raw))
        out["lows"] = sess.run(lows, feed)
        out["initial"] = sess.run([psnr, ssim, psnr_uint8, msssim], feed)
        out["ssim_grad"] = sess.run(ssim_grad, feed)
        out["losses"] = np.array([sess.run([train_op, loss], feed)[1] for _ in range(6)])
        out["final"] = sess.run([psnr, ssim, msssim], feed)
        out["metrics"] = sess.run(metrics, feed)
        out["augment"] = sess.run(augment, feed)
        out["fed_crop"] = sess.run(fed_crop, {offset: 4})
        for name, t, fd in [("tiny_ssim", tiny_ssim, {tiny: np.ones((1, 8, 8, 3))}),
                            ("fed_crop_past", fed_crop, {offset: 12}),
                            ("patches_batch_rates", batch_rates, feed),
                            ("patches_past", past, feed),
                            ("four_channels", four_channels, None)]:
            try:
                errors[name] = sess.run(t, fd).tolist()
            except tf.errors.OpError as e:
                errors[name] = type(e).__name__
        out["fed"] = {}
        for name, t in sorted(fed.items()):      # the sizes only the run knows
            try:
                out["fed"][name] = sess.run(t, {unknown: raw, offset: 6})
            except tf.errors.OpError as e:
                out["fed"][name] = type(e).__name__
    out["errors"] = errors
    loose = {"rtol": 1e-4, "atol": 1e-5}
    out["_tol"] = dict.fromkeys(["initial", "final", "losses", "ssim_grad", "lows"], loose)
    out["_tol"]["augment"] = {"rtol": 1e-5, "atol": 2e-6}
    out["_tol"]["more"] = out["_tol"]["fed"] = loose
