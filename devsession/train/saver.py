"""``ds.train.Saver``: checkpoints of variables, written atomically, restored by name.

Works for every session type through graph ops only: ``save`` fetches the variables'
values (``sess.run``), ``restore`` feeds them to placeholders that ``Assign`` ops read
(built once, when the Saver is made, under a ``save/`` name scope).  So a cluster
session saves and restores like a direct one, and a checkpoint written from one
restores into the other: variables are matched by name (their op name, ``w``,
``w/Adam``, ``global_step``...; or the keys of a ``var_list`` dict).

A partitioned variable (``partitioned_variables.py``) is saved as TF1 saves it, as one
tensor under its full name: its parts (``emb/part_0``..., and their optimizer slots
``emb/part_0/Adagrad``...: the variables with a ``SaveSliceInfo``) are grouped by that
name, their values joined at their offsets on save, and each restores its slice of the
stored tensor.  So a checkpoint restores into any partitioning of the same full shape,
or into an unpartitioned variable, and back; a TensorFlow checkpoint's sliced tensors
are read whole (``tf_checkpoint.py``).

Lookup tables made with ``checkpoint=True`` (``MutableHashTable``, ``DenseHashTable``)
are saved with the variables, as TF1's Saver saves the graph's ``SAVEABLE_OBJECTS``:
each as its export, under ``<name>-keys`` and ``<name>-values``, restored by the table's
import op (``lookup/saveable.py``).  A Saver without ``var_list`` saves them all; a
``var_list`` may list their saveables.

On disk, a checkpoint is a *prefix* ``P`` (what ``save`` returns, e.g.
``/runs/model-1000``) and two files:

* ``P.data-<digest>.npz``: numpy's ``.npz`` (an uncompressed zip of ``.npy`` arrays,
  each member CRC-32 checked when read), one member ``v<k>`` per variable, read with
  ``allow_pickle=False`` (a string tensor as fixed-width bytes, each string with one
  byte appended, so that trailing NULs survive: index dtype ``"string"``);
  ``<digest>`` is the first 16 hex digits of the file's SHA-256;
* ``P.index``: JSON, ``{"format": "devsession-checkpoint", "version": 1,
  "data": "<data file name>", "sha256": "<of the data file>", "variables":
  {"<name>": {"key": "v<k>", "dtype": "float32", "shape": [3, 2]}, ...}}``.

Next to them, the directory's ``checkpoint`` file (TF's text format) names the latest
checkpoint and the ones kept (``max_to_keep``), relative to the directory:
``model_checkpoint_path: "model-1000"`` then ``all_model_checkpoint_paths: "..."`` lines.

Crash safety: every file is written to a temporary file in the same directory, flushed
and fsync'ed, then moved into place with ``os.replace`` (and the directory fsync'ed).
The index is the commit point: a new data file has a new name, so until the new index
replaces the old one the previous checkpoint (index and data) is untouched; after, the
old data file is deleted.  A crash or a full disk mid-save therefore leaves the previous
checkpoint restorable (a failed save deletes its temporary file; ``ENOSPC`` is raised as
``ResourceExhaustedError``).

Restoring validates everything before assigning anything: a missing index is
``NotFoundError``; an unreadable index, a missing, truncated or altered data file, or an
array that is not what the index says is ``DataLossError``; a variable of the Saver that
the checkpoint lacks is ``NotFoundError`` naming it; a shape or dtype that differs from
the variable's is ``InvalidArgumentError``.

Beside them, ``save`` writes ``P.meta`` (unless ``write_meta_graph=False``): the graph's
MetaGraphDef, as TF1's Saver does, so that ``ds.train.import_meta_graph("P.meta")``
rebuilds the graph, its collections and this Saver in a program without the model's code
(``meta_graph.py``).  Its SaverDef names the restore op (``save/restore_all``); its
filename and save tensor names are empty, since devsession's Saver saves from Python.

    saver = ds.train.Saver()
    path = saver.save(sess, "/tmp/run/model", global_step=step)    # "/tmp/run/model-7"
    saver.restore(sess, ds.train.latest_checkpoint("/tmp/run"))
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import io
import json
import logging
import os
import re
import zipfile

import numpy as np

from .. import dtypes
from ..atomic_files import fsync_directory, write_atomically, write_temp
from ..errors import DataLossError, InvalidArgumentError, NotFoundError
from ..io.local_files import op_error
from .meta_graph import export_meta_graph, import_scoped_meta_graph, read_meta_graph_file
from .object_graph import OBJECT_GRAPH_KEY, full_name_keys
from .tf_checkpoint import TFCheckpoint, is_tf_checkpoint
from ..graph import control_dependencies, device, get_default_graph, name_scope
from ..graph_keys import GraphKeys
from ..ops.state import assign, group, placeholder
from ..proto.meta_graph_pb2 import MetaGraphDef, SaverDef
from ..variables import global_variables

__all__ = ["Saver", "latest_checkpoint", "get_checkpoint_state", "checkpoint_exists",
           "CheckpointState", "import_meta_graph"]

log = logging.getLogger("devsession.train")

FORMAT = "devsession-checkpoint"
VERSION = 1
STATE_FILE = "checkpoint"

CheckpointState = collections.namedtuple(
    "CheckpointState", ["model_checkpoint_path", "all_model_checkpoint_paths"])


class Saver:
    """Saves and restores variables (see the module docstring).

    ``var_list``: None (every global variable), a list of Variables and
    PartitionedVariables, or a dict ``{name in the checkpoint: Variable, PartitionedVariable
    or list of its parts}``.  ``max_to_keep``: how many recent
    checkpoints this Saver keeps (older ones it wrote are deleted; None or 0 keeps all).
    ``ValueError`` at construction when there is nothing to save or two variables share
    a name.
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False,
                 write_version=None, pad_step_number=False, save_relative_paths=False,
                 filename=None):
        var_list, self._tables = _split_tables(var_list)
        self._variables = _named_variables(var_list)
        if not self._variables and not self._tables and not allow_empty:
            raise ValueError("No variables to save.")
        self._max_to_keep = max_to_keep or 0
        self._keep_every_n_hours = keep_checkpoint_every_n_hours
        self._last_checkpoints: list[str] = []
        graph = (_parts(next(iter(self._variables.values())))[0].graph if self._variables
                 else self._tables[0].op.resource_handle.graph if self._tables
                 else get_default_graph())
        self._graph = graph
        self._feeds = {}          # name: [(placeholder, the part's slice or None)]
        with graph.as_default(), control_dependencies(None), name_scope(name or "save"):
            assigns = []
            for k, (key, var) in enumerate(sorted(self._variables.items())):
                self._feeds[key] = []
                for j, part in enumerate(_parts(var)):
                    suffix = f"{k}_{j}" if isinstance(var, list) else k
                    with device(None), device(part.device or None):
                        value = placeholder(part.dtype, part.shape,
                                            name=f"restore_value_{suffix}")
                        assigns.append(assign(part, value, name=f"restore_{suffix}"))
                    self._feeds[key].append((value, _slice_of(part) if isinstance(var, list)
                                             else None))
            for k, table in enumerate(self._tables):
                with device(None), device(table.device or None):
                    values = [placeholder(t.dtype, None, name=f"restore_table_{k}_{j}")
                              for j, (_, t) in enumerate(table.specs)]
                assigns.append(table.restore(values))
                for (key, _), value in zip(table.specs, values):
                    self._feeds[key] = [(value, None)]
            self._restore_op = group(*assigns, name="restore_all") if assigns else None

    @property
    def last_checkpoints(self) -> list:
        """The checkpoints this Saver wrote and keeps, oldest first."""
        return list(self._last_checkpoints)

    def recover_last_checkpoints(self, checkpoint_paths) -> None:
        """Take ``checkpoint_paths`` (oldest first; those still on disk) as this Saver's
        own, so ``max_to_keep`` goes on deleting them: a restarted job continues the
        last one's checkpoints, as TF1's."""
        self._last_checkpoints = [os.fspath(p) for p in checkpoint_paths
                                  if checkpoint_exists(os.fspath(p))]

    @property
    def saver_def(self) -> SaverDef:
        """This Saver as TF1's SaverDef (what a ``.meta`` records; see the module
        docstring)."""
        return SaverDef(restore_op_name=self._restore_op.name if self._restore_op else "",
                        max_to_keep=self._max_to_keep,
                        keep_checkpoint_every_n_hours=self._keep_every_n_hours,
                        version=SaverDef.V2)

    def as_saver_def(self) -> SaverDef:
        return self.saver_def

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False,
                          export_scope=None, clear_devices=False,
                          clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        """The MetaGraphDef of this Saver's graph with its SaverDef, written to
        ``filename`` when given (``ds.train.export_meta_graph``)."""
        return export_meta_graph(filename=filename, graph=self._graph,
                                 saver_def=self.saver_def, collection_list=collection_list,
                                 as_text=as_text, export_scope=export_scope,
                                 clear_devices=clear_devices,
                                 strip_default_attrs=strip_default_attrs)

    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False) -> str:
        """Write the variables' current values; returns the checkpoint's prefix
        (``save_path``, with ``-<global_step>`` when given: an int, or a variable or
        tensor holding it).  A missing directory is made if its parent exists (as TF),
        else ``ValueError``; I/O
        failures as ``ds.errors`` (a full disk: ``ResourceExhaustedError``).  With
        ``write_meta_graph``, also writes ``<prefix>.<meta_graph_suffix>``, the graph's
        MetaGraphDef."""
        save_path = os.fspath(save_path)
        if global_step is not None:
            step = global_step if isinstance(global_step, (int, np.integer)) \
                else sess.run(global_step)
            save_path = f"{save_path}-{int(step)}"
        directory = os.path.dirname(os.path.abspath(save_path))
        if not os.path.isdir(directory):
            if not os.path.isdir(os.path.dirname(directory)):
                raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
            os.makedirs(directory, exist_ok=True)     # one level, as TF's bundle writer
        names = sorted(self._variables)
        specs = [spec for table in self._tables for spec in table.specs]
        values, table_values = sess.run(
            [[[v.value() for v in _parts(self._variables[n])] for n in names],
             [tensor for _, tensor in specs]])
        values = [_joined(self._variables[n], parts) for n, parts in zip(names, values)]
        saved = dict(zip(names, values))
        saved.update((name, value) for (name, _), value in zip(specs, table_values))
        with _as_op_errors(save_path):
            _write_checkpoint(save_path, saved)
            if write_meta_graph:
                self._write_meta_graph(f"{save_path}.{meta_graph_suffix}",
                                       strip_default_attrs)
            if write_state:
                self._remember(save_path, meta_graph_suffix)
                _write_state(directory, save_path, self._last_checkpoints or [save_path],
                             latest_filename or STATE_FILE)
        return save_path

    def restore(self, sess, save_path) -> None:
        """Set every variable of this Saver from checkpoint ``save_path``: all checked
        first (see the module docstring for the errors), then assigned in one run."""
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if not os.path.exists(_index_path(save_path.removesuffix(".index"))):
            raise InvalidSavePathError(f"The passed save_path is not a valid checkpoint: "
                                       f"{save_path}")
        arrays = _read_checkpoint(save_path, self._variables)
        arrays.update(_read_tables(save_path, self._tables))
        if self._restore_op is not None:
            sess.run(self._restore_op, {
                value: arrays[k] if where is None else arrays[k][where]
                for k, feeds in self._feeds.items() for value, where in feeds})

    def _write_meta_graph(self, path: str, strip_default_attrs: bool = False) -> None:
        """The ``.meta`` beside a checkpoint; a graph with an attr no GraphDef can hold
        (a Python function of ``py_func``) gets none, with a warning, so that saving the
        variables never fails for it."""
        try:
            self.export_meta_graph(path, strip_default_attrs=strip_default_attrs)
        except TypeError as e:
            log.warning("Saver: no MetaGraph written to %s: %s", path, e)

    def _remember(self, path: str, meta_graph_suffix: str) -> None:
        """Keep ``path``; delete the checkpoints past ``max_to_keep``, with their meta
        graph of this save's suffix (as TF's ``_MaybeDeleteOldCheckpoints``).  With no
        ``max_to_keep`` (None or 0) nothing is tracked or deleted, as TF's: the state
        file then lists the latest only."""
        if not self._max_to_keep:
            return
        if path in self._last_checkpoints:
            self._last_checkpoints.remove(path)
        self._last_checkpoints.append(path)
        while self._max_to_keep and len(self._last_checkpoints) > self._max_to_keep:
            _delete_checkpoint(self._last_checkpoints.pop(0), meta_graph_suffix)


