"""The tf.Module model tests/data/make_tf_object_checkpoints.py records from TensorFlow
and tests/test_object_checkpoints.py builds in devsession, written once against the
module class and TF1 module given (TF's ``tf.Module`` and ``tensorflow.compat.v1``, or
``ds.Module`` and ``devsession``): nested modules, a list and a dict of variables, a
non-trainable one, and attributes set out of name order."""


def build_net(module_class, tf):
    class Dense(module_class):
        def __init__(self, n, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(tf.ones([2, n]), name="w")
                self.b = tf.Variable(tf.zeros([n]), name="b", trainable=False)

    class Net(module_class):
        def __init__(self):
            super().__init__(name="net")
            with self.name_scope:
                self.second = Dense(3)
                self.first = Dense(2, name="first")
                self.blocks = [Dense(1, name="blk"),
                               {"z": tf.Variable(1.0, name="z"), "a": tf.Variable(2.0, name="a")}]

    return Net()
