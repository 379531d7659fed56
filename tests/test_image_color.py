"""``ds.image``'s colour spaces and adjustments (``image_color.py``), quarter turns
(``image_rotate.py``) and measures (``image_metrics.py``): values against TensorFlow
2.21's, recorded by ``data/make_tf_image_color.py`` in ``data/tf_image_color.npz`` (inputs
under "in/"; TensorFlow is not needed to run these tests), and against numpy references
(``colorsys``, matrix products, differences, ``np.rot90``); 1x1 images, single images and
batches, uint8 and float inputs; static shapes; build-time and run-time errors; seeded
random hue and saturation; every op on the stand-in GPU; gradients through
``ds.gradients`` against finite differences and TF's.
"""

from __future__ import annotations

import colorsys
import os

import numpy as np
import pytest

import devsession as ds
import test_gpu_cupy_standin
from devsession.devices import local_device_name

standin = test_gpu_cupy_standin.standin      # the fixture: the stand-in cupy on a fake GPU
DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_image_color.npz"))
IN = {k[3:]: DATA[k] for k in DATA.files if k.startswith("in/")}
im = ds.image


def run(*fetches, feed=None):
    with ds.Session() as sess:
        got = sess.run(list(fetches), feed)
    return got[0] if len(got) == 1 else got


# --- against TF 2.21 --------------------------------------------------------------------------

def c(key):
    return ds.constant(IN[key])


# case name in the .npz -> how devsession builds it (the same call TF made)
TF_CASES = {
    "rgb_to_hsv": lambda: im.rgb_to_hsv(c("rgb")),
    "rgb_to_hsv_1x1": lambda: im.rgb_to_hsv(c("rgb1")),
    "rgb_to_hsv_f64": lambda: im.rgb_to_hsv(c("f64")),
    "hsv_to_rgb": lambda: im.hsv_to_rgb(c("hsv")),
    "hsv_round_trip": lambda: im.hsv_to_rgb(im.rgb_to_hsv(c("rgb"))),
    "saturation_0.3": lambda: im.adjust_saturation(c("rgb"), 0.3),
    "saturation_2.5": lambda: im.adjust_saturation(c("rgb"), 2.5),
    "saturation_u8": lambda: im.adjust_saturation(c("u8"), 1.7),
    "saturation_f64": lambda: im.adjust_saturation(c("f64"), 0.6),
    "hue_0.3": lambda: im.adjust_hue(c("rgb"), 0.3),
    "hue_-0.45": lambda: im.adjust_hue(c("rgb"), -0.45),
    "hue_0.9": lambda: im.adjust_hue(c("rgb"), 0.9),
    "hue_u8": lambda: im.adjust_hue(c("u8"), 0.2),
    "hue_1x1": lambda: im.adjust_hue(c("rgb1"), -0.7),
    "gamma_0.5_1.2": lambda: im.adjust_gamma(c("rgb"), 0.5, 1.2),
    "gamma_u8": lambda: im.adjust_gamma(c("u8"), 2.0),
    "gamma_f64": lambda: im.adjust_gamma(c("f64"), 1.5, 0.8),
    "rgb_to_yiq": lambda: im.rgb_to_yiq(c("rgb")),
    "yiq_to_rgb": lambda: im.yiq_to_rgb(c("hsv")),
    "rgb_to_yuv": lambda: im.rgb_to_yuv(c("rgb")),
    "yuv_to_rgb": lambda: im.yuv_to_rgb(c("hsv")),
    "rgb_to_yuv_f64": lambda: im.rgb_to_yuv(c("f64")),
    "image_gradients": lambda: ds.stack(im.image_gradients(c("gray"))),
    "total_variation_4d": lambda: im.total_variation(c("gray")),
    "total_variation_3d": lambda: im.total_variation(ds.cast(c("u8"), ds.int32)),
    "sobel_edges": lambda: im.sobel_edges(c("rgb")),
    "sobel_edges_2x2": lambda: im.sobel_edges(c("gray")[:1, :2, :2]),
    "psnr": lambda: im.psnr(c("img_a"), c("img_b"), max_val=1.0),
    "psnr_u8": lambda: im.psnr(c("u8_a"), c("u8_b"), max_val=255),
    "ssim": lambda: im.ssim(c("img_a"), c("img_b"), max_val=1.0),
    "ssim_u8": lambda: im.ssim(c("u8_a"), c("u8_b"), max_val=255),
    "ssim_7_1.0": lambda: im.ssim(c("img_a"), c("img_b"), 1.0, filter_size=7,
                                  filter_sigma=1.0, k1=0.02, k2=0.05),
    "ssim_map": lambda: im.ssim(c("img_a"), c("img_b"), 1.0, return_index_map=True),
    "ssim_multiscale": lambda: im.ssim_multiscale(c("ms_a"), c("ms_b"), 255),
    "transpose_3d": lambda: im.transpose_image(c("u8")),
    "transpose_4d": lambda: im.transpose(c("gray")),
}
for _k in range(-1, 5):
    TF_CASES[f"rot90_3d_{_k}"] = lambda k=_k: im.rot90(c("gray")[0], k)
    TF_CASES[f"rot90_4d_{_k}"] = lambda k=_k: im.rot90(c("gray"), k)


