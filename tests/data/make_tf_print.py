"""Records what TensorFlow 2.21's graph-mode tf.print writes for a few inputs, into
tf_print.json (read by tests/test_print_v2.py).  Run once, with TensorFlow:

    /work/peers/bin/python tests/data/make_tf_print.py
"""

import json
import os
import tempfile

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

CASES = {
    "string_and_vector": lambda: (["hello", tf.constant([1, 2, 3])], {}),
    "long_vector": lambda: ([tf.range(10)], {}),
    "matrix_summarize_2": lambda: ([tf.reshape(tf.range(12.0), [3, 4]) / 3.0], {"summarize": 2}),
    "sep_end_bool_strings": lambda: ([tf.constant([[1.5, 2.25]]), tf.constant(True),
                                      tf.constant(["a", "b"])], {"sep": "|", "end": "$\n"}),
    "structure": lambda: (["x", {"a": tf.constant(1), "b": [tf.constant(2.5), 3]}], {}),
    "cube": lambda: ([tf.reshape(tf.range(24), [2, 3, 4])], {}),
    "floats": lambda: ([tf.constant([0.1, 1e-8, 123456789.0])], {}),
    "all_of_long": lambda: ([tf.range(8, dtype=tf.int64)], {"summarize": -1}),
    "literal_braces": lambda: (["{}", tf.constant(4)], {}),
    # a SparseTensor (a CTC decoding) is TF's quoted text of its three tensors
    "sparse": lambda: (["decoded", tf.SparseTensor([[0, 1], [2, 0], [2, 3]], [5, 6, 7],
                                                    [3, 4])], {}),
    "sparse_in_structure": lambda: ([{"d": tf.SparseTensor([[0, 0], [1, 2], [2, 1]],
                                                            [1.5, 2.0, 3.0], [3, 3]),
                                      "n": 1}], {"summarize": 1}),
}


def main():
    out = {}
    for name, make in CASES.items():
        with tf.Graph().as_default(), tf.Session() as sess:
            path = os.path.join(tempfile.mkdtemp(), "out.txt")
            args, kwargs = make()
            sess.run(tf.print(*args, output_stream="file://" + path, **kwargs))
            with open(path) as f:
                out[name] = f.read()
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_print.json"),
              "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
