"""Writes a checkpoint with TensorFlow's own SaveV2 (its BundleWriter), for
tests/test_tf_checkpoint_writer.py: devsession's writer must produce the same bytes.

    /work/peers/bin/python tests/data/tf_bundle/make_tf_bundle.py

``tensors.npz``: the tensors (keys with "/" spelled "|", as npz member names cannot hold
it); ``model.index`` and ``model.data-00000-of-00001``: TF's bundle of them.  Keys share
prefixes across more than 16 entries (restart points), dtypes and shapes vary (scalars,
an empty tensor, float16, bool, int8, uint16, float64).
"""

import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))


def tensors() -> dict:
    rng = np.random.RandomState(0)
    out = {
        "dense/kernel": rng.randn(4, 3).astype(np.float32),
        "dense/bias": rng.randn(3).astype(np.float32),
        "global_step": np.int64(1234),
        "scale": np.float64(0.5),
        "half": rng.randn(2, 2).astype(np.float16),
        "mask": np.array([True, False, True]),
        "bytes_small": np.array([-3, 7], np.int8),
        "counts": np.array([1, 65535, 300], np.uint16),
        "empty": np.zeros((0, 5), np.float32),
    }
    for i in range(20):
        out[f"layer_{i:02d}/w"] = rng.randn(2).astype(np.float32)
    return out


def main() -> None:
    values = tensors()
    names = sorted(values)
    tf.raw_ops.SaveV2(prefix=os.path.join(HERE, "model"), tensor_names=names,
                      shape_and_slices=[""] * len(names),
                      tensors=[tf.constant(values[n]) for n in names])
    np.savez(os.path.join(HERE, "tensors.npz"),
             **{n.replace("/", "|"): v for n, v in values.items()})
    print(f"{len(names)} tensors written to {HERE}")


if __name__ == "__main__":
    main()