@pytest.mark.parametrize("case", sorted(TF_CASES))
def test_against_tensorflow(case):
    out = TF_CASES[case]()
    expected = DATA[case]
    assert out.shape.as_list() == list(expected.shape)       # static shapes as TF's
    got = run(out)
    assert got.dtype == expected.dtype
    if expected.dtype.kind == "f":                 # float rounding; MS-SSIM's product of 5
        atol = 2e-5 if case == "ssim_multiscale" else 1e-6
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=atol)
    else:
        np.testing.assert_array_equal(got, expected)


def test_ssim_gradient_matches_tensorflow():
    img1 = c("img_a")
    grad, = ds.gradients(ds.reduce_sum(im.ssim(img1, c("img_b"), max_val=1.0)), [img1])
    np.testing.assert_allclose(run(grad), DATA["ssim_grad"], rtol=1e-4, atol=1e-7)


def test_rot90_with_a_fed_k_builds_a_case():
    k = ds.placeholder(ds.int32, [])
    image, batch = c("gray")[0], c("gray")
    one, many = im.rot90(image, k), im.rot90(batch, k)
    assert one.shape.as_list() == [None, None, 2] and many.shape.as_list() == [2, None, None, 2]
    with ds.Session() as sess:
        for turns in range(-1, 5):
            a, b = sess.run([one, many], {k: turns})
            np.testing.assert_array_equal(a, DATA[f"rot90_3d_{turns}"])
            np.testing.assert_array_equal(b, DATA[f"rot90_4d_{turns}"])


# --- against numpy ----------------------------------------------------------------------------

def test_hsv_against_colorsys_and_round_trip():
    rgb = IN["rgb"]
    expected = np.array([colorsys.rgb_to_hsv(*p) for p in rgb.reshape(-1, 3)]).reshape(rgb.shape)
    hsv = im.rgb_to_hsv(ds.constant(rgb))
    got, back = run(hsv, im.hsv_to_rgb(hsv))
    np.testing.assert_allclose(got, expected, atol=2e-6)
    np.testing.assert_allclose(back, rgb, atol=2e-6)


def test_hue_and_saturation_against_colorsys():
    rgb = IN["rgb"][0]
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in rgb.reshape(-1, 3)])

    def to_rgb(values):
        return np.array([colorsys.hsv_to_rgb(*p) for p in values]).reshape(rgb.shape)

    turned = hsv.copy()
    turned[:, 0] = (turned[:, 0] - 0.8) % 1.0                     # wrapped below 0
    faded = hsv.copy()
    faded[:, 1] = np.clip(faded[:, 1] * 3.0, 0, 1)               # clipped above 1
    hue, sat = run(im.adjust_hue(ds.constant(rgb), -0.8),
                   im.adjust_saturation(ds.constant(rgb), 3.0))
    np.testing.assert_allclose(hue, to_rgb(turned), atol=2e-6)
    np.testing.assert_allclose(sat, to_rgb(faded), atol=2e-6)