class InvalidSavePathError(NotFoundError, ValueError):
    """``Saver.restore`` of a path with no checkpoint: TF's ValueError, and devsession's
    NotFoundError (either ``except`` catches it)."""


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None,
                      input_map=None, **kwargs):
    """TF1's ``tf.train.import_meta_graph``: a MetaGraphDef (or its ``.meta`` file, binary
    or text) imported into the default graph (nodes, collections, variables:
    ``meta_graph.py``), and a Saver over its variables returned (None when it has none).
    ``NotFoundError`` for a missing file, ``DataLossError`` for one that is not a
    MetaGraphDef; ``import_graph_def``'s errors for a graph devsession cannot run."""
    del kwargs
    meta = meta_graph_or_file if isinstance(meta_graph_or_file, MetaGraphDef) \
        else read_meta_graph_file(meta_graph_or_file)
    imported = import_scoped_meta_graph(meta, clear_devices=clear_devices,
                                        import_scope=import_scope, input_map=input_map)
    if not imported.var_list:
        return None
    with name_scope(import_scope) if import_scope else contextlib.nullcontext():
        return Saver(imported.var_list, name=imported.saver_name, **imported.saver_options)


def _split_tables(var_list):
    """(the variables of ``var_list``, the lookup tables' saveables to save with them):
    with no ``var_list``, the graph's ``SAVEABLE_OBJECTS``, as TF1's; ValueError for two
    entries of one name."""
    if var_list is None:
        tables = get_default_graph().get_collection(GraphKeys.SAVEABLE_OBJECTS)
    elif isinstance(var_list, (list, tuple)):
        tables = [v for v in var_list if _is_table(v)]
        var_list = [v for v in var_list if not _is_table(v)]
    else:
        tables = []
    seen = set()
    for name in [name for table in tables for name, _ in table.specs]:
        if name in seen:
            raise ValueError(f"At least two variables have the same name: {name}")
        seen.add(name)
    return var_list, tables


