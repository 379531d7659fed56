"""Record frozen ``tf.keras.applications`` graphs for tests/test_keras_applications.py.

Run with TensorFlow (never by the tests), from the repository root:

    /work/peers/bin/python tests/data/make_tf_keras_applications.py

Each model is built by tf_keras (``TF_USE_LEGACY_KERAS=1``, Keras 2 as TF 1-style
graphs) in graph mode with ``weights=None`` and the learning phase 0 (inference: batch
norms read their moving statistics), its variables initialised from a fixed seed and its
batch norms' statistics and scales moved off their identity values (so the values say
something), run on one batch, and frozen with ``convert_variables_to_constants``.  The
full applications are tens of MB even at 32x32, so besides one whole small application
(MobileNet at alpha 0.25) the models are small stacks of the applications' own blocks
(``tf_keras.src.applications.*``: the same layers, so the same TF ops and attrs, at a
few channels): together they hold every op the zoo writes (grouped Conv2D of RegNet and
ConvNeXt, the SE blocks' Reshape of a Shape, NASNet's Cropping2D, Normalization,
LayerNormalization, gelu's Erfc...).

Writes tests/data/tf_keras_applications_<name>.pb (binary GraphDefs) and
tests/data/tf_keras_applications.npz (per model: ``<name>/x`` fed, ``<name>/y`` TF's
output, ``<name>/input`` and ``<name>/output`` the tensor names).
"""

import os
from pathlib import Path

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402
from tf_keras import layers  # noqa: E402
from tf_keras.src.applications import (convnext, densenet, efficientnet,  # noqa: E402
                                       efficientnet_v2, mobilenet_v2, mobilenet_v3, nasnet,
                                       imagenet_utils, regnet, resnet)

tf.compat.v1.disable_eager_execution()
for _module in (mobilenet_v2, mobilenet_v3, efficientnet, efficientnet_v2, convnext, regnet,
                densenet, nasnet, resnet):
    if getattr(_module, "layers", None) is None:    # set when a whole application is built
        _module.layers = layers
DATA = Path(__file__).parent
SIZE = 32


def mobilenet():
    """The whole application: ZeroPadding, Conv2D, DepthwiseConv2D, BN, ReLU6, pooling."""
    return keras.applications.MobileNet(input_shape=(SIZE, SIZE, 3), alpha=0.25,
                                        weights=None, include_top=False, pooling="avg")


def mobilenet_v2_v3(x):
    """MobileNetV2's inverted residuals (a strided one's ZeroPadding, the residual
    add), then MobileNetV3's with squeeze-excite and hard-swish, after its Rescaling."""
    x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(8, 3, strides=2, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization(epsilon=1e-3, momentum=0.999)(x)
    x = layers.ReLU(6.0)(x)
    x = mobilenet_v2._inverted_res_block(x, expansion=1, stride=1, alpha=0.35, filters=8,
                                         block_id=0)
    x = mobilenet_v2._inverted_res_block(x, expansion=6, stride=2, alpha=0.35, filters=8,
                                         block_id=1)
    x = mobilenet_v2._inverted_res_block(x, expansion=6, stride=1, alpha=0.35, filters=8,
                                         block_id=2)
    x = mobilenet_v3._inverted_res_block(x, 1, 8, 3, 2, 0.25, mobilenet_v3.relu, 0)
    x = mobilenet_v3._inverted_res_block(x, 4, 8, 5, 1, 0.25, mobilenet_v3.hard_swish, 1)
    x = mobilenet_v3._inverted_res_block(x, 3, 16, 3, 2, None, mobilenet_v3.hard_swish, 2)
    return layers.GlobalAveragePooling2D()(x)


def efficientnets(x):
    """EfficientNet's Rescaling + Normalization stem and MBConv blocks (swish, SE,
    dropout-free inference), then EfficientNetV2's fused and plain MBConv blocks."""
    x = layers.Rescaling(1.0 / 255.0)(x)
    norm = layers.Normalization(axis=3)
    x = norm(x)
    x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3))(x)
    x = layers.Conv2D(8, 3, strides=2, padding="valid", use_bias=False)(x)
    x = layers.BatchNormalization(axis=3)(x)
    x = layers.Activation("swish")(x)
    x = efficientnet.block(x, "swish", 0.2, name="b1a_", filters_in=8, filters_out=8,
                           kernel_size=3, strides=1, expand_ratio=1, se_ratio=0.25)
    x = efficientnet.block(x, "swish", 0.2, name="b2a_", filters_in=8, filters_out=12,
                           kernel_size=5, strides=2, expand_ratio=6, se_ratio=0.25)
    x = efficientnet.block(x, "swish", 0.2, name="b2b_", filters_in=12, filters_out=12,
                           kernel_size=3, strides=1, expand_ratio=6, se_ratio=0.25)
    x = efficientnet_v2.FusedMBConvBlock(12, 12, expand_ratio=4, strides=1,
                                         name="v2_fused_")(x)
    x = efficientnet_v2.MBConvBlock(12, 16, expand_ratio=4, strides=2, se_ratio=0.25,
                                    name="v2_mb_")(x)
    x = layers.GlobalAveragePooling2D()(x)
    return x, norm