def test_channel_mixes_and_measures_against_numpy():
    rgb, gray = IN["rgb"], IN["gray"]
    yiq = np.array([[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
                    [0.114, -0.32134392, 0.31119955]])
    got_yiq, round_trip, tv, (dy, dx) = run(
        im.rgb_to_yiq(ds.constant(rgb)), im.yuv_to_rgb(im.rgb_to_yuv(ds.constant(rgb))),
        im.total_variation(ds.constant(gray)), im.image_gradients(ds.constant(gray)))
    np.testing.assert_allclose(got_yiq, rgb @ yiq, atol=1e-6)
    np.testing.assert_allclose(round_trip, rgb, atol=1e-5)
    np.testing.assert_allclose(tv, np.abs(np.diff(gray, axis=1)).sum((1, 2, 3))
                               + np.abs(np.diff(gray, axis=2)).sum((1, 2, 3)), rtol=1e-6)
    np.testing.assert_allclose(dy[:, :-1], np.diff(gray, axis=1), atol=1e-7)
    np.testing.assert_allclose(dx[:, :, :-1], np.diff(gray, axis=2), atol=1e-7)
    assert not dy[:, -1].any() and not dx[:, :, -1].any()


def test_psnr_against_numpy_and_identical_images():
    a, b = IN["img_a"], IN["img_b"]
    mse = ((a.astype(np.float64) - b) ** 2).mean((1, 2, 3))
    got, same = run(im.psnr(ds.constant(a), ds.constant(b), 1.0),
                    im.ssim(ds.constant(a), ds.constant(a), 1.0))
    np.testing.assert_allclose(got, -10 * np.log10(mse), rtol=1e-5)
    np.testing.assert_allclose(same, [1.0, 1.0], rtol=1e-6)


def test_rot90_and_transpose_against_numpy():
    image = IN["u8"]
    for k in range(-2, 6):
        np.testing.assert_array_equal(run(im.rot90(ds.constant(image), k)),
                                      np.rot90(image, k, axes=(0, 1)))
    np.testing.assert_array_equal(run(im.transpose(ds.constant(image))),
                                  image.transpose(1, 0, 2))


# --- sizes and fed shapes ---------------------------------------------------------------------

def test_one_pixel_images_and_fed_shapes():
    pixel = np.array([[[0.9, 0.2, 0.4]]], np.float32)
    x = ds.placeholder(ds.float32, [None, None, None, 3])
    hsv, sat = im.rgb_to_hsv(x), im.adjust_saturation(x, 0.5)
    assert hsv.shape.as_list() == [None, None, None, 3]
    with ds.Session() as sess:
        h, s = sess.run([hsv, sat], {x: pixel[None]})
        batch = sess.run(hsv, {x: IN["rgb"]})
    np.testing.assert_allclose(h[0, 0, 0], colorsys.rgb_to_hsv(*pixel[0, 0]), atol=1e-6)
    np.testing.assert_allclose(s[0, 0, 0], colorsys.hsv_to_rgb(
        h[0, 0, 0, 0], h[0, 0, 0, 1] / 2, h[0, 0, 0, 2]), atol=1e-6)
    np.testing.assert_allclose(batch, DATA["rgb_to_hsv"], atol=1e-7)
    tv, grads = run(im.total_variation(ds.constant(pixel)),
                    ds.stack(im.image_gradients(ds.constant(pixel[None]))))
    assert tv == 0 and grads.shape == (2, 1, 1, 1, 3) and not grads.any()


def test_fed_image_sizes_for_the_measures():
    a = ds.placeholder(ds.float32, [None, None, None, 3])
    b = ds.placeholder(ds.float32, [None, None, None, 3])
    s, p, edges = im.ssim(a, b, 1.0), im.psnr(a, b, 1.0), im.sobel_edges(a)
    feed = {a: IN["img_a"], b: IN["img_b"]}
    with ds.Session() as sess:
        got = sess.run([s, p, edges], feed)
        np.testing.assert_allclose(got[0], DATA["ssim"], rtol=1e-5)
        np.testing.assert_allclose(got[1], DATA["psnr"], rtol=1e-6)
        assert got[2].shape == (2, 13, 14, 3, 2)
        with pytest.raises(ds.errors.InvalidArgumentError, match="filter_size"):
            sess.run(s, {a: IN["img_a"][:, :9], b: IN["img_b"][:, :9]})
        with pytest.raises(ds.errors.InvalidArgumentError, match="not compatible"):
            sess.run(p, {a: IN["img_a"], b: IN["img_b"][:, 1:]})


# --- errors -----------------------------------------------------------------------------------

def test_bad_inputs_are_errors_when_built():
    four = ds.zeros([2, 2, 4])
    with pytest.raises(ValueError, match="3 channels"):
        im.rgb_to_hsv(four)
    with pytest.raises(ValueError, match="3 channels"):
        im.rgb_to_yiq(four)
    with pytest.raises(TypeError, match="float"):
        im.rgb_to_hsv(ds.zeros([2, 2, 3], ds.uint8))
    with pytest.raises(ValueError, match=r"max_delta must be <= 0\.5"):
        im.random_hue(c("rgb"), 0.6)
    with pytest.raises(ValueError, match="max_delta must be non-negative"):
        im.random_hue(c("rgb"), -0.1)
    with pytest.raises(ValueError, match="upper must be > lower"):
        im.random_saturation(c("rgb"), 1.0, 1.0)
    with pytest.raises(ValueError, match="lower must be non-negative"):
        im.random_saturation(c("rgb"), -0.5, 1.0)
    with pytest.raises(ValueError, match="Gamma should be a non-negative"):
        im.adjust_gamma(c("rgb"), -1.0)
    with pytest.raises(ValueError, match="3 or 4"):
        im.rot90(ds.zeros([2, 2]))
    with pytest.raises(ValueError, match="3 or 4"):
        im.transpose(ds.zeros([1, 1, 2, 2, 1]))
    with pytest.raises(ValueError, match="either 3 or 4-dimensional"):
        im.total_variation(ds.zeros([3, 3]))
    with pytest.raises(ValueError, match="4D tensor"):
        im.image_gradients(ds.zeros([3, 3, 1]))
    with pytest.raises(ValueError, match="not compatible"):
        im.ssim(ds.zeros([2, 12, 12, 3]), ds.zeros([2, 12, 11, 3]), 1.0)
    with pytest.raises(ValueError, match="filter_size"):
        im.ssim(ds.zeros([12, 10, 3]), ds.zeros([12, 10, 3]), 1.0)
    with pytest.raises(ValueError, match="176"):
        im.ssim_multiscale(ds.zeros([100, 200, 1]), ds.zeros([100, 200, 1]), 1.0)


def test_hue_and_saturation_of_other_channel_counts_build_and_fail_the_run_as_tf():
    """TF's AdjustHue and AdjustSaturation shape functions check only the rank (at least
    3: ValueError); their kernels refuse another channel count (TF 2.21 built these, in
    the input's dtype and shape, and failed the run with this message)."""
    built = [im.adjust_hue(ds.zeros([2, 2, 4], ds.uint8), 0.1),
             im.adjust_saturation(ds.zeros([1, 2, 2, 2]), 0.5)]
    assert [(t.dtype, t.shape.as_list()) for t in built] == [(ds.uint8, [2, 2, 4]),
                                                             (ds.float32, [1, 2, 2, 2])]
    with ds.Session() as sess:
        for t, count in zip(built, (4, 2)):
            with pytest.raises(ds.errors.InvalidArgumentError,
                               match=f"must have 3 channels but instead has {count} "):
                sess.run(t)
    for adjust in (lambda x: im.adjust_hue(x, 0.1), lambda x: im.adjust_saturation(x, 2.0)):
        with pytest.raises(ValueError, match="at least rank 3 but is rank 2"):
            adjust(ds.zeros([4, 3]))


def test_sobel_edges_of_a_single_row_builds_and_fails_the_run_as_tf():
    edges = im.sobel_edges(ds.zeros([1, 1, 4, 3]))
    assert edges.shape.as_list() == [1, 1, 4, 3, 2]
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match="REFLECT"):
            sess.run(edges)