def _is_table(item) -> bool:
    return hasattr(item, "specs") and hasattr(item, "restore")


def _named_variables(var_list) -> dict:
    """{name in the checkpoint: a Variable, or the parts of a partitioned variable (a
    list)}, as TF1's ``op_list_to_dict``."""
    if var_list is None:
        var_list = global_variables()
    if isinstance(var_list, dict):
        named = {name: list(var) if _is_partitioned(var) or isinstance(var, (list, tuple))
                 else var for name, var in var_list.items()}
    else:
        named = {}
        for var in var_list:
            if _is_partitioned(var):
                name, entry = var.name, list(var)
            elif getattr(var, "_save_slice_info", None) is not None:
                name = var._save_slice_info.full_name
                if name in named and not isinstance(named[name], list):
                    raise ValueError(f"Mixing slices and non-slices with the same name: "
                                     f"{name}")
                named.setdefault(name, []).append(var)
                continue
            else:
                name, entry = var.op.name, var
            if name in named:
                raise ValueError(f"At least two variables have the same name: {name}")
            named[name] = entry
    saved = set()
    for name, var in named.items():
        for part in _parts(var):
            if not hasattr(part, "_ref"):
                raise TypeError(f"Saver saves ds.Variable objects; '{name}' is {part!r}.")
            if part.op.name in saved:    # {"a": v, "b": v}: which would restore it?
                raise ValueError(f"The same saveable will be restored with two names: "
                                 f"{name}")
            saved.add(part.op.name)
            if isinstance(var, list) and part._save_slice_info is None:
                raise ValueError(f"'{name}' lists {part.op.name}, which is not a part of a "
                                 f"partitioned variable.")
    return named


