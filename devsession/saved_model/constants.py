"""TF1's SavedModel constants (``tf.saved_model.constants``): the layout of a SavedModel
directory and the collection keys its MetaGraphDefs use, with TF's values, so that either
library finds what the other wrote."""

ASSETS_DIRECTORY = "assets"                   # the asset files, copied at save time
ASSETS_KEY = "saved_model_assets"             # collection of AssetFileDefs (TF1 builder)
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
LEGACY_INIT_OP_KEY = "legacy_init_op"         # collection: the op a load runs last
MAIN_OP_KEY = "saved_model_main_op"           # collection: the op a load runs last
TRAIN_OP_KEY = "saved_model_train_op"
INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"     # reserved signature keys
TRAIN_OP_SIGNATURE_KEY = "__saved_model_train_op"
SAVED_MODEL_SCHEMA_VERSION = 1
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
VARIABLES_DIRECTORY = "variables"             # the checkpoint: variables/variables.*
VARIABLES_FILENAME = "variables"