def test_a_fed_negative_gamma_fails_the_run():
    gamma = ds.placeholder(ds.float32, [])
    out = im.adjust_gamma(c("rgb"), gamma)
    with ds.Session() as sess:
        np.testing.assert_allclose(sess.run(out, {gamma: 0.5}), np.sqrt(IN["rgb"]), atol=1e-6)
        with pytest.raises(ds.errors.InvalidArgumentError, match="Gamma should be"):
            sess.run(out, {gamma: -1.0})


# --- random hue and saturation ----------------------------------------------------------------

def _hues(rgb):
    return np.array([colorsys.rgb_to_hsv(*p)[0] for p in rgb.reshape(-1, 3)])


def test_random_hue_and_saturation_draw_within_bounds_repeatably():
    rgb = IN["rgb"][0]
    image = ds.constant(rgb)
    hue = im.random_hue(image, 0.3, seed=7)
    sat = im.random_saturation(image, 0.2, 0.9, seed=8)
    with ds.Session() as sess:
        draws = [sess.run([hue, sat]) for _ in range(12)]
    with ds.Session() as sess:                          # the same draws in a new session
        again = [sess.run([hue, sat]) for _ in range(12)]
    for (h, s), (h2, s2) in zip(draws, again):
        np.testing.assert_array_equal(h, h2)
        np.testing.assert_array_equal(s, s2)
    colourful = np.ptp(rgb.reshape(-1, 3), axis=1) > 0.1
    deltas, factors = [], []
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in rgb.reshape(-1, 3)])
    for h, s in draws:
        shift = (_hues(h) - hsv[:, 0] + 0.5) % 1.0 - 0.5          # one delta per image
        np.testing.assert_allclose(shift[colourful], shift[colourful][0], atol=1e-4)
        deltas.append(shift[colourful][0])
        scaled = np.array([colorsys.rgb_to_hsv(*p)[1] for p in s.reshape(-1, 3)])
        factors.append(scaled[colourful][0] / hsv[colourful][0, 1])
    assert all(-0.3 - 1e-5 <= d < 0.3 + 1e-5 for d in deltas) and np.std(deltas) > 0.05
    assert all(0.2 - 1e-5 <= f < 0.9 + 1e-5 for f in factors) and np.std(factors) > 0.05