def _is_partitioned(var) -> bool:
    return hasattr(var, "_get_variable_list")


def _parts(var) -> list:
    return var if isinstance(var, list) else [var]


def _slice_of(part) -> tuple:
    """The index of ``part``'s values in the full tensor."""
    info = part._save_slice_info
    return tuple(slice(o, o + n) for o, n in zip(info.var_offset, info.var_shape))


def _joined(var, values) -> np.ndarray:
    """A variable's value, or the full tensor its parts' ``values`` make (ValueError
    unless they cover it)."""
    if not isinstance(var, list):
        return values[0]
    info = var[0]._save_slice_info
    full = np.zeros(info.full_shape, np.asarray(values[0]).dtype)
    covered = np.zeros(info.full_shape, bool)
    for part, value in zip(var, values):
        full[_slice_of(part)] = value
        covered[_slice_of(part)] = True
    if not covered.all():
        raise ValueError(f"Saver: the parts of '{info.full_name}' it was given do not cover "
                         f"its full shape {info.full_shape}; save them all.")
    return full


# --- files -------------------------------------------------------------------------------------

def _index_path(prefix: str) -> str:
    return prefix + ".index"


def _write_checkpoint(prefix: str, values: dict) -> None:
    """The data file, then the index that commits it, then the old data file goes."""
    directory = os.path.dirname(os.path.abspath(prefix))
    keys = {name: f"v{k}" for k, name in enumerate(values)}
    entries = {name: {"key": keys[name], "dtype": _dtype_name(v),
                      "shape": list(np.shape(v))} for name, v in values.items()}
    tmp = write_temp(directory, os.path.basename(prefix),
                      lambda f: _write_npz(f, {keys[n]: _storable(v) for n, v in values.items()}))
    try:
        digest = _sha256(tmp)
        data_name = f"{os.path.basename(prefix)}.data-{digest[:16]}.npz"
        os.replace(tmp, os.path.join(directory, data_name))
    except BaseException:
        _remove(tmp)
        raise
    fsync_directory(directory)       # the data's name is durable before an index names it
    previous = _data_file_of(prefix)
    replaces_previous = previous is not None and os.path.basename(previous) != data_name
    index = {"format": FORMAT, "version": VERSION, "data": data_name, "sha256": digest,
             "variables": entries}
    try:
        write_atomically(_index_path(prefix), lambda f: f.write(
            json.dumps(index, indent=1, sort_keys=True).encode()))
    except BaseException:
        if replaces_previous or previous is None:     # not committed: nothing names it
            _remove(os.path.join(directory, data_name))
        raise
    if replaces_previous:
        _remove(previous)


