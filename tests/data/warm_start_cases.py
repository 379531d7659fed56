"""The warm-starting cases tests/data/make_tf_warm_start.py records from TensorFlow and
tests/test_warm_start.py repeats in devsession, written once against the TF1 module each
side passes (``tf``: ``tensorflow.compat.v1`` or ``devsession``) and the folder holding
the vocabulary files (``directory``): the new model (every variable 9.0 before
warm-starting), the VocabInfos and, per case, the model's settings and warm_start's
arguments."""

import os


def new_model(tf, emb_rows=8, emb_parts=1, part_parts=2) -> None:
    nine = tf.constant_initializer(9.0)
    tf.get_variable("emb", [emb_rows, 3], initializer=nine,
                    partitioner=tf.fixed_size_partitioner(emb_parts) if emb_parts > 1 else None)
    tf.get_variable("out/kernel", [2, 3], initializer=nine)
    tf.get_variable("w", [2, 2], initializer=nine)
    tf.get_variable("part", [6, 2], initializer=nine,
                    partitioner=tf.fixed_size_partitioner(part_parts))
    tf.get_variable("bias", [3], initializer=nine)
    tf.get_variable("steps", [2], initializer=nine, trainable=False)


def emb_info(tf, directory, **kw):
    """The embedding's rows remapped from old_vocab.txt to new_vocab.txt (2 OOV rows)."""
    args = dict(new_vocab=os.path.join(directory, "new_vocab.txt"), new_vocab_size=6,
                num_oov_buckets=2, old_vocab=os.path.join(directory, "old_vocab.txt"),
                backup_initializer=tf.ones_initializer())
    args.update(kw)
    return tf.train.VocabInfo(**args)


def kernel_info(tf, directory):
    """The output kernel's columns remapped from old_classes.txt to new_classes.txt."""
    return tf.train.VocabInfo(new_vocab=os.path.join(directory, "new_classes.txt"),
                              new_vocab_size=3, num_oov_buckets=0,
                              old_vocab=os.path.join(directory, "old_classes.txt"),
                              backup_initializer=tf.ones_initializer(), axis=1)


def cases(tf, directory) -> dict:
    """{case: (new_model's keyword arguments, warm_start's keyword arguments)}."""
    emb = lambda **kw: emb_info(tf, directory, **kw)    # noqa: E731
    kernel = kernel_info(tf, directory)
    return {
        "all": ({}, dict(var_name_to_vocab_info={"emb": emb(), "out/kernel": kernel},
                         var_name_to_prev_var_name={"bias": "prev/bias"})),
        "emb_in_3_parts": ({"emb_parts": 3, "part_parts": 3},
                           dict(vars_to_warm_start="emb|part",
                                var_name_to_vocab_info={"emb": emb()})),
        "old_vocab_size": ({"emb_parts": 2},
                           dict(vars_to_warm_start=["emb", "steps"],
                                var_name_to_vocab_info={"emb": emb(
                                    old_vocab_size=3, backup_initializer=None)})),
        "vocab_only": ({}, dict(vars_to_warm_start=None,
                                var_name_to_vocab_info={"out/kernel": kernel})),
        "emb_oov_part": ({"emb_parts": 4},
                         dict(vars_to_warm_start="emb",
                              var_name_to_vocab_info={"emb": emb()})),
    }