# --- gradients --------------------------------------------------------------------------------

def _check_gradient(build, x0, eps=1e-3, atol=2e-3, seed=0):
    """``d sum(w * build(x)) / dx`` from ``ds.gradients`` against central differences
    (float32 where TF computes in float32, so a loose tolerance)."""
    x = ds.placeholder(ds.as_dtype(x0.dtype), x0.shape)
    y = build(x)
    weights = np.random.default_rng(seed).uniform(0.5, 1.5, y.shape.as_list())
    objective = ds.reduce_sum(ds.cast(y, ds.float64) * weights)
    grad, = ds.gradients(objective, [x])
    with ds.Session() as sess:
        computed = sess.run(grad, {x: x0})
        numeric = np.zeros(x0.size)
        for i in range(x0.size):
            step = np.zeros(x0.size, x0.dtype)
            step[i] = eps
            step = step.reshape(x0.shape)
            numeric[i] = (sess.run(objective, {x: x0 + step})
                          - sess.run(objective, {x: x0 - step})) / (2 * eps)
    np.testing.assert_allclose(computed, numeric.reshape(x0.shape), atol=atol, rtol=1e-2)


SMALL = np.array([[[0.8, 0.3, 0.1], [0.2, 0.7, 0.4]],
                  [[0.3, 0.4, 0.9], [0.6, 0.5, 0.55]]], np.float32)