def _dtype_name(value) -> str:
    return "string" if np.asarray(value).dtype == object else np.dtype(value.dtype).name


def _storable(value) -> np.ndarray:
    """``value`` as the npz holds it: a string tensor as fixed-width bytes, each string
    ending in one byte more (``_STRING_END``), since numpy drops bytes strings' trailing
    NULs."""
    value = np.asarray(value)
    if value.dtype != object:
        return value
    return np.array([s + _STRING_END for s in value.reshape(-1).tolist()],
                    dtype=bytes).reshape(value.shape)


_STRING_END = b"."


def _write_npz(fileobj, arrays: dict) -> None:
    """The one place array bytes are written (tests make it fail halfway)."""
    np.savez(fileobj, **arrays)


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def _as_op_errors(path: str):
    """OSErrors while writing checkpoint ``path`` as the ``ds.errors`` class TF's file
    system gives for their errno (``io/local_files.op_error``)."""
    try:
        yield
    except OSError as e:
        raise op_error(e, e.filename or path, f"writing checkpoint {path}") from e


def _delete_checkpoint(prefix: str, meta_graph_suffix: str = "meta") -> None:
    data = _data_file_of(prefix)
    _remove(_index_path(prefix))
    _remove(f"{prefix}.{meta_graph_suffix}")
    if data is not None:
        _remove(data)


