"""``tf.saved_model.loader.load``: a SavedModel (devsession's or TensorFlow's) brought
into a session, as TF1's loader does it:

1. read ``saved_model.pb`` (or ``saved_model.pbtxt``) and pick the MetaGraphDef whose
   tag set equals ``tags``;
2. import it into ``sess.graph`` (``ds.train.import_meta_graph``: nodes, collections,
   variables, a Saver over them);
3. restore the variables from ``variables/variables`` (a TensorFlow checkpoint or
   devsession's);
4. run its init op (the ``__saved_model_init_op`` signature's, else the
   ``saved_model_main_op`` or ``legacy_init_op`` collection's), feeding every asset's
   path constant with the path of its copy under ``assets/``, so a vocabulary table
   reads the file the SavedModel carries, not the one it was built from.

SavedModels TensorFlow 2 wrote (``tf.saved_model.save``, Keras' ``model.save``) load the
same way, as TF1's loader loads them: their signatures are function calls, inlined on
import (``tf_function_import.py``), and their Saver is a restore function
(``train/meta_graph.py``).

Returns the MetaGraphDef; its ``signature_def`` names the tensors to feed and fetch.
Errors as TF1's: ``OSError`` for a directory without a SavedModel file or one that does
not parse, ``RuntimeError`` naming the tag sets there are when none matches; a graph
devsession cannot run fails as ``import_meta_graph`` does (``NotFoundError`` naming the
op).
"""

from __future__ import annotations

import logging
import os

from google.protobuf import message as _message
from google.protobuf import text_format

from ..errors import NotFoundError
from ..proto.meta_graph_pb2 import AssetFileDef
from ..proto.saved_model_pb2 import SavedModel
from ..train.saver import import_meta_graph
from ..variables import global_variables
from . import constants

__all__ = ["load", "maybe_saved_model_directory", "parse_saved_model"]

log = logging.getLogger("devsession.saved_model")


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Load the MetaGraphDef tagged ``tags`` from ``export_dir`` into ``sess`` (see the
    module docstring); returns that MetaGraphDef."""
    export_dir = os.fspath(export_dir)
    meta = meta_graph_with_tags(parse_saved_model(export_dir), tags)
    with sess.graph.as_default():
        saver = import_meta_graph(meta, import_scope=import_scope, **saver_kwargs)
        if saver is not None:
            saver.restore(sess, os.path.join(export_dir, constants.VARIABLES_DIRECTORY,
                                             constants.VARIABLES_FILENAME))
        elif global_variables(scope=import_scope):
            raise ValueError("No tf.train.Saver object was passed to the function "
                             "`SavedModelLoader.restore_variables`. Since there are "
                             "variables in the graph, a saver is required.")
        else:
            log.info("The specified SavedModel has no variables; no checkpoints were "
                     "restored.")
        init_op = _init_op(meta, sess.graph, import_scope)
        if init_op is not None:
            sess.run([init_op], feed_dict=_asset_paths(export_dir, meta, import_scope))
    return meta


def maybe_saved_model_directory(export_dir) -> bool:
    """Whether ``export_dir`` holds a SavedModel file (it may still fail to load)."""
    export_dir = os.fspath(export_dir)
    return any(os.path.exists(os.path.join(export_dir, name)) for name in
               (constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT))


def parse_saved_model(export_dir: str) -> SavedModel:
    """The SavedModel proto of ``export_dir`` (binary ``saved_model.pb`` first)."""
    binary = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    text = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    saved_model = SavedModel()
    if os.path.exists(binary):
        with open(binary, "rb") as f:
            data = f.read()
        try:
            saved_model.ParseFromString(data)
        except (_message.DecodeError, RuntimeError, ValueError) as e:
            raise OSError(f"Cannot parse file {binary}: {e}.") from None
    elif os.path.exists(text):
        with open(text, "rb") as f:
            data = f.read()
        try:
            text_format.Parse(data.decode("utf-8"), saved_model, allow_unknown_field=True)
        except (text_format.ParseError, UnicodeDecodeError) as e:
            raise OSError(f"Cannot parse file {text}: {e}.") from None
    else:
        raise OSError(f"SavedModel file does not exist at: {export_dir}{os.sep}"
                      f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|"
                      f"{constants.SAVED_MODEL_FILENAME_PB}}}")
    return saved_model


def meta_graph_with_tags(saved_model: SavedModel, tags):
    """The MetaGraphDef whose tag set is ``set(tags)``."""
    available = []
    for meta in saved_model.meta_graphs:
        available.append(set(meta.meta_info_def.tags))
        if set(meta.meta_info_def.tags) == set(tags):
            return meta
    raise RuntimeError(f"MetaGraphDef associated with tags {str(tags).strip('[]')} could "
                       f"not be found in SavedModel, with available tags '{available}'. To "
                       f"inspect available tag-sets in the SavedModel, please use the "
                       f"SavedModel CLI: `saved_model_cli`.")


def _init_op(meta, graph, import_scope):
    """The op a load runs last: the init-op signature's, else the one of the main-op or
    legacy-init-op collection (exactly one, or ``RuntimeError``)."""
    signature = meta.signature_def.get(constants.INIT_OP_SIGNATURE_KEY)
    if signature is not None:
        name = signature.outputs[constants.INIT_OP_SIGNATURE_KEY].name
        try:
            return graph.as_graph_element(f"{import_scope}/{name}" if import_scope else name)
        except (KeyError, ValueError):
            raise NotFoundError(f'The key "{constants.INIT_OP_SIGNATURE_KEY}" could not '
                                f'be found in the graph.') from None
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if key in meta.collection_def:
            ops = meta.collection_def[key].node_list.value
            if len(ops) != 1:
                raise RuntimeError(f"Expected exactly one SavedModel init op. Found "
                                   f"{len(ops)}: {list(ops)}.")
            return graph.get_collection(key)[0]
    return None


def _asset_paths(export_dir: str, meta, import_scope) -> dict:
    """{asset path tensor name: its copy under ``assets/``}, from ``asset_file_def`` or
    (TF1's builder) the ``saved_model_assets`` collection of AssetFileDefs."""
    assets = list(meta.asset_file_def)
    if not assets and constants.ASSETS_KEY in meta.collection_def:
        # packed in google.protobuf.Any as "tensorflow.AssetFileDef", the same fields
        assets = [AssetFileDef.FromString(packed.value) for packed in
                  meta.collection_def[constants.ASSETS_KEY].any_list.value]
    directory = os.path.join(export_dir, constants.ASSETS_DIRECTORY)
    return {(f"{import_scope}/{a.tensor_info.name}" if import_scope else a.tensor_info.name):
            os.path.join(directory, a.filename) for a in assets}