@pytest.mark.parametrize("name,build", [
    ("rgb_to_hsv", im.rgb_to_hsv),
    ("hsv_to_rgb", im.hsv_to_rgb),
    ("adjust_saturation", lambda x: im.adjust_saturation(x, 0.6)),
    ("adjust_hue", lambda x: im.adjust_hue(x, 0.2)),     # 0.25 puts a hue on a kink
    ("adjust_gamma", lambda x: im.adjust_gamma(x, 1.7, 0.5)),
])
def test_colour_gradients_against_finite_differences(name, build):
    _check_gradient(build, SMALL.astype(np.float64) if name.endswith("hsv") else SMALL,
                    eps=1e-6 if name.endswith("hsv") else 1e-3,
                    atol=1e-6 if name.endswith("hsv") else 2e-3)


def test_measure_gradients_against_finite_differences():
    rng = np.random.default_rng(3)
    other = ds.constant(rng.uniform(0, 1, (1, 7, 8, 2)).astype(np.float32))
    x0 = rng.uniform(0, 1, (1, 7, 8, 2)).astype(np.float32)
    _check_gradient(lambda x: im.ssim(x, other, 1.0, filter_size=5), x0, eps=1e-2,
                    atol=2e-3)
    _check_gradient(lambda x: im.psnr(x, other, 1.0), x0, eps=1e-2, atol=2e-2)
    _check_gradient(lambda x: im.sobel_edges(ds.cast(x, ds.float64)),
                    x0[:, :4, :5, :1].astype(np.float64), eps=1e-6, atol=1e-6)


# TF 2.21's RGBToHSV gradient of TIES (grad_ys [0.7, -1.3, 2.0] on every pixel): ties,
# grays, black and 0 channels, where its term-by-term formula is not the derivative of the
# composite (a 0 channel gets no saturation gradient; ties go to R, G, B as the maximum)
TIES = np.array([[0.5, 0.5, 0.2], [0.3, 0.7, 0.7], [0.4, 0.4, 0.4], [0.0, 0.0, 0.0],
                 [0.9, 0.0, 0.3], [0.2, 0.6, 0.0], [0.1, 0.3, 0.8], [0.8, 0.8, 0.9],
                 [0.6, 0.2, 0.6], [0.0, 0.5, 0.25]], np.float32)
TF_HSV_GRAD_OF_TIES = np.array([
    [0.57111, 0.38889, 2.6],
    [1.85714, 0.91242, 0.29167],
    [-1.25, 0.0, 3.25],
    [2.0, 0.0, 0.0],
    [2.04321, 0.08642, -0.12963],
    [-0.19444, 2.06481, 0.12963],
    [1.74405, -0.16667, 1.84449],
    [1.16667, 0.27778, 0.71605],
    [1.56944, 2.16667, -0.29167],
    [-0.11667, 1.88333, 0.23333]])


@pytest.mark.parametrize("dtype", [ds.float32, ds.float64])
def test_rgb_to_hsv_gradient_is_tfs_on_ties_and_zero_channels(dtype):
    x = ds.cast(ds.constant(TIES), dtype)
    dy = ds.constant(np.tile([[0.7, -1.3, 2.0]], (len(TIES), 1)), dtype)
    (grad,) = ds.gradients(im.rgb_to_hsv(x), x, grad_ys=dy)
    np.testing.assert_allclose(run(grad), TF_HSV_GRAD_OF_TIES, atol=2e-5)


