"""``tf.saved_model.builder.SavedModelBuilder`` and ``simple_save``: a trained model
written as a SavedModel directory, TF1's export format for serving, in the form
TensorFlow reads (``tf.compat.v1.saved_model.loader.load``, ``tf.saved_model.load``,
TensorFlow Serving) as well as devsession's own loader:

    export_dir/saved_model.pb         the SavedModel proto: MetaGraphDefs, each tagged
    export_dir/variables/variables.*  one checkpoint of the variables, TF's tensor bundle
                                      (``train/tf_checkpoint_writer.py``)
    export_dir/assets/                copies of the files the graph reads (vocabularies)

The first MetaGraphDef is added with the variables (``add_meta_graph_and_variables``),
any others share them (``add_meta_graph``); ``save`` writes ``saved_model.pb``
atomically.  Each MetaGraphDef has its tags, its signatures (``signature_def_utils``), its
collections, its Saver, the op a load runs last (``main_op``, in the
``saved_model_main_op`` collection, as TF1's builder puts it) and its assets
(``asset_file_def``: each file's name under ``assets/`` and the string constant that
held its original path, which a load feeds with the copy's path).

**The graph is TensorFlow's**, by this rule, per MetaGraphDef:

1. the whole graph in TF's form (``tf_export.to_tf_graph_def``: gradients and optimizer
   updates included, so TensorFlow resumes training from it), as TF1's builder writes it;
2. where a node has no TF form (devsession's TensorArray ops outside loops, an op TF
   lacks): tagged ``train``, the whole graph in devsession's own form, which devsession
   loads and TensorFlow cannot, with a warning naming the node; any other tags
   (``serve``), the part of the graph its signatures, main op, table initializers, asset
   constants and the saved variables (with their initializers) need, in TF's form, the
   collection items naming what was left out dropped.  If that part holds a node TF's
   form cannot express (a devsession-private op a signature needs),
   ``UnimplementedError`` names it before anything of that MetaGraphDef is written.

Every MetaGraphDef gets a TF1 Saver over the variables in TF's form, under ``save/``
(``tf_saver_nodes.py``), and its SaverDef; the checkpoint is TF's tensor bundle.  A
partitioned or string variable is ``UnimplementedError``.  So TensorFlow (TF1's loader,
TF2's ``tf.saved_model.load``, TF Serving) loads a ``serve`` MetaGraphDef of a trained
model, with the trained values (checked by hand:
``tests/data/tf_saved_models/check_tf_loads_devsession.py``).

Errors are TF's: ``AssertionError`` for a non-empty export directory and for adding
MetaGraphDefs out of order, ``KeyError`` for a reserved signature key,
``TypeError``/``ValueError`` for a bad main op or asset.
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
from ..errors import UnimplementedError
from ..graph_util import extract_sub_graph
from ..proto.meta_graph_pb2 import AssetFileDef, CollectionDef, VariableDef
from ..proto.saved_model_pb2 import SavedModel
from ..tf_export import to_tf_graph_def
from ..train.meta_graph import VARIABLE_COLLECTIONS, export_meta_graph
from ..train.tf_checkpoint_writer import write_tf_checkpoint
from ..variables import global_variables
from . import constants, signature_constants, signature_def_utils, tag_constants
from .tf_saver_nodes import add_saver_nodes

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
        self._variables: dict = {}          # checkpoint key -> the saved Variable
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
            self._variables = _saved_variables(saver)
            meta = self._meta_graph(saver, tags, signature_def_map, assets_collection,
                                    main_op if main_op is not None else legacy_init_op,
                                    clear_devices)
            names = sorted(self._variables)
            values = sess.run([self._variables[n].value() for n in names])
            variables_dir = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
            os.makedirs(variables_dir, exist_ok=True)
            write_tf_checkpoint(os.path.join(variables_dir, constants.VARIABLES_FILENAME),
                                dict(zip(names, values)))
            self._saved_model.meta_graphs.append(meta)
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
            self._saved_model.meta_graphs.append(self._meta_graph(
                saver, tags, signature_def_map, assets_collection,
                main_op if main_op is not None else legacy_init_op, clear_devices))

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

    def _meta_graph(self, saver, tags, signature_def_map, assets_collection, main_op,
                    clear_devices):
        """The MetaGraphDef in TF's form (see the module docstring): checked for what TF
        cannot read before the assets are copied or the main op is recorded."""
        new_assets = [(_asset_path(tensor), tensor) for tensor in assets_collection or []]
        if main_op is not None and not isinstance(main_op, Operation):
            raise TypeError(f"Expected {main_op} to be an Operation but got type "
                            f"{type(main_op)} instead.")
        asset_tensors = [t for _, t in self._assets] + [t for _, t in new_assets]
        graph_def = self._graph_def(tags, _roots(
            self._graph, signature_def_map, main_op, asset_tensors, self._variables))
        if clear_devices:
            for node in graph_def.node:
                node.device = ""
        in_graph = {node.name for node in graph_def.node}
        scope = _unused_scope(in_graph, "save")
        saver_def = add_saver_nodes(
            graph_def, {key: (var.op.name, var.dtype) for key, var in self._variables.items()},
            scope, **_saver_options(saver))
        _add_main_op(main_op)
        meta = export_meta_graph(graph=self._graph, graph_def=graph_def, saver_def=saver_def)
        _prune_collections(meta, in_graph)
        meta.meta_info_def.tags.extend(tags)
        for key, signature in signature_def_map.items():
            meta.signature_def[key].CopyFrom(signature)
        for source, tensor in new_assets:
            name = self._copy_asset(source)
            if (name, tensor) not in self._assets:
                self._assets.append((name, tensor))
        for name, tensor in self._assets:     # an earlier MetaGraphDef's too, as TF1's
            meta.asset_file_def.append(AssetFileDef(filename=name))
            meta.asset_file_def[-1].tensor_info.name = tensor.name
        return meta

    def _graph_def(self, tags, roots: list):
        """The MetaGraphDef's graph (the rule of the module docstring): the whole graph in
        TF's form; else, tagged ``train``, in devsession's (with a warning: TF cannot load
        that MetaGraphDef); else what ``roots`` need, in TF's form, or
        UnimplementedError."""
        whole = self._graph.as_graph_def()
        try:
            return to_tf_graph_def(whole)
        except UnimplementedError as e:
            why = e
        if tag_constants.TRAINING in tags:
            log.warning("SavedModelBuilder: the MetaGraphDef tagged %s holds the whole graph "
                        "in devsession's own form (devsession loads it, TensorFlow cannot): "
                        "%s", list(tags), why)
            return whole
        log.info("SavedModelBuilder: the MetaGraphDef tagged %s holds what its signatures, "
                 "main op, assets and variables need, in TensorFlow's form; the rest of the "
                 "graph cannot be written so: %s", list(tags), why)
        return _tf_graph_def(self._graph, roots)

    def _copy_asset(self, source: str) -> str:
        """Copy ``source`` into ``assets/`` (once); its name there."""
        name = self._asset_name(source)
        target = os.path.join(self._export_dir, constants.ASSETS_DIRECTORY, name)
        if name not in self._copied_assets and os.path.exists(source):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
        self._copied_assets[name] = source
        return name

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


def _saved_variables(saver) -> dict:
    """{checkpoint key: Variable}: ``saver``'s, else every global variable by its name
    (TF1's default Saver).  A partitioned variable is ``UnimplementedError``."""
    items = saver._variables.items() if saver is not None \
        else ((var.op.name, var) for var in global_variables())
    named = {}
    for key, var in items:
        if isinstance(var, list) or var._save_slice_info is not None:
            raise UnimplementedError(
                f"SavedModelBuilder: '{key}' is a partitioned variable; devsession writes "
                f"SavedModels TensorFlow loads of unpartitioned variables only.")
        if var.dtype == dtypes.string:
            raise UnimplementedError(
                f"SavedModelBuilder: variable '{key}' holds strings, which devsession does "
                f"not write into TensorFlow checkpoints.")
        named[key] = var
    return named


def _saver_options(saver) -> dict:
    """The given Saver's settings, which its SaverDef records."""
    if saver is None:
        return {}
    saver_def = saver.saver_def
    return {"max_to_keep": saver_def.max_to_keep,
            "keep_every_n_hours": saver_def.keep_checkpoint_every_n_hours}


def _roots(graph, signature_def_map: dict, main_op, assets: list, variables: dict) -> list:
    """The node names a MetaGraphDef must hold: the signatures' tensors, the main op and
    table initializers, the asset constants, the variables with their initializers."""
    names = []
    for signature in signature_def_map.values():
        for info in list(signature.inputs.values()) + list(signature.outputs.values()):
            kind = info.WhichOneof("encoding")
            if kind == "name":
                names.append(info.name)
            elif kind == "coo_sparse":
                names += [info.coo_sparse.values_tensor_name,
                          info.coo_sparse.indices_tensor_name,
                          info.coo_sparse.dense_shape_tensor_name]
            else:
                raise UnimplementedError(f"SavedModelBuilder: a signature's TensorInfo of "
                                         f"encoding '{kind}' is not supported.")
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY,
                GraphKeys.TABLE_INITIALIZERS):
        names += [item.name for item in graph.get_collection(key)]
    if main_op is not None:
        names.append(main_op.name)
    names += [tensor.name for tensor in assets]
    for var in variables.values():
        proto = var.to_proto()
        names += [proto.variable_name, proto.initializer_name, proto.snapshot_name]
    return sorted({name.split(":")[0].lstrip("^") for name in names if name})


