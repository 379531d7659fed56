"""Signature keys and method names (``tf.saved_model.signature_constants``), TF's values:
TensorFlow Serving finds a model's entry points by them."""

DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"

CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"

PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_INPUTS = "inputs"
PREDICT_OUTPUTS = "outputs"

REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_INPUTS = "inputs"
REGRESS_OUTPUTS = "outputs"
