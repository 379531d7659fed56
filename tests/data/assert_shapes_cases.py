"""tf.debugging.assert_shapes cases run by the recorder (make_tf_assert_shapes.py, with
TensorFlow's tf.compat.v1) and by tests/test_assert_shapes.py (devsession): each builds
the assertion over named placeholders and runs it on feeds; ``outcome`` says what was
raised at build time or at run time, or "ok"."""

import re

import numpy as np

# placeholders: name -> (static shape, fed value's shape)
PLACEHOLDERS = {"x": ([None, 3], (2, 3)), "y": ([None, None], (2, 4)),
                "y_bad": ([None, None], (3, 4)), "s": ([], ()), "v": ([None], (1,)),
                "u": (None, (2, 3, 4)), "u_scalar": (None, ()), "z": ([2, 3, 4], (2, 3, 4)),
                "w": ([None, 3, None], (5, 3, 2))}

CASES = {
    "symbols_agree": [("x", ("N", "Q")), ("y", ("N", 4))],
    "symbols_disagree_at_run": [("x", ("N", "Q")), ("y_bad", ("N", 4))],
    "explicit_size_static": [("x", ("N", 4))],
    "rank_static": [("x", ("N",))],
    "rank_three_static": [("x", ("N", "Q", "R"))],
    "scalar_ok": [("s", ())],
    "scalar_as_one": [("s", (1,))],
    "vector_of_one_as_scalar": [("v", ())],
    "leading_any": [("z", (..., "Q")), ("x", ("N", "Q"))],
    "leading_star": [("w", ("*", 3, "K")), ("x", ("N", 3))],
    "leading_not_first": [("z", ("N", ..., 4))],
    "any_size": [("z", (".", ".", 4)), ("x", (None, None))],
    "unknown_rank": [("u", ("A", "B", "C")), ("z", ("A", "B", "C"))],
    "unknown_rank_wrong_size": [("u", ("A", "B", 5))],
    "unknown_rank_scalar": [("u_scalar", ())],
    "dict_form": {"x": ("N", 3), "w": ("M", "N", 2)},
    "not_iterable": [("x", 3)],
    "message": [("x", ("N", 2))],
}
MESSAGES = {"message": "shapes of the batch"}


def feeds():
    return {name: np.zeros(fed, np.float32) for name, (_, fed) in PLACEHOLDERS.items()}


def outcome(tf, name):
    placeholders = {n: tf.placeholder(tf.float32, shape, name=n)
                    for n, (shape, _) in PLACEHOLDERS.items()}
    case = CASES[name]
    pairs = {placeholders[n]: s for n, s in case.items()} if isinstance(case, dict) else \
        [(placeholders[n], s) for n, s in case]
    try:
        check = tf.debugging.assert_shapes(pairs, message=MESSAGES.get(name))
    except Exception as e:      # noqa: BLE001 - the class and message are compared
        return ["build", type(e).__name__, str(e)]
    with tf.Session() as sess:
        try:
            sess.run(check, {placeholders[n]: v for n, v in feeds().items()})
        except Exception as e:  # noqa: BLE001
            return ["run", type(e).__name__, _assertion_line(str(e))]
    return ["ok"]


def _assertion_line(message: str) -> str:
    """The line of a run-time error that says what failed, without where (TF's node list
    after it, devsession's node name at its end)."""
    lines = [line for line in message.splitlines() if "assertion failed" in line]
    line = lines[0] if lines else message.strip().splitlines()[0]
    return re.sub(r" \(node '[^']*'\)$", "", line.strip())