def _tf_graph_def(graph, roots: list):
    """The subgraph ``roots`` need, in TF's form (UnimplementedError naming a node TF's
    form cannot hold)."""
    sub = extract_sub_graph(graph.as_graph_def(), roots)
    try:
        return to_tf_graph_def(sub)
    except UnimplementedError as e:
        raise UnimplementedError(f"SavedModelBuilder: the graph a SavedModel needs cannot "
                                 f"be written in TensorFlow's form: {e}", e.node_name) \
            from e


def _unused_scope(names: set, scope: str) -> str:
    """``scope``, or ``scope_1``... when nodes of the graph already live under it."""
    k, candidate = 0, scope
    while any(n == candidate or n.startswith(candidate + "/") for n in names):
        k += 1
        candidate = f"{scope}_{k}"
    return candidate


def _prune_collections(meta, in_graph: set) -> None:
    """Drop the collection items naming nodes the MetaGraphDef left out (TF's loader
    fails on them), and the collections left empty."""
    for key in list(meta.collection_def):
        collection = meta.collection_def[key]
        kind = collection.WhichOneof("kind")
        if kind == "node_list":
            kept = [n for n in collection.node_list.value
                    if n.split(":")[0].lstrip("^") in in_graph]
            items = CollectionDef(node_list=CollectionDef.NodeList(value=kept))
        elif kind == "bytes_list" and key in VARIABLE_COLLECTIONS:
            kept = [data for data in collection.bytes_list.value
                    if _variable_in(VariableDef.FromString(data), in_graph)]
            items = CollectionDef(bytes_list=CollectionDef.BytesList(value=kept))
        else:
            continue
        if kept:
            collection.CopyFrom(items)
        else:
            del meta.collection_def[key]


def _variable_in(variable_def, in_graph: set) -> bool:
    return all(name.split(":")[0] in in_graph for name in
               (variable_def.variable_name, variable_def.initializer_name,
                variable_def.snapshot_name) if name)


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
    value = np.asarray(tensor.op.attrs["value"])
    if value.size != 1:
        raise TypeError(f"Asset path tensor {tensor} must be a scalar.")
    path = value.reshape(-1)[0]
    path = os.fsdecode(path) if isinstance(path, bytes) else str(path)
    if not path:
        raise ValueError(f"Asset filepath tensor {tensor} in is invalid.")
    return path
