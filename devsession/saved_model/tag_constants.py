"""Tags that name a SavedModel's MetaGraphDefs (``tf.saved_model.tag_constants``); a
load picks the MetaGraphDef whose tag set equals the one asked for."""

SERVING = "serve"
TRAINING = "train"
GPU = "gpu"
TPU = "tpu"
