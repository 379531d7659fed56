"""``tf.saved_model.builder.SavedModelBuilder`` and ``simple_save``: a trained model
written as a SavedModel directory, TF1's export format for serving:

    export_dir/saved_model.pb         the SavedModel proto: MetaGraphDefs, each tagged
    export_dir/variables/variables.*  one checkpoint of the variables (``ds.train.Saver``'s)
    export_dir/assets/                copies of the files the graph reads (vocabularies)

The first MetaGraphDef is added with the variables (``add_meta_graph_and_variables``),
any others share them (``add_meta_graph``); ``save`` writes ``saved_model.pb``
atomically.  Each MetaGraphDef has its tags, its signatures (``signature_def_utils``), its
collections, its Saver, the op a load runs last (``main_op``, in the
``saved_model_main_op`` collection, as TF1's builder puts it) and its assets
(``asset_file_def``: each file's name under ``assets/`` and the string constant that
held its original path, which a load feeds with the copy's path; a MetaGraphDef lists
the assets of the ones added before it too, as TF1's builder, which keeps them in a
collection of the graph, does).  Errors are TF's:
``AssertionError`` for a non-empty export directory and for adding MetaGraphDefs out of
order, ``KeyError`` for a reserved signature key, ``TypeError``/``ValueError`` for a bad
main op or asset.
"""

from __future__ import annotations

import filecmp
import logging
import os
import shutil

import numpy as np

from .. import dtypes
from ..atomic_files import write_atomically
from ..graph import Operation, Tensor, get_default_graph
from ..graph_keys import GraphKeys
from ..proto.meta_graph_pb2 import AssetFileDef
from ..proto.saved_model_pb2 import SavedModel
from ..train.saver import Saver
from . import constants, signature_constants, signature_def_utils, tag_constants

__all__ = ["SavedModelBuilder", "simple_save"]

log = logging.getLogger("devsession.saved_model")


class SavedModelBuilder:
    """Builds a SavedModel in ``export_dir`` (see the module docstring)."""

    def __init__(self, export_dir):
        self._export_dir = os.fspath(export_dir)
        if os.path.exists(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError(
                    f"Export directory {self._export_dir} already exists, and isn't empty. "
                    f"Please choose a different export directory, or delete all the "
                    f"contents of the specified directory.")
        else:
            os.makedirs(self._export_dir)
        self._saved_model = SavedModel(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
        self._has_saved_variables = False
        self._graph = None                  # the graph of the first MetaGraphDef
        self._copied_assets: dict = {}      # name under assets/ -> its source path
        self._assets: list = []             # (name under assets/, path tensor), so far

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None,
                                     assets_collection=None, legacy_init_op=None,
                                     clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None) -> None:
        """Save the variables' values from ``sess`` and add the first MetaGraphDef (of
        ``sess.graph``, which later ``add_meta_graph`` calls export again)."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already "
                                 "been saved. Please invoke `add_meta_graph()` instead.")
        self._graph = sess.graph
        with self._graph.as_default():
            signature_def_map = signature_def_map or {}
            _validate_signatures(signature_def_map)
            self._prepare(assets_collection,
                          main_op if main_op is not None else legacy_init_op)
            saver = saver or Saver(allow_empty=True)
            variables_dir = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
            os.makedirs(variables_dir, exist_ok=True)
            saver.save(sess, os.path.join(variables_dir, constants.VARIABLES_FILENAME),
                       write_meta_graph=False, write_state=False)
            self._add(saver, tags, signature_def_map, clear_devices)
        self._has_saved_variables = True

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None,
                       legacy_init_op=None, clear_devices=False, main_op=None,
                       strip_default_attrs=False, saver=None) -> None:
        """Add another MetaGraphDef that uses the variables saved with the first."""
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been "
                                 "saved yet. Please invoke `add_meta_graph_and_variables()` "
                                 "first.")
        with self._graph.as_default():
            signature_def_map = signature_def_map or {}
            _validate_signatures(signature_def_map)
            self._prepare(assets_collection,
                          main_op if main_op is not None else legacy_init_op)
            self._add(saver or Saver(allow_empty=True), tags, signature_def_map,
                      clear_devices)

    def save(self, as_text=False) -> bytes:
        """Write ``saved_model.pb`` (``saved_model.pbtxt`` when ``as_text``) atomically;
        returns its path, as bytes as TF1's builder does."""
        os.makedirs(self._export_dir, exist_ok=True)
        name = constants.SAVED_MODEL_FILENAME_PBTXT if as_text \
            else constants.SAVED_MODEL_FILENAME_PB
        path = os.path.join(self._export_dir, name)
        if as_text:
            from google.protobuf import text_format

            data = text_format.MessageToString(self._saved_model).encode()
        else:
            data = self._saved_model.SerializeToString(deterministic=True)
        write_atomically(path, lambda f: f.write(data))
        log.info("SavedModel written to: %s", path)
        return os.fsencode(path)

    def _prepare(self, assets_collection, main_op) -> None:
        """Copy the assets into ``assets/`` and put ``main_op`` in its collection."""
        self._copy_assets(assets_collection)
        _add_main_op(main_op)

    def _copy_assets(self, assets_collection) -> None:
        for tensor in assets_collection or []:
            source = _asset_path(tensor)
            name = self._asset_name(source)
            target = os.path.join(self._export_dir, constants.ASSETS_DIRECTORY, name)
            if name not in self._copied_assets and os.path.exists(source):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(source, target)
            self._copied_assets[name] = source
            if (name, tensor) not in self._assets:
                self._assets.append((name, tensor))

    def _asset_name(self, source: str) -> str:
        """``source``'s basename, suffixed ``_1``, ``_2``... when another file of that
        name but other contents is already among the assets (TF's rule)."""
        name = os.path.basename(source)
        other = self._copied_assets.get(name)
        if other is None or other == source or filecmp.cmp(source, other, shallow=False):
            return name
        k, unique = 1, name
        while unique in self._copied_assets:
            unique, k = f"{name}_{k}", k + 1
        return unique

    def _add(self, saver, tags, signature_def_map, clear_devices) -> None:
        meta = saver.export_meta_graph(clear_devices=clear_devices)
        meta.meta_info_def.tags.extend(tags)
        for key, signature in signature_def_map.items():
            meta.signature_def[key].CopyFrom(signature)
        for name, tensor in self._assets:
            meta.asset_file_def.append(AssetFileDef(filename=name))
            meta.asset_file_def[-1].tensor_info.name = tensor.name
        self._saved_model.meta_graphs.append(meta)


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None) -> None:
    """A SavedModel for serving in one call: tag ``serve``, one Predict signature
    ``serving_default`` (``inputs`` and ``outputs``: ``{key: Tensor}``), the graph's
    ``asset_filepaths`` collection as assets, devices cleared."""
    signatures = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                  signature_def_utils.predict_signature_def(inputs, outputs)}
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        session, [tag_constants.SERVING], signature_def_map=signatures,
        assets_collection=session.graph.get_collection(GraphKeys.ASSET_FILEPATHS),
        main_op=legacy_init_op, clear_devices=True)
    builder.save()


