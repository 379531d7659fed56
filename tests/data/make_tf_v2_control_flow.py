"""Writes the GraphDefs and values of tests/test_tf_v2_control_flow_import.py: the models
and cases of make_tf_v1_cond.py and make_tf_v1_while.py built in TensorFlow 2's graph mode
(``tf.compat.v1`` with eager execution off, nothing else disabled: what a TF1 program run
on TensorFlow 2 writes), where ``tf.cond`` and ``tf.while_loop`` are control flow v2:
``If``/``StatelessIf`` and ``While``/``StatelessWhile`` nodes whose branches, conds and
bodies are functions of the GraphDef's library.  Run with TensorFlow installed (not a
test):

    /work/peers/bin/python tests/data/make_tf_v2_control_flow.py

Writes ``tf_v2_cond_mlp``, ``tf_v2_conds``, ``tf_v2_whiles``, ``tf_v2_while_lstm``
(``.pb`` and ``.npz``), each as its ``tf_v1_`` twin describes (the same rng draws, so the
same weights and feeds).  ``tf.scan`` is left out: TF 2's loops keep TensorLists.
"""

import make_tf_v1_cond
import make_tf_v1_while
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
make_tf_v1_cond.main("v2")
make_tf_v1_while.main("v2")