def convnext_regnet(x):
    """ConvNeXt's normalising pre-stem, patchify stem with LayerNormalization and a
    ConvNeXt block (a depthwise 7x7 written as Conv2D with groups, Dense on 4-D inputs,
    gelu, layer scale), then RegNet's X and Y blocks (grouped 3x3 Conv2Ds, SE)."""
    x = convnext.PreStem(name="cn")(x)
    x = layers.Conv2D(16, kernel_size=2, strides=2, name="cn_stem")(x)
    x = layers.LayerNormalization(epsilon=1e-6, name="cn_stem_ln")(x)
    x = convnext.ConvNeXtBlock(projection_dim=16, layer_scale_init_value=1e-6,
                               name="cn_block")(x)
    x = layers.Conv2D(24, 1, name="rg_in")(x)
    x = regnet.XBlock(24, 32, group_width=8, stride=2, name="rg_x")(x)
    x = regnet.YBlock(32, 32, group_width=16, stride=1, name="rg_y")(x)
    x = layers.GlobalAveragePooling2D()(x)
    return layers.LayerNormalization(epsilon=1e-6, name="cn_head_ln")(x)


def resnet_densenet_nasnet(x):
    """ResNet's stem (ZeroPadding, 7x7/2 Conv2D with bias, MaxPool) and v1/v2 blocks,
    DenseNet's dense and transition blocks (ConcatV2, AvgPool), NASNet's reduction and
    normal cells (separable convolutions, Cropping2D, SAME pools)."""
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(x)
    x = layers.Conv2D(16, 7, strides=2, name="conv1_conv")(x)
    x = layers.BatchNormalization(epsilon=1.001e-5, name="conv1_bn")(x)
    x = layers.Activation("relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = resnet.block1(x, 4, name="r1")
    x = resnet.block2(x, 4, conv_shortcut=True, name="r2")
    x = densenet.dense_block(x, 2, name="d1")
    x = densenet.transition_block(x, 0.5, name="t1")
    p = None
    x, p = nasnet._reduction_a_cell(x, p, 4, block_id="r0")
    x, p = nasnet._normal_a_cell(x, p, 4, block_id="n0")
    x = layers.Activation("relu")(x)
    return layers.GlobalAveragePooling2D()(x)


def randomize(sess, model):
    """Batch norms' moving statistics, scales and offsets away from their initial
    identity values, and a Normalization's mean and variance given."""
    rs = np.random.RandomState(1)
    for v in model.weights:
        name, shape = v.name, v.shape.as_list()
        if "moving_variance" in name or name.endswith("/variance:0"):
            value = rs.uniform(0.5, 1.5, shape)
        elif "gamma" in name:
            value = rs.uniform(0.8, 1.5, shape)
        elif "beta" in name or "moving_mean" in name or name.endswith("/mean:0"):
            value = rs.uniform(-0.1, 0.1, shape)
        else:
            continue
        v.load(value.astype(v.dtype.as_numpy_dtype), sess)


def functional(body):
    def build():
        inputs = layers.Input((SIZE, SIZE, 3))
        out = body(inputs)
        out = out[0] if isinstance(out, tuple) else out
        return keras.Model(inputs, out)
    return build


MODELS = {"mobilenet": mobilenet, "mobilenet_v2_v3": functional(mobilenet_v2_v3),
          "efficientnets": functional(efficientnets),
          "convnext_regnet": functional(convnext_regnet),
          "resnet_densenet_nasnet": functional(resnet_densenet_nasnet)}


def record(name, build, arrays):
    keras.backend.clear_session()
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(0)
        keras.backend.set_learning_phase(0)
        model = build()
        sess = tf.compat.v1.keras.backend.get_session()
        randomize(sess, model)
        x = (np.random.RandomState(0).standard_normal((2, SIZE, SIZE, 3)) * 50 + 100
             ).astype(np.float32)
        inp, out = model.inputs[0], model.outputs[0]
        y = sess.run(out, {inp: x})
        frozen = tf.compat.v1.graph_util.convert_variables_to_constants(
            sess, graph.as_graph_def(), [out.op.name])
    path = DATA / f"tf_keras_applications_{name}.pb"
    path.write_bytes(frozen.SerializeToString())
    arrays.update({f"{name}/x": x, f"{name}/y": y, f"{name}/input": inp.name,
                   f"{name}/output": out.name})
    ops = sorted({n.op for n in frozen.node})
    print(f"{name}: {len(frozen.node)} nodes, {path.stat().st_size} bytes, output "
          f"{y.shape} max {np.abs(y).max():.3g}; ops {ops}")


def main():
    arrays = {"tf_version": tf.__version__}
    for name, build in MODELS.items():
        record(name, build, arrays)
    np.savez_compressed(DATA / "tf_keras_applications.npz", **arrays)


if __name__ == "__main__":
    main()
