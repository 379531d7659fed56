"""Complex matrix products, recorded from TensorFlow by make_tf_complex_products.py and
run in devsession by tests/test_complex_products.py, written once against the TF1 module
each is given (``tf``: ``tensorflow.compat.v1`` or ``devsession``): tf.matmul with every
transpose and adjoint, batches that broadcast, complex128, matvec, tensordot and einsum,
unsorted_segment_sum (a gather's gradient), the segment sums, means and products, and
the gradients of real losses through them (TF's conjugate convention)."""

import numpy as np


def _complex(rng, *shape, dtype=np.complex64):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


def feeds() -> dict:
    rng = np.random.default_rng(20261207)
    return {"a": _complex(rng, 3, 4), "b": _complex(rng, 4, 2), "sq": _complex(rng, 4, 4),
            "batch": _complex(rng, 2, 1, 3, 4), "many": _complex(rng, 5, 4, 2),
            "v": _complex(rng, 4), "a128": _complex(rng, 3, 4, dtype=np.complex128),
            "b128": _complex(rng, 4, 3, dtype=np.complex128)}


def placeholders(tf) -> dict:
    shapes = {"a": [3, 4], "b": [4, 2], "sq": [4, 4], "batch": [2, 1, 3, 4], "many": [5, 4, 2],
              "v": [4], "a128": [3, 4], "b128": [4, 3]}
    return {name: tf.placeholder(tf.complex128 if name.endswith("128") else tf.complex64,
                                 shape, name=name) for name, shape in shapes.items()}


def all_ops(tf, p) -> dict:
    a, b, sq = p["a"], p["b"], p["sq"]
    out = {
        "ab": tf.matmul(a, b),
        "a_t_b": tf.matmul(sq, b, transpose_a=True),
        "a_h_b": tf.matmul(sq, b, adjoint_a=True),
        "a_b_h": tf.matmul(a, sq, adjoint_b=True),
        "a_h_b_h": tf.matmul(sq, sq, adjoint_a=True, adjoint_b=True),
        "a_t_b_h": tf.matmul(sq, sq, transpose_a=True, adjoint_b=True),
        "batch": tf.matmul(p["batch"], p["many"][:3]),
        "batch_h": tf.matmul(p["batch"], sq, adjoint_b=True),
        "c128": tf.matmul(p["a128"], p["b128"]),
        "matvec": tf.linalg.matvec(sq, p["v"]),
        "matvec_h": tf.linalg.matvec(sq, p["v"], adjoint_a=True),
        "tensordot": tf.tensordot(a, b, 1),
        "einsum": tf.einsum("ij,jk->ik", a, b),
    }
    product = tf.matmul(a, b)
    loss = tf.reduce_sum(tf.square(tf.real(product)) + 3.0 * tf.imag(product)) + tf.reduce_sum(
        tf.real(tf.matmul(sq, b, adjoint_a=True) * tf.conj(b)))
    out["grad_a"], out["grad_b"], out["grad_sq"] = tf.gradients(loss, [a, b, sq])
    corner = tf.matmul(p["batch"], p["many"])[..., :1]
    batch_loss = tf.reduce_sum(tf.real(corner * tf.conj(corner)))
    out["grad_batch"], out["grad_many"] = tf.gradients(batch_loss, [p["batch"], p["many"]])
    # a gather's gradient: the rows summed by UnsortedSegmentSum
    out["segment_sum"] = tf.math.unsorted_segment_sum(a, [0, 2, 0], 4)
    gathered = tf.gather(sq, [0, 2, 0])
    out["grad_gathered"] = tf.convert_to_tensor(
        tf.gradients(tf.reduce_sum(tf.real(gathered * a)), sq)[0])
    # the segment reductions TF runs on complex values
    out["sorted_sum"] = tf.math.segment_sum(a, [0, 0, 2])
    out["sorted_mean"] = tf.math.segment_mean(a, [0, 0, 2])
    out["sorted_prod"] = tf.math.segment_prod(a, [0, 0, 2])
    out["unsorted_prod"] = tf.math.unsorted_segment_prod(a, [1, 0, 1], 3)
    segments_loss = tf.reduce_sum(tf.real(tf.math.segment_mean(a, [0, 0, 2]) * tf.conj(
        sq[:3]))) + tf.reduce_sum(tf.imag(tf.math.segment_sum(a, [0, 1, 1])))
    out["grad_sorted"] = tf.gradients(segments_loss, a)[0]
    return out