def test_gradients_stay_finite_on_black_gray_and_white_pixels():
    image = c("rgb")                 # holds black, white, gray and tied pixels
    grads = ds.gradients([ds.reduce_sum(im.adjust_saturation(image, 0.5)),
                          ds.reduce_sum(im.adjust_hue(image, 0.1))], [image])
    assert all(np.isfinite(g).all() for g in run(*grads))


def test_on_the_stand_in_gpu(standin):
    """The composites place on a GPU like any ds ops (the stand-in cupy on a fake GPU)."""
    with ds.device("gpu:0"):
        img1 = c("img_a")
        outs = {"hue_0.3": im.adjust_hue(c("rgb"), 0.3),
                "saturation_u8": im.adjust_saturation(c("u8"), 1.7),
                "sobel_edges": im.sobel_edges(c("rgb")),
                "ssim": im.ssim(img1, c("img_b"), max_val=1.0)}
        outs["ssim_grad"], = ds.gradients(ds.reduce_sum(outs["ssim"]), [img1])
    with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
        got = sess.run(outs)
        placed = set(sess.placement().values())
    assert placed == {local_device_name("GPU", 0)}           # no op fell back to the CPU
    for case, value in got.items():
        np.testing.assert_allclose(value, DATA[case], rtol=1e-4, atol=1e-6, err_msg=case)


def test_inception_distort_color_runs_as_written():
    """Inception's ``distort_color`` (both colour orderings), as TF1 scripts write it."""
    def distort_color(image, color_ordering=0):
        if color_ordering == 0:
            image = im.random_brightness(image, max_delta=32. / 255., seed=1)
            image = im.random_saturation(image, lower=0.5, upper=1.5, seed=2)
            image = im.random_hue(image, max_delta=0.2, seed=3)
            image = im.random_contrast(image, lower=0.5, upper=1.5, seed=4)
        else:
            image = im.random_saturation(image, lower=0.5, upper=1.5, seed=5)
            image = im.random_brightness(image, max_delta=32. / 255., seed=6)
            image = im.random_contrast(image, lower=0.5, upper=1.5, seed=7)
            image = im.random_hue(image, max_delta=0.2, seed=8)
        return ds.clip_by_value(image, 0.0, 1.0)

    image = im.convert_image_dtype(c("u8"), ds.float32)
    outs = [distort_color(image, ordering) for ordering in (0, 1)]
    assert all(o.shape.as_list() == [4, 5, 3] for o in outs)
    first = [run(*outs) for _ in range(2)]
    for got in first[0]:
        assert got.dtype == np.float32 and 0 <= got.min() and got.max() <= 1
        assert not np.allclose(got, IN["u8"] / 255.0, atol=1e-3)
    np.testing.assert_array_equal(first[0][0], first[1][0])     # seeded: new sessions agree


def test_image_ops_name_their_results_as_tf():
    """TF 2.21's names (a cast to an image's own dtype adds no op, as TF's cast)."""
    with ds.Graph().as_default():
        images = ds.placeholder(ds.float32, [2, 16, 16, 3])
        pixels = ds.placeholder(ds.uint8, [8, 8, 3])
        gray = ds.placeholder(ds.float32, [8, 8, 1])
        names = [ds.image.adjust_brightness(images, 0.1).name,
                 ds.image.adjust_gamma(images, 2.0).name,
                 ds.image.adjust_brightness(pixels, 0.1).name,
                 ds.image.rgb_to_grayscale(images).name,
                 ds.image.grayscale_to_rgb(gray).name,
                 ds.image.per_image_standardization(images).name,
                 ds.image.convert_image_dtype(pixels, ds.float32).name,
                 ds.image.convert_image_dtype(images, ds.uint8).name]
    assert names == ["adjust_brightness/Identity:0", "adjust_gamma/Identity:0",
                     "adjust_brightness_1/convert_image_1:0", "rgb_to_grayscale:0",
                     "grayscale_to_rgb:0", "per_image_standardization:0", "convert_image:0",
                     "convert_image_1:0"]
