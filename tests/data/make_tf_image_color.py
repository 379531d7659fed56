"""Writes tf_image_color.npz: fixed inputs and TensorFlow 2.21's outputs for the
``tf.image`` colour, orientation and metric functions (rgb_to_hsv ... ssim), which
tests/test_image_color.py compares devsession with.  Keys are "<case>/in..." for inputs
and "<case>" for TF's outputs.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_image_color.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261206)


def rgb_batch(shape) -> np.ndarray:
    """Uniform RGB in [0, 1) with the special pixels an HSV conversion branches on: gray
    (r = g = b), black, white, ties for the maximum, each primary as the maximum."""
    x = rng.uniform(0, 1, shape).astype(np.float32)
    flat = x.reshape(-1, 3)
    special = [[0.5, 0.5, 0.5], [0, 0, 0], [1, 1, 1], [0.8, 0.8, 0.2], [0.2, 0.8, 0.8],
               [0.9, 0.1, 0.3], [0.1, 0.9, 0.3], [0.3, 0.1, 0.9], [0.9, 0.3, 0.9]]
    flat[:len(special)] = special
    return x


inputs = {
    "rgb": rgb_batch((2, 4, 5, 3)),
    "rgb1": np.array([[[0.25, 0.5, 0.75]]], np.float32),                   # 1x1, 3-D
    "hsv": np.concatenate([rng.uniform(0, 1, (3, 4, 3)),
                           [[[0.0, 0.5, 0.5], [1.0, 1.0, 1.0], [0.5, 0.0, 0.7],
                             [0.999, 1.0, 0.4]]]]).astype(np.float32),
    "u8": rng.integers(0, 256, (4, 5, 3)).astype(np.uint8),
    "f64": rng.uniform(0, 1, (3, 3, 3)),
    "gray": rng.uniform(0, 1, (2, 3, 4, 2)).astype(np.float32),
    "img_a": rng.uniform(0, 1, (2, 13, 14, 3)).astype(np.float32),
    "u8_a": rng.integers(0, 256, (12, 11, 3)).astype(np.uint8),
}
inputs["img_b"] = np.clip(inputs["img_a"] + rng.normal(0, 0.1, inputs["img_a"].shape),
                          0, 1).astype(np.float32)
inputs["u8_b"] = np.clip(inputs["u8_a"].astype(int) + rng.integers(-30, 30, (12, 11, 3)),
                         0, 255).astype(np.uint8)
inputs["ms_a"] = rng.integers(0, 256, (1, 180, 177, 1)).astype(np.uint8)   # MS-SSIM's
inputs["ms_b"] = np.clip(inputs["ms_a"] + rng.integers(-40, 40, (1, 180, 177, 1)),  # >= 176
                         0, 255).astype(np.uint8)

graph = tf.Graph()
with graph.as_default():
    ph = {k: tf.placeholder(v.dtype, v.shape, name=k) for k, v in inputs.items()}
    im = tf.image
    outs = {
        "rgb_to_hsv": im.rgb_to_hsv(ph["rgb"]),
        "rgb_to_hsv_1x1": im.rgb_to_hsv(ph["rgb1"]),
        "rgb_to_hsv_f64": im.rgb_to_hsv(ph["f64"]),
        "hsv_to_rgb": im.hsv_to_rgb(ph["hsv"]),
        "hsv_round_trip": im.hsv_to_rgb(im.rgb_to_hsv(ph["rgb"])),
        "saturation_0.3": im.adjust_saturation(ph["rgb"], 0.3),
        "saturation_2.5": im.adjust_saturation(ph["rgb"], 2.5),
        "saturation_u8": im.adjust_saturation(ph["u8"], 1.7),
        "saturation_f64": im.adjust_saturation(ph["f64"], 0.6),
        "hue_0.3": im.adjust_hue(ph["rgb"], 0.3),
        "hue_-0.45": im.adjust_hue(ph["rgb"], -0.45),
        "hue_0.9": im.adjust_hue(ph["rgb"], 0.9),
        "hue_u8": im.adjust_hue(ph["u8"], 0.2),
        "hue_1x1": im.adjust_hue(ph["rgb1"], -0.7),
        "gamma_0.5_1.2": im.adjust_gamma(ph["rgb"], 0.5, 1.2),
        "gamma_u8": im.adjust_gamma(ph["u8"], 2.0),
        "gamma_f64": im.adjust_gamma(ph["f64"], 1.5, 0.8),
        "rgb_to_yiq": im.rgb_to_yiq(ph["rgb"]),
        "yiq_to_rgb": im.yiq_to_rgb(ph["hsv"]),
        "rgb_to_yuv": im.rgb_to_yuv(ph["rgb"]),
        "yuv_to_rgb": im.yuv_to_rgb(ph["hsv"]),
        "rgb_to_yuv_f64": im.rgb_to_yuv(ph["f64"]),
        "image_gradients": tf.stack(im.image_gradients(ph["gray"])),
        "total_variation_4d": im.total_variation(ph["gray"]),
        "total_variation_3d": im.total_variation(tf.cast(ph["u8"], tf.int32)),
        "sobel_edges": im.sobel_edges(ph["rgb"]),
        "sobel_edges_2x2": im.sobel_edges(ph["gray"][:1, :2, :2]),
        "psnr": im.psnr(ph["img_a"], ph["img_b"], max_val=1.0),
        "psnr_u8": im.psnr(ph["u8_a"], ph["u8_b"], max_val=255),
        "ssim": im.ssim(ph["img_a"], ph["img_b"], max_val=1.0),
        "ssim_u8": im.ssim(ph["u8_a"], ph["u8_b"], max_val=255),
        "ssim_7_1.0": im.ssim(ph["img_a"], ph["img_b"], 1.0, filter_size=7,
                              filter_sigma=1.0, k1=0.02, k2=0.05),
        "ssim_map": im.ssim(ph["img_a"], ph["img_b"], 1.0, return_index_map=True),
        "ssim_multiscale": im.ssim_multiscale(ph["ms_a"], ph["ms_b"], 255),
    }
    outs["ssim_grad"] = tf.gradients(tf.reduce_sum(outs["ssim"]), ph["img_a"])[0]
    for k in range(-1, 5):
        outs[f"rot90_3d_{k}"] = im.rot90(ph["gray"][0], k)
        outs[f"rot90_4d_{k}"] = im.rot90(ph["gray"], k)
    outs["transpose_3d"] = im.transpose_image(ph["u8"])
    outs["transpose_4d"] = im.transpose(ph["gray"])

with tf.Session(graph=graph) as sess:
    values = sess.run(outs, {ph[k]: v for k, v in inputs.items()})

saved = {f"in/{k}": v for k, v in inputs.items()}
saved.update(values)
np.savez_compressed(os.path.join(HERE, "tf_image_color.npz"), **saved)
print("wrote", len(saved), "arrays")
