"""Writes tf_legacy_ops.pb and tf_legacy_ops.npz: a graph of op types older TF 1.x
releases wrote into frozen models (Div, Mod, Inv, Concat, Reverse, BiasAddV1,
InTopK, MaxPoolV2, NonMaxSuppression/V2, ...) and op types TF's image and math
functions build that devsession computes with other ops (RGBToHSV, AdjustHue,
AdjustSaturation, AdjustContrastv2, NthElement, ApproximateEqual, LinSpace,
ClipByValue, AccumulateNV2, UniqueV2), each built with ``tf.raw_ops`` as the old
Python API did, with TensorFlow 2.21's values (``fetch:<tensor>``) for
tests/test_tf_legacy_ops_import.py.  Run once, with TensorFlow (not a test):

    TF_CPP_MIN_LOG_LEVEL=3 /work/peers/bin/python tests/data/make_tf_legacy_ops.py
"""

import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
raw = tf.raw_ops


def build(t):
    """{name: tensor} of every case, built in the default graph."""
    rng = np.random.RandomState(3)
    ints = tf.constant([7, -7, 9, -9, 0, 5], tf.int32, name="ints")
    divisors = tf.constant([2, 2, -4, -4, 3, -1], tf.int32, name="divisors")
    floats = tf.constant(rng.uniform(-3, 3, (2, 3)).astype(np.float32), name="floats")
    image = tf.constant(rng.uniform(0, 1, (2, 3, 4, 3)).astype(np.float32), name="image")
    logit_values = rng.normal(size=(4, 5)).astype(np.float32)
    logits = tf.constant(logit_values, name="logits")
    order = np.argsort(-logit_values, axis=1)      # per row: the best, second, ... column
    targets = order[[0, 1, 2, 3], [0, 1, 2, 4]].astype(np.int32)
    boxes = tf.constant([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9],
                         [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]],
                        tf.float32, name="boxes")
    scores = tf.constant([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], name="scores")
    return {
        "div_int": raw.Div(x=ints, y=divisors, name="div_int"),
        "div_float": raw.Div(x=floats, y=tf.constant(-0.75), name="div_float"),
        "mod_int": raw.Mod(x=ints, y=divisors, name="mod_int"),
        "mod_float": raw.Mod(x=floats, y=tf.constant(1.25), name="mod_float"),
        "inv": raw.Inv(x=floats, name="inv"),
        "concat": raw.Concat(concat_dim=tf.constant(1), values=[floats, floats * 2],
                             name="concat"),
        "reverse": raw.Reverse(tensor=image, dims=[True, False, True, False],
                               name="reverse"),
        "bias_add_v1": raw.BiasAddV1(value=image, bias=tf.constant([1., 2., 3.]),
                                     name="bias_add_v1"),
        "in_top_k": raw.InTopK(predictions=logits, targets=tf.constant(targets), k=2,
                               name="in_top_k"),
        "max_pool_v2": raw.MaxPoolV2(input=image, ksize=tf.constant([1, 2, 2, 1]),
                                     strides=tf.constant([1, 1, 2, 1]), padding="SAME",
                                     name="max_pool_v2"),
        "nms_v1": raw.NonMaxSuppression(boxes=boxes, scores=scores,
                                        max_output_size=tf.constant(3),
                                        iou_threshold=0.5, name="nms_v1"),
        "nms_v2": raw.NonMaxSuppressionV2(boxes=boxes, scores=scores,
                                          max_output_size=tf.constant(4),
                                          iou_threshold=tf.constant(0.05), name="nms_v2"),
        "rgb_to_hsv": raw.RGBToHSV(images=image, name="rgb_to_hsv"),
        "hsv_to_rgb": raw.HSVToRGB(images=image, name="hsv_to_rgb"),
        "adjust_hue": raw.AdjustHue(images=image, delta=tf.constant(0.2), name="adjust_hue"),
        "adjust_saturation": raw.AdjustSaturation(images=image, scale=tf.constant(1.7),
                                                  name="adjust_saturation"),
        "adjust_contrast": raw.AdjustContrastv2(images=image,
                                                contrast_factor=tf.constant(1.5),
                                                name="adjust_contrast"),
        "nth_element": raw.NthElement(input=logits, n=tf.constant(1), name="nth_element"),
        "nth_element_reverse": raw.NthElement(input=logits, n=tf.constant(3), reverse=True,
                                              name="nth_element_reverse"),
        "approximate_equal": raw.ApproximateEqual(x=floats, y=floats + 0.5, tolerance=0.6,
                                                  name="approximate_equal"),
        "lin_space": raw.LinSpace(start=tf.constant(-1.0), stop=tf.constant(2.0),
                                  num=tf.constant(7), name="lin_space"),
        "clip_by_value": raw.ClipByValue(t=floats, clip_value_min=tf.constant(-1.0),
                                         clip_value_max=tf.constant(0.5),
                                         name="clip_by_value"),
        "accumulate_n": raw.AccumulateNV2(inputs=[floats, floats, floats * 3],
                                          shape=[2, 3], name="accumulate_n"),
        "unique_v2": raw.UniqueV2(x=tf.constant([4, 1, 4, 2, 1]), axis=tf.constant([0]),
                                  name="unique_v2"),
        "unique_v2_idx": raw.UniqueV2(x=tf.constant([4, 1, 4, 2, 1]), axis=tf.constant([0]),
                                      name="unique_v2_i")[1],
    }


def main():
    out = {}
    with tf.Graph().as_default() as graph:
        built = build(tf)
        tensors = {name: (t[0] if isinstance(t, (list, tuple)) else t)
                   for name, t in built.items()}
        with tf.compat.v1.Session() as sess:
            values = sess.run(tensors)
        for name, t in tensors.items():
            out[f"fetch:{t.name}"] = values[name]
        tf.io.write_graph(graph.as_graph_def(), HERE, "tf_legacy_ops.pb", as_text=False)
    np.savez(os.path.join(HERE, "tf_legacy_ops.npz"), **out)
    print(sorted(out))


if __name__ == "__main__":
    main()
