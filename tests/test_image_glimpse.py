"""``ds.image.extract_glimpse``: ExtractGlimpse (TF1's) and ExtractGlimpseV2 against
TensorFlow 2.21's glimpses (``tests/data/make_tf_image_augment.py``: every
centered/normalized combination; TF1's windows inside or touching the edge, V2's partly
or wholly outside with ``noise="zero"``), on the host and the GPU (through the host);
the uniform and gaussian noise within the image's range; static shapes, TF's errors,
not differentiable."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from graph_building import ph
from kernel_cases import DEVICES, F32, I32, make_node, run_on

GLIMPSE_OPS = {"ExtractGlimpse", "ExtractGlimpseV2"}
TF = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_image_augment.npz"))
IMAGES = TF["in/glimpse"]
ALL_DEVICES = [pytest.param("REF", id="ref"), *DEVICES]
# case: (centered, normalized)
V1 = {"v1/centered_normalized": (True, True), "v1/normalized": (False, True),
      "v1/pixels": (False, False), "v1/centered_pixels": (True, False),
      "v1/edge": (False, False)}
V2 = {"v2/centered_normalized": (True, True), "v2/centered_pixels": (True, False),
      "v2/pixels": (False, False), "v2/normalized": (False, True),
      "v2/larger": (True, True), "v2/negative": (False, False)}


def glimpse_node(v2, centered=True, normalized=True, noise="uniform", uniform_noise=None,
                 name="glimpse"):
    attrs = {"centered": centered, "normalized": normalized, "noise": noise,
             "uniform_noise": (not v2) if uniform_noise is None else uniform_noise}
    return make_node("ExtractGlimpseV2" if v2 else "ExtractGlimpse", [F32, I32, F32], F32,
                     attrs, name=name)


def case_inputs(case):
    return IMAGES, TF[f"in/{case}/size"], TF[f"in/{case}/offsets"]


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_glimpses_as_tf(device):
    for case, (centered, normalized) in V1.items():
        got = run_on(device, glimpse_node(False, centered, normalized), *case_inputs(case))
        np.testing.assert_array_equal(got, TF[case], err_msg=case)
    for case, (centered, normalized) in V2.items():
        got = run_on(device, glimpse_node(True, centered, normalized, "zero"),
                     *case_inputs(case))
        np.testing.assert_array_equal(got, TF[case], err_msg=case)


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_noise_fills_the_outside_within_the_image_s_range(device):
    offsets = np.array([[-1, -1], [1, 1]], F32)       # both windows reach outside
    size = np.array([4, 5], np.int32)
    low, high = IMAGES.min(axis=(1, 2, 3)), IMAGES.max(axis=(1, 2, 3))
    # TF1's uniform_noise=False keeps its op's noise attr "uniform", which decides
    for node in (glimpse_node(False, uniform_noise=False),
                 glimpse_node(True, noise="", uniform_noise=True)):
        got = run_on(device, node, IMAGES, size, offsets)
        for b in range(2):
            assert low[b] <= got[b].min() and got[b].max() <= high[b]
        assert len(np.unique(got)) > 20                 # drawn, not one value
    gaussian = run_on(device, glimpse_node(True, noise="gaussian"), IMAGES, size, offsets)
    per_channel = IMAGES.min(axis=(1, 2)), IMAGES.max(axis=(1, 2))
    assert np.all(gaussian >= per_channel[0][:, None, None] - 1e-6)
    assert np.all(gaussian <= per_channel[1][:, None, None] + 1e-6)
    # the part inside the image is copied over the noise: the centre pixel's corner
    np.testing.assert_array_equal(gaussian[0, 2:, 2:], IMAGES[0, :2, :3])


def test_extract_glimpse_in_a_graph(graph):
    images = ds.constant(IMAGES)
    v1 = ds.image.extract_glimpse(images, [3, 3], TF["in/v1/centered_normalized/offsets"])
    v2 = ds.image.extract_glimpse(images, ds.constant([3, 4]),
                                  TF["in/v2/centered_normalized/offsets"], noise="zero")
    assert v1.op.type == "ExtractGlimpse" and v2.op.type == "ExtractGlimpseV2"
    assert v1.op.attrs["noise"] == "uniform" and v2.op.attrs["noise"] == "zero"
    assert v1.shape.as_list() == [2, 3, 3, 2] and v2.shape.as_list() == [2, 3, 4, 2]
    fed = ds.image.extract_glimpse(ph((None, 6, 7, 2)), ph((2,), ds.int32), ph((None, 2)))
    assert fed.shape.as_list() == [None, None, None, 2]
    assert ds.gradients(ds.reduce_sum(v1), images) == [None]
    with ds.Session() as sess:
        got = sess.run([v1, v2])
    np.testing.assert_array_equal(got[0], TF["v1/centered_normalized"])
    np.testing.assert_array_equal(got[1], TF["v2/centered_normalized"])


def test_an_empty_window_is_an_empty_glimpse():
    out = run_on("REF", glimpse_node(True, noise="zero"), IMAGES, np.array([0, 3], np.int32),
                 np.zeros((2, 2), F32))
    assert out.shape == (2, 0, 3, 2)


@pytest.mark.parametrize("call,error,message", [
    (lambda: ds.image.extract_glimpse(ph((6, 7, 2)), [3, 3], ph((1, 2))), ValueError, "4-D"),
    (lambda: ds.image.extract_glimpse(ph((2, 6, 7, 2)), [3, 3, 1], ph((2, 2))), ValueError,
     "2 values"),
    (lambda: ds.image.extract_glimpse(ph((2, 6, 7, 2)), [3, 3], ph((2, 3))), ValueError,
     r"\[batch, 2\]"),
    (lambda: ds.image.extract_glimpse(ph((2, 6, 7, 2)), [3, 3], ph((3, 2))), ValueError,
     "one row per image"),
    (lambda: ds.image.extract_glimpse(ph((2, 6, 7, 2)), [-1, 3], ph((2, 2))), ValueError,
     "non-negative"),
    (lambda: ds.image.extract_glimpse(ph((2, 6, 7, 2)), [3, 3], ph((2, 2)), noise="pink"),
     ValueError, "noise must be one of"),
    (lambda: ds.image.extract_glimpse(ph((2, 6, 7, 2), ds.int32), [3, 3], ph((2, 2))),
     TypeError, "float32"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_build_time_errors(graph, call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("node,inputs,message", [
    (glimpse_node(True), (IMAGES[0], [3, 3], np.zeros((2, 2), F32)), "must be 4-dimensional"),
    (glimpse_node(True), (IMAGES, [3, 3, 3], np.zeros((2, 2), F32)), "vector of size 2"),
    (glimpse_node(True), (IMAGES, [3, -3], np.zeros((2, 2), F32)), "non-negative size"),
    (glimpse_node(True), (IMAGES, [3, 3], np.zeros(2, F32)), "must be a matrix"),
    (glimpse_node(True), (IMAGES, [3, 3], np.zeros((3, 2), F32)), "first dimension should"),
    (glimpse_node(True), (IMAGES, [3, 3], np.zeros((2, 3), F32)), r"size 2 \(y,x\)"),
    (glimpse_node(True, noise="zero", uniform_noise=True),
     (IMAGES, [3, 3], np.zeros((2, 2), F32)), "could not be specified at the same time"),
    (glimpse_node(True, noise="pink"), (IMAGES, [3, 3], np.zeros((2, 2), F32)),
     "could only be uniform, gaussian, or zero"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_run_time_errors_name_the_node(device, node, inputs, message):
    images, size, offsets = inputs
    with pytest.raises(ds.errors.InvalidArgumentError, match=message) as info:
        run_on(device, node, images, np.array(size, np.int32), offsets)
    assert info.value.node_name == "glimpse"