def _validate_signatures(signature_def_map: dict) -> None:
    for key, signature in signature_def_map.items():
        for info in list(signature.inputs.values()) + list(signature.outputs.values()):
            if info.WhichOneof("encoding") is None:
                raise AssertionError(
                    f"Invalid `tensor_info`: {info}. All TensorInfo protos used in the "
                    f"SignatureDefs must have one of the 'encoding' fields (e.g., name or "
                    f"coo_sparse) set.")
            if info.dtype == 0:
                raise AssertionError(
                    f"Invalid `tensor_info`: {info}. All TensorInfo protos used in the "
                    f"SignatureDefs must have the dtype field set.")
    for reserved, what in ((constants.INIT_OP_SIGNATURE_KEY, "initialization"),
                           (constants.TRAIN_OP_SIGNATURE_KEY, "the train op")):
        if reserved in signature_def_map:
            raise KeyError(f'SignatureDef map key "{reserved}" is reserved for {what}. '
                           f'Please use a different key.')


def _add_main_op(main_op) -> None:
    """Put ``main_op`` in the graph's ``saved_model_main_op`` collection, as TF1's
    builder does (a graph holds at most one)."""
    if main_op is None:
        return
    if not isinstance(main_op, Operation):
        raise TypeError(f"Expected {main_op} to be an Operation but got type "
                        f"{type(main_op)} instead.")
    graph = get_default_graph()
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if graph.get_collection(key):
            raise ValueError(f"Graph already contains one or more main ops under the "
                             f"collection {key}.")
    graph.add_to_collection(constants.MAIN_OP_KEY, main_op)


def _asset_path(tensor) -> str:
    """The path a scalar string constant holds (TF's checks and messages)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Asset path tensor {tensor} must be a Tensor.")
    if tensor.op.type != "Const":
        raise TypeError(f"Asset path tensor {tensor} must be of type constant.Has type "
                        f"{tensor.op.type} instead.")
    if tensor.dtype != dtypes.string:
        raise TypeError(f"Asset path tensor {tensor}` must be of dtype string.Has type "
                        f"{tensor.dtype} instead.")
    value = np.asarray(tensor.op.get_attr("value"))
    if value.size != 1:
        raise TypeError(f"Asset path tensor {tensor} must be a scalar.")
    path = value.reshape(-1)[0]
    path = os.fsdecode(path) if isinstance(path, bytes) else str(path)
    if not path:
        raise ValueError(f"Asset filepath tensor {tensor} in is invalid.")
    return path
