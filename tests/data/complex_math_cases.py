"""Complex elementwise math, recorded from TensorFlow by make_tf_complex_math.py and run
in devsession by tests/test_complex_math_ops.py, written once against the TF1 module each
is given (``tf``: ``tensorflow.compat.v1`` or ``devsession``): the unary and binary ops TF
defines on complex64/complex128 (sigmoid, sign, the trigonometric and hyperbolic functions
and their inverses, log1p, expm1, the no-NaN divisions and products, xlogy/xdivy/xlog1py,
squared_difference; the scans cumsum/cumprod and the reductions prod, mean and
euclidean_norm), on empty, single-element and broadcast operands; their gradients
with complex output gradients (TF's conjugate convention), and second derivatives through
the backprop ops TF's gradients write (SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad,
ReciprocalGrad)."""

import numpy as np

UNARY = ("sigmoid", "sign", "tan", "asin", "acos", "atan", "sinh", "cosh", "log1p", "expm1",
         "asinh", "acosh", "atanh")
BINARY = ("divide_no_nan", "multiply_no_nan", "xlogy", "xdivy", "xlog1py",
          "squared_difference")
# ops whose first gradient TF writes as a backprop op (the second derivative differentiates it)
BACKPROP_FORMS = ("sigmoid", "tanh", "sqrt", "rsqrt", "reciprocal")
SHAPES = {"x": [2, 3], "y": [2, 3], "w": [2, 3], "w2": [2, 3], "row": [3], "x128": [2, 3],
          "y128": [2, 3], "w128": [2, 3], "empty": [0], "one": [1]}


def _complex(rng, *shape, dtype=np.complex64, scale=0.6):
    return (scale * (rng.normal(size=shape) + 1j * rng.normal(size=shape))).astype(dtype)


def feeds() -> dict:
    rng = np.random.default_rng(20261208)
    out = {name: _complex(rng, *shape, dtype=np.complex128 if name.endswith("128") else
                          np.complex64) for name, shape in SHAPES.items()}
    # zeros where the no-NaN ops and xlogy/xdivy/xlog1py decide by them (values only)
    out["x"][0, 0] = 0
    out["y"][1, 1] = 0
    out["x"][1, 2] = out["y"][1, 2] = 0
    out["x128"][0, 1] = 0
    out["y128"][1, 0] = 0
    return out


def placeholders(tf) -> dict:
    return {name: tf.placeholder(tf.complex128 if name.endswith("128") else tf.complex64,
                                 shape, name=name) for name, shape in SHAPES.items()}


def all_ops(tf, p) -> dict:
    x, y, w, w2, row = p["x"], p["y"], p["w"], p["w2"], p["row"]
    out = {}
    for op in UNARY:
        fn = getattr(tf.math, op)
        out[op] = fn(x)
        out[f"{op}_128"] = fn(p["x128"])
        # x's zero is a point where some derivatives are singular: gradients on y instead
        # (sign's: TF's zeros, devsession's None, as for real values)
        if op != "sign":
            out[f"grad_{op}"] = tf.gradients(fn(y + 0.25), y, grad_ys=w)[0]
    for op in ("sigmoid", "sign", "atanh"):
        out[f"{op}_empty"] = getattr(tf.math, op)(p["empty"])
        out[f"{op}_one"] = getattr(tf.math, op)(p["one"])
    out["grad_sigmoid_128"] = tf.gradients(tf.math.sigmoid(p["x128"]), p["x128"],
                                           grad_ys=p["w128"])[0]
    for op in BINARY:
        fn = getattr(tf.math, op)
        out[op] = fn(x, y)
        out[f"{op}_row"] = fn(x, row)
        out[f"{op}_128"] = fn(p["x128"], p["y128"])
        out[f"{op}_empty"] = fn(p["empty"], p["empty"])
        # gradients away from the zeros (xlogy's d/dy is x / y), y broadcast along rows
        gx, grow = tf.gradients(fn(w2, row), [w2, row], grad_ys=w)
        out[f"grad_x_{op}"], out[f"grad_row_{op}"] = gx, grow
    for op in BACKPROP_FORMS:
        fn = getattr(tf.math, op)
        first = tf.gradients(fn(y + 0.5), y, grad_ys=w)[0]
        out[f"grad_{op}_y"] = first
        out[f"grad2_{op}"] = tf.gradients(first, y, grad_ys=w2)[0]
    out["grad_abs"] = tf.gradients(tf.reduce_sum(tf.abs(x)), x)[0]
    # scans and reductions of complex values, and their gradients
    scans = {"cumsum": tf.cumsum(y, 1), "cumsum_exclusive_reverse": tf.cumsum(
                 y, 1, exclusive=True, reverse=True),
             "cumprod": tf.math.cumprod(y, 1), "cumprod_exclusive": tf.math.cumprod(
                 y, 0, exclusive=True), "cumprod_reverse": tf.math.cumprod(y, -1, reverse=True),
             "prod": tf.reduce_prod(y, 1), "mean": tf.reduce_mean(y, 0),
             "euclidean_norm": tf.math.reduce_euclidean_norm(y, 1),
             "euclidean_norm_all": tf.math.reduce_euclidean_norm(p["x128"])}
    for name, t in scans.items():
        out[name] = t
        if t.dtype == y.dtype and name != "prod":       # devsession has no Prod gradient
            out[f"grad_{name}"] = tf.gradients(t, y, grad_ys=tf.ones_like(t) * (1 - 2j))[0]
    out["cumsum_empty"] = tf.cumsum(p["empty"], 0)
    out["cumprod_one"] = tf.math.cumprod(p["one"], 0)
    return out
