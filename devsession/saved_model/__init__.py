"""TF1's ``tf.saved_model``: models exported for serving as SavedModel directories and
loaded back, in either direction between devsession and TensorFlow 1.x-style programs.

* ``builder.py``: ``SavedModelBuilder`` (``Builder``) and ``simple_save``;
* ``loader.py``: ``loader.load`` (``load``), ``maybe_saved_model_directory``
  (``contains_saved_model``);
* ``signature_def_utils.py``, ``utils.py``: signatures and their ``TensorInfo``\\ s;
* ``constants.py``, ``tag_constants.py``, ``signature_constants.py``: TF's names;
* ``main_op.py``: the usual op a load runs last.

The protos are TF's (``proto/saved_model.proto``, ``proto/meta_graph.proto``, same field
numbers).  The variables are a ``ds.train.Saver`` checkpoint, so a SavedModel devsession
wrote loads in devsession; one TensorFlow wrote loads here too: TF1 graphs (reference
or resource variables) and TF2's (``tf.saved_model.save`` of a ``tf.Module``, Keras'
``model.save``), through TF1's loader as TF1 loads them.  TF2's object-based API itself
(``tf.saved_model.save``, ``load_v2``, ``Asset``...) is not TF1's and raises
``UnsupportedTF1Error``.
"""

from . import (builder, constants, loader, main_op, signature_constants, signature_def_utils,
               tag_constants, utils)
from .builder import SavedModelBuilder, simple_save
from .constants import (ASSETS_DIRECTORY, ASSETS_KEY, DEBUG_DIRECTORY, DEBUG_INFO_FILENAME_PB,
                        LEGACY_INIT_OP_KEY, MAIN_OP_KEY, SAVED_MODEL_FILENAME_PB,
                        SAVED_MODEL_FILENAME_PBTXT, SAVED_MODEL_SCHEMA_VERSION,
                        VARIABLES_DIRECTORY, VARIABLES_FILENAME)
from .loader import load, maybe_saved_model_directory
from .main_op import main_op_with_restore
from .signature_constants import (CLASSIFY_INPUTS, CLASSIFY_METHOD_NAME,
                                  CLASSIFY_OUTPUT_CLASSES, CLASSIFY_OUTPUT_SCORES,
                                  DEFAULT_SERVING_SIGNATURE_DEF_KEY, PREDICT_INPUTS,
                                  PREDICT_METHOD_NAME, PREDICT_OUTPUTS, REGRESS_INPUTS,
                                  REGRESS_METHOD_NAME, REGRESS_OUTPUTS)
from .signature_def_utils import (build_signature_def, classification_signature_def,
                                  is_valid_signature, predict_signature_def,
                                  regression_signature_def)
from .tag_constants import GPU, SERVING, TPU, TRAINING
from .utils import build_tensor_info, get_tensor_from_tensor_info

Builder = SavedModelBuilder
contains_saved_model = maybe_saved_model_directory

__all__ = [
    "builder", "constants", "loader", "main_op", "signature_constants",
    "signature_def_utils", "tag_constants", "utils",
    "SavedModelBuilder", "Builder", "simple_save", "load", "maybe_saved_model_directory",
    "contains_saved_model", "main_op_with_restore", "build_signature_def",
    "classification_signature_def", "is_valid_signature", "predict_signature_def",
    "regression_signature_def", "build_tensor_info", "get_tensor_from_tensor_info",
    "ASSETS_DIRECTORY", "ASSETS_KEY", "DEBUG_DIRECTORY", "DEBUG_INFO_FILENAME_PB",
    "LEGACY_INIT_OP_KEY", "MAIN_OP_KEY", "SAVED_MODEL_FILENAME_PB",
    "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION", "VARIABLES_DIRECTORY",
    "VARIABLES_FILENAME", "CLASSIFY_INPUTS", "CLASSIFY_METHOD_NAME",
    "CLASSIFY_OUTPUT_CLASSES", "CLASSIFY_OUTPUT_SCORES", "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "PREDICT_INPUTS", "PREDICT_METHOD_NAME", "PREDICT_OUTPUTS", "REGRESS_INPUTS",
    "REGRESS_METHOD_NAME", "REGRESS_OUTPUTS", "GPU", "SERVING", "TPU", "TRAINING",
]

def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("saved_model", name)