def _data_file_of(prefix: str) -> str | None:
    """The data file the index of ``prefix`` names, if it has a readable one."""
    try:
        with open(_index_path(prefix), "rb") as f:
            name = json.loads(f.read())["data"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return os.path.join(os.path.dirname(os.path.abspath(prefix)), os.path.basename(name))


# --- reading -----------------------------------------------------------------------------------

def _read_checkpoint(prefix: str, variables: dict) -> dict:
    """{name: array} for every variable, all checked; raises before anything is assigned.
    Reads devsession's checkpoints and TensorFlow's (``tf_checkpoint.py``)."""
    checkpoint = open_checkpoint(prefix)
    stored = set(checkpoint.names())
    keys = {name: name for name in variables}
    if any(name not in stored for name in variables) and OBJECT_GRAPH_KEY in stored:
        # an object-based checkpoint (tf.train.Checkpoint's): TF1's Saver falls back to
        # the keys its object graph gives each variable's full name, with this warning
        log.warning("Restoring an object-based checkpoint using a name-based saver. This "
                    "may be somewhat fragile, and will re-build the Saver. Instead, consider "
                    "loading object-based checkpoints using tf.train.Checkpoint().")
        by_full_name = full_name_keys(checkpoint)
        keys = {name: by_full_name.get(name, name) for name in variables}
    _check_present(checkpoint.prefix, {name: var for name, var in variables.items()
                                       if keys[name] not in stored}, set())
    return {name: _fits_variable(checkpoint.prefix, name, checkpoint.tensor(keys[name]), var)
            for name, var in variables.items()}


def open_checkpoint(prefix: str):
    """The checkpoint at ``prefix`` (devsession's or TensorFlow's), its data checked:
    ``names()``, ``shape(name)``, ``dtype(name)``, ``tensor(name)``."""
    prefix = os.fspath(prefix)
    if prefix.endswith(".index"):
        prefix = prefix[:-len(".index")]
    if is_tf_checkpoint(prefix):
        return TFCheckpoint(prefix)
    return _Checkpoint(prefix)


class _Checkpoint:
    """A devsession checkpoint: its index read and its data file's SHA-256 checked."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self._index = _read_index(prefix)
        self._data_path = os.path.join(os.path.dirname(os.path.abspath(prefix)),
                                       os.path.basename(self._index["data"]))
        try:
            with open(self._data_path, "rb") as f:
                self._raw = f.read()
        except FileNotFoundError:
            raise DataLossError(f"Checkpoint {prefix}: its data file {self._data_path} is "
                                f"missing.") from None
        self._npz = None            # the .npz, opened on the first read
        if hashlib.sha256(self._raw).hexdigest() != self._index["sha256"]:
            raise DataLossError(f"Checkpoint {prefix}: data file {self._data_path} is "
                                f"corrupt or truncated (its SHA-256 differs from the "
                                f"index's).")

    def names(self) -> list:
        return sorted(self._index["variables"])

    def shape(self, name: str) -> list:
        return list(self._entry(name)["shape"])

    def dtype(self, name: str) -> dtypes.DType:
        return dtypes.as_dtype(self._entry(name)["dtype"])

    def tensor(self, name: str) -> np.ndarray:
        entry = self._entry(name)
        try:
            if self._npz is None:
                self._npz = np.load(io.BytesIO(self._raw), allow_pickle=False)
            array = self._npz[entry["key"]]
        except (KeyError, ValueError, OSError, zipfile.BadZipFile, EOFError) as e:
            raise DataLossError(f"Checkpoint {self.prefix}: cannot read its data file "
                                f"{self._data_path}: {type(e).__name__}: {e}") from e
        if entry.get("dtype") == "string" and array.dtype.kind == "S":
            array = _strings_of(array)
        if _dtype_name(array) != entry.get("dtype") or list(array.shape) != entry.get("shape"):
            raise DataLossError(f"Checkpoint {self.prefix}: '{name}' is {array.dtype} "
                                f"{array.shape} in the data file but {entry.get('dtype')} "
                                f"{entry.get('shape')} in the index.")
        return array

    def _entry(self, name: str) -> dict:
        try:
            return self._index["variables"][name]
        except KeyError:
            raise NotFoundError(f"Key {name} not found in checkpoint {self.prefix}.") \
                from None


def _read_tables(prefix: str, tables: list) -> dict:
    """{checkpoint name: array} of the tables' entries; NotFoundError for a missing one,
    InvalidArgumentError for one of another dtype than the table's."""
    specs = {name: tensor for table in tables for name, tensor in table.specs}
    if not specs:
        return {}
    checkpoint = open_checkpoint(prefix)
    _check_present(checkpoint.prefix, specs, set(checkpoint.names()))
    arrays = {name: checkpoint.tensor(name) for name in specs}
    for name, array in arrays.items():
        stored = dtypes.string if array.dtype == object else dtypes.as_dtype(array.dtype)
        if stored != specs[name].dtype:
            raise InvalidArgumentError(f"Checkpoint {prefix}: '{name}' is {stored.name}, but "
                                       f"the table saves {specs[name].dtype.name}.")
    return arrays


def _strings_of(array: np.ndarray) -> np.ndarray:
    """The string tensor ``_storable`` stored as ``array``."""
    out = np.empty(array.shape, dtype=object)
    out.reshape(-1)[:] = [s[:-len(_STRING_END)] for s in array.reshape(-1).tolist()]
    return out


def _check_present(prefix: str, variables: dict, stored) -> None:
    missing = [name for name in variables if name not in stored]
    if missing:
        raise NotFoundError(f"Key {missing[0]} not found in checkpoint {prefix} (missing: "
                            f"{', '.join(sorted(missing))}).")


def _read_index(prefix: str) -> dict:
    path = _index_path(prefix)
    try:
        with open(path, "rb") as f:
            index = json.loads(f.read())
    except FileNotFoundError:
        raise NotFoundError(f"Checkpoint {prefix} not found: no file {path}.") from None
    except (OSError, ValueError) as e:
        raise DataLossError(f"Checkpoint index {path} is unreadable: {e}") from e
    ok = (isinstance(index, dict) and index.get("format") == FORMAT
          and isinstance(index.get("data"), str) and isinstance(index.get("sha256"), str)
          and isinstance(index.get("variables"), dict))
    if not ok:
        raise DataLossError(f"{path} is not a devsession checkpoint index.")
    if index.get("version") != VERSION:
        raise DataLossError(f"{path} has checkpoint format version {index.get('version')}; "
                            f"this devsession reads version {VERSION}.")
    return index


def _fits_variable(prefix, name, array, var) -> np.ndarray:
    """``array`` if variable ``var`` (or the partitioned variable of those parts) can
    take it, else InvalidArgumentError."""
    if isinstance(var, list):
        info = var[0]._save_slice_info
        if dtypes.as_dtype(array.dtype) != var[0].dtype or \
                list(array.shape) != info.full_shape:
            raise InvalidArgumentError(
                f"Checkpoint {prefix}: '{name}' is {array.dtype} {list(array.shape)}, but "
                f"partitioned variable '{info.full_name}' is {var[0].dtype.name} "
                f"{info.full_shape}.")
        return array
    if dtypes.as_dtype(array.dtype) != var.dtype:
        raise InvalidArgumentError(f"Checkpoint {prefix}: '{name}' is {array.dtype}, but "
                                   f"variable '{var.op.name}' is {var.dtype.name}.")
    if not var.shape.is_compatible_with(array.shape):
        raise InvalidArgumentError(f"Checkpoint {prefix}: '{name}' has shape "
                                   f"{list(array.shape)}, but variable '{var.op.name}' has "
                                   f"shape {var.shape}.")
    return array


# --- the "checkpoint" state file ----------------------------------------------------------------

def _write_state(directory: str, latest: str, kept: list, filename: str) -> None:
    def rel(path):
        path = os.path.abspath(path)
        return os.path.relpath(path, directory) if os.path.dirname(path) == directory else path

    lines = [f"model_checkpoint_path: {json.dumps(rel(latest))}"]
    lines += [f"all_model_checkpoint_paths: {json.dumps(rel(p))}" for p in kept]
    text = "\n".join(lines) + "\n"
    write_atomically(os.path.join(directory, filename), lambda f: f.write(text.encode()))


_STATE_LINE = re.compile(r'^\s*(\w+)\s*:\s*(".*")\s*$')


def get_checkpoint_state(checkpoint_dir, latest_filename=None) -> CheckpointState | None:
    """The directory's ``checkpoint`` file (paths made absolute), or None if absent."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = os.path.join(checkpoint_dir, latest_filename or STATE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    latest, kept = None, []
    for line in text.splitlines():
        match = _STATE_LINE.match(line)
        if not match:
            continue
        try:
            value = json.loads(match.group(2))
        except ValueError:
            continue
        value = value if os.path.isabs(value) else os.path.join(checkpoint_dir, value)
        if match.group(1) == "model_checkpoint_path":
            latest = value
        elif match.group(1) == "all_model_checkpoint_paths":
            kept.append(value)
    if latest is None:
        return None
    return CheckpointState(latest, kept)


def latest_checkpoint(checkpoint_dir, latest_filename=None) -> str | None:
    """The prefix of the latest checkpoint in ``checkpoint_dir``, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not checkpoint_exists(state.model_checkpoint_path):
        return None
    return state.model_checkpoint_path


def checkpoint_exists(checkpoint_prefix) -> bool:
    return os.path.exists(_index_path(os.fspath(checkpoint_prefix)))
