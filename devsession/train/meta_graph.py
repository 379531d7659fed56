"""MetaGraphs: a graph saved with what a program needs to use it without its Python code.

``export_meta_graph`` writes a ``MetaGraphDef`` (``proto/meta_graph.proto``, TF's field
numbers): the GraphDef, the Saver's ``SaverDef`` and the graph's collections.
``import_scoped_meta_graph`` rebuilds them in the default graph, and
``import_meta_graph`` (in ``saver.py``, as in TF1) returns a Saver for them, so TF1's
restore-without-the-model-code pattern works, with a ``.meta`` devsession or TensorFlow
wrote:

    saver = ds.train.import_meta_graph("/runs/model-100.meta")
    with ds.Session() as sess:
        saver.restore(sess, "/runs/model-100")
        logits = sess.graph.get_tensor_by_name("logits:0")

**Collections**, as TF1 writes them: a variable collection (``VARIABLE_COLLECTIONS``:
``variables``, ``trainable_variables``, ``global_step``...) as serialized ``VariableDef``s
in ``bytes_list``, queue runners (``queue_runners``) as serialized ``QueueRunnerDef``\\ s
there too (``QueueRunner.from_proto`` on import, so ``start_queue_runners`` starts them),
savers (``savers``) as their ``SaverDef``\\ s (skipped on import, TF's included);
Operations, Tensors and other Variables by name in ``node_list``; ints, floats and strings
in ``int64_list``, ``float_list``, ``bytes_list``.  Anything else is left out with a
warning, as TF1 does.  On import each ``VariableDef`` becomes one ``ds.Variable``
(``Variable.from_proto``; the same object in every collection that names it), so
``trainable_variables()``, optimizers and ``Saver()`` see the imported variables as if the
program had built them.

**The Saver's nodes are not imported.**  TF's Saver keeps its ops in the graph
(``save/SaveV2``, ``save/RestoreV2``, ``save/Assign_k``, ``save/restore_all``), and
devsession's keeps its own (placeholders feeding ``Assign``\\ s); neither runs as the
other's.  So the nodes of the SaverDef's scope (``save/``) that its restore op, save
tensor and filename tensor reach are dropped, as are the scopes of any other TF Saver
(a scope holding a ``SaveV2``/``RestoreV2``...), any node a kept node reads excepted.  A
fresh devsession Saver is built under the SaverDef's scope name, over the variables its
restore ops assigned, keyed as the checkpoint keys them: the names TF's ``RestoreV2``
lists (so a TF Saver built with a renamed ``var_list`` dict is followed), else the
variables' names.  Without a SaverDef the Saver covers every imported global variable;
with no variables ``import_meta_graph`` returns None, as TF1's.

TF2's Saver (a SavedModel's, ``tf.saved_model.save`` or Keras' ``model.save``) is two
function calls, its SaverDef's save tensor and restore op, fed the file name: those
calls are dropped, and the keys come from the restore function, whose
``AssignVariableOp``\\ s assign its arguments (the call's variables) the ``RestoreV2``
outputs (``layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE``...).  Such
variables are in no collection; each becomes a Variable for the rebuilt Saver only.

Errors: a missing file is ``NotFoundError``; a file that is not a MetaGraphDef (binary or
text format) ``DataLossError`` naming it; an op devsession lacks is
``import_graph_def``'s ``NotFoundError`` naming it, and the graph is left as it was.
"""

from __future__ import annotations

import logging
import numbers
from typing import NamedTuple

from ..errors import NotFoundError
from ..graph import Graph, Operation, Tensor, get_default_graph
from ..graph_codec import encode_attr
from ..graph_def import import_graph_def
from ..ops.registry import get_op_def
from ..proto import graph_pb2
from ..proto.meta_graph_pb2 import CollectionDef, MetaGraphDef, VariableDef
from ..proto.queue_runner_pb2 import QueueRunnerDef
from ..proto_files import read_message, write_message
from ..tensor_codec import proto_to_array
from ..variables import Variable
from .queue_runner import QueueRunner

__all__ = ["export_meta_graph", "import_scoped_meta_graph", "read_meta_graph_file",
           "ImportedMetaGraph", "VARIABLE_COLLECTIONS"]

log = logging.getLogger("devsession.train")

# TF1's collections whose items are VariableDefs (TF registers a proto function for each).
VARIABLE_COLLECTIONS = frozenset({
    "variables", "trainable_variables", "local_variables", "model_variables",
    "global_step", "moving_average_variables", "metric_variables",
})

# TF1's collections of other protos (SaverDef, control-flow contexts): devsession has no
# objects for them, so an import skips them with a warning.
_SKIPPED_PROTO_COLLECTIONS = frozenset({"savers", "cond_context", "while_context"})

# TF1's collection of QueueRunnerDefs (TF registers QueueRunner.to_proto/from_proto for it)
QUEUE_RUNNERS = "queue_runners"

# TF's checkpoint ops: a scope holding one is a TF Saver's.
_CHECKPOINT_OPS = frozenset({"SaveV2", "RestoreV2", "Save", "SaveSlices", "Restore",
                             "RestoreSlice", "MergeV2Checkpoints"})


# How a TF Saver's restore assigns a reference variable, and a resource variable.
_ASSIGN_OPS = frozenset({"Assign", "AssignVariableOp"})

# TF2's Saver: its save and restore ops are calls of functions (a SavedModel's)
_CALL_OPS = frozenset({"StatefulPartitionedCall", "PartitionedCall"})


# --- export --------------------------------------------------------------------------------

def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None,
                      collection_list=None, as_text=False, graph=None, export_scope=None,
                      clear_devices=False, clear_extraneous_savers=False,
                      strip_default_attrs=False, save_debug_info=False,
                      **kwargs) -> MetaGraphDef:
    """The MetaGraphDef of ``graph`` (default: the default graph) with ``saver_def`` and
    the collections in ``collection_list`` (default: all); written to ``filename`` when
    given (text format when ``as_text``).  As TF's, the graph is written with
    ``add_shapes=True`` (each node's ``_output_shapes``, which importing drops; a
    ``graph_def`` passed in is written as it is).  TF1's signature; ``export_scope`` is not
    supported (``NotImplementedError``), the debug-info flag changes nothing here.  With
    ``strip_default_attrs``, as TF's, the nodes leave out every attr holding its op's
    default value (an importer fills it back in) and ``meta_info_def`` says so."""
    del clear_extraneous_savers, save_debug_info, kwargs
    if export_scope is not None:
        raise NotImplementedError("export_meta_graph(export_scope=...) is not supported by "
                                  "devsession yet.")
    graph = graph or get_default_graph()
    meta = MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    meta.graph_def.CopyFrom(graph_def if graph_def is not None
                            else graph.as_graph_def(add_shapes=True))
    if clear_devices:
        for node in meta.graph_def.node:
            node.device = ""
    if strip_default_attrs:
        _strip_default_attrs(meta.graph_def)
        meta.meta_info_def.stripped_default_attrs = True
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    keys = graph.get_all_collection_keys() if collection_list is None else collection_list
    for key in keys:
        collection = _collection_def(key, graph.get_collection(key))
        if collection is not None:
            meta.collection_def[key].CopyFrom(collection)
    if filename is not None:
        write_message(filename, meta, as_text=as_text)
    return meta


def _strip_default_attrs(graph_def: graph_pb2.GraphDef) -> None:
    """Drop from ``graph_def``'s nodes the attrs equal to their op's default (TF's
    ``strip_graph_default_valued_attrs``); an op type devsession lacks keeps its attrs."""
    for node in graph_def.node:
        try:
            defaults = get_op_def(node.op).attr_defaults
        except NotFoundError:
            continue
        for key, value in defaults.items():
            if key in node.attr:
                default = graph_pb2.AttrValue()
                encode_attr(value, default)
                if node.attr[key] == default:
                    del node.attr[key]


def _collection_def(key: str, items: list) -> CollectionDef | None:
    """A collection as TF1 writes it, or None (with a warning) when its items have no
    MetaGraphDef form."""
    if not items:
        return None
    if key in VARIABLE_COLLECTIONS and all(isinstance(i, Variable) for i in items):
        return CollectionDef(bytes_list=CollectionDef.BytesList(
            value=[v.to_proto().SerializeToString() for v in items]))
    if key == "savers" and all(hasattr(i, "saver_def") for i in items):   # as TF1's
        return CollectionDef(bytes_list=CollectionDef.BytesList(
            value=[s.saver_def.SerializeToString() for s in items]))
    if key == QUEUE_RUNNERS and all(isinstance(i, QueueRunner) for i in items):
        return CollectionDef(bytes_list=CollectionDef.BytesList(
            value=[r.to_proto().SerializeToString() for r in items]))
    if all(isinstance(i, (Operation, Tensor, Variable)) for i in items):
        return CollectionDef(node_list=CollectionDef.NodeList(value=[i.name for i in items]))
    if all(isinstance(i, (str, bytes)) for i in items):
        return CollectionDef(bytes_list=CollectionDef.BytesList(
            value=[i.encode() if isinstance(i, str) else i for i in items]))
    if all(isinstance(i, numbers.Integral) for i in items):
        return CollectionDef(int64_list=CollectionDef.Int64List(value=[int(i) for i in items]))
    if all(isinstance(i, numbers.Real) for i in items):
        return CollectionDef(float_list=CollectionDef.FloatList(value=[float(i) for i in items]))
    log.warning("Collection '%s' is not saved in the MetaGraphDef: its items (%s) have "
                "no MetaGraphDef form.", key, type(items[0]).__name__)
    return None


# --- import --------------------------------------------------------------------------------

def read_meta_graph_file(filename) -> MetaGraphDef:
    """The MetaGraphDef in ``filename`` (binary or text format).  ``NotFoundError``,
    ``DataLossError``."""
    return read_message(filename, MetaGraphDef)


def import_scoped_meta_graph(meta: MetaGraphDef, graph: Graph | None = None,
                             clear_devices=False, import_scope=None,
                             input_map=None) -> "ImportedMetaGraph":
    """Import ``meta``'s graph (less its Saver's nodes) and collections into ``graph``
    (the default graph), nodes under ``import_scope/`` when given; returns what a Saver
    for it needs (``import_meta_graph``, in ``saver.py`` as in TF1, builds that Saver)."""
    graph = graph or get_default_graph()
    own_saver, saver_nodes = _saver_nodes(meta.graph_def, meta.saver_def)
    graph_def = graph_pb2.GraphDef()
    graph_def.CopyFrom(meta.graph_def)
    del graph_def.node[:]
    graph_def.node.extend(n for n in meta.graph_def.node if n.name not in saver_nodes)
    if clear_devices:
        for node in graph_def.node:
            node.device = ""
    import_graph_def(graph_def, input_map=input_map, name=import_scope or "", graph=graph)
    variables = _import_collections(meta, graph, import_scope, saver_nodes)
    return _saver_plan(meta, variables, own_saver, graph, import_scope)


class ImportedMetaGraph(NamedTuple):
    """What ``import_scoped_meta_graph`` imported, for the Saver rebuilt over it."""
    var_list: dict          # checkpoint key (the name in the MetaGraphDef) -> Variable
    saver_name: str         # the dropped Saver's scope ("save")
    saver_options: dict     # max_to_keep, keep_checkpoint_every_n_hours from the SaverDef


def _producer(text: str) -> str:
    """The node an input string ('^a', 'a', 'a:1') reads."""
    name = text[1:] if text.startswith("^") else text
    head, sep, tail = name.rpartition(":")
    return head if sep and tail.isdigit() else name


def _saver_nodes(graph_def, saver_def) -> tuple[set, set]:
    """(the nodes of the SaverDef's Saver, the nodes of every Saver): the names of the
    nodes to drop.  The SaverDef's: in its scope, reached through inputs from its restore
    op, save tensor or filename tensor.  Other TF Savers (a graph may have several): every
    node in a scope holding one of TF's checkpoint ops.  Any node a kept node reads stays,
    and what it reads."""
    nodes = {n.name: n for n in graph_def.node}
    roots = [_producer(n) for n in (saver_def.restore_op_name, saver_def.save_tensor_name,
                                    saver_def.filename_tensor_name) if n]
    own: set = set()
    if roots and roots[0] in nodes and nodes[roots[0]].op in _CALL_OPS:
        own = _ancestors(nodes, roots)          # TF2's: calls of its save and restore functions
    elif roots and "/" in roots[0]:
        scope = roots[0].rpartition("/")[0] + "/"
        stack = list(roots)
        while stack:
            name = stack.pop()
            if name in own or name not in nodes or not name.startswith(scope):
                continue
            own.add(name)
            stack.extend(_producer(i) for i in nodes[name].input)
    scopes = {n.name.rpartition("/")[0] + "/" for n in graph_def.node
              if n.op in _CHECKPOINT_OPS and "/" in n.name}
    found = own | {name for name in nodes if any(name.startswith(s) for s in scopes)}
    changed = True
    while changed:
        changed = False
        for node in graph_def.node:
            if node.name not in found:
                for text in node.input:
                    if _producer(text) in found:
                        found.discard(_producer(text))
                        changed = True
    return own & found, found


def _ancestors(nodes: dict, roots: list) -> set:
    """``roots`` and every node they read, directly or not."""
    found: set = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in found or name not in nodes:
            continue
        found.add(name)
        stack.extend(_producer(i) for i in nodes[name].input)
    return found


def _checkpoint_key(nodes: dict, assign) -> str:
    """The checkpoint key a Saver's ``Assign`` (``AssignVariableOp``) restores its
    variable from: the name TF's
    ``RestoreV2`` lists for it (a Saver built with a ``var_list`` dict renames), else the
    variable's name (devsession's Saver keys by the name)."""
    var_name = _producer(assign.input[0])
    source = assign.input[1] if len(assign.input) > 1 else ""
    restore = nodes.get(_producer(source))
    while restore is not None and restore.op == "Identity" and restore.input:
        source = restore.input[0]               # a resource variable's restore reads
        restore = nodes.get(_producer(source))  # RestoreV2 through an Identity
    if restore is None or restore.op != "RestoreV2" or len(restore.input) < 2:
        return var_name
    names = nodes.get(_producer(restore.input[1]))
    if names is None or names.op != "Const":
        return var_name
    _, colon, index = source.rpartition(":")
    keys = proto_to_array(names.attr["value"].tensor, names.name).reshape(-1)
    key = keys[int(index) if colon and index.isdigit() else 0]
    return key.decode() if isinstance(key, bytes) else str(key)


def _import_collections(meta, graph: Graph, import_scope, saver_nodes) -> dict:
    """Add the MetaGraphDef's collections to ``graph``; returns {variable name as in the
    MetaGraphDef ('w:0'): the imported Variable}."""
    prefix = f"{import_scope}/" if import_scope else ""
    variables: dict = {}
    for key in sorted(meta.collection_def):
        collection = meta.collection_def[key]
        kind = collection.WhichOneof("kind")
        if kind is None:
            continue
        values = list(getattr(collection, kind).value)
        if key in _SKIPPED_PROTO_COLLECTIONS:
            log.warning("Collection '%s' of the MetaGraphDef is not imported: devsession "
                        "has no objects for its protos.", key)
            continue
        if key in VARIABLE_COLLECTIONS and kind == "bytes_list":
            for data in values:
                variable_def = VariableDef.FromString(data)
                name = variable_def.variable_name
                if name not in variables:
                    variables[name] = Variable.from_proto(variable_def, import_scope, graph)
                graph.add_to_collection(key, variables[name])
        elif key == QUEUE_RUNNERS and kind == "bytes_list":
            with graph.as_default():
                for data in values:
                    graph.add_to_collection(key, QueueRunner.from_proto(
                        QueueRunnerDef.FromString(data), import_scope))
        elif kind == "node_list":
            for name in values:
                if _producer(name) in saver_nodes:
                    continue
                graph.add_to_collection(key, graph.as_graph_element(prefix + name))
        else:
            for value in values:
                graph.add_to_collection(key, value)
    return variables


def _saver_plan(meta, variables: dict, saver_nodes: set, graph: Graph,
                import_scope) -> ImportedMetaGraph:
    """The variables, name and options of the Saver that replaces the dropped one (see
    the module docstring)."""
    by_op_name = {name.rpartition(":")[0]: var for name, var in variables.items()}
    if saver_nodes:
        nodes = {n.name: n for n in meta.graph_def.node}
        restored = {_checkpoint_key(nodes, nodes[n]): _producer(nodes[n].input[0])
                    for n in sorted(saver_nodes) if nodes[n].op in _ASSIGN_OPS and nodes[n].input}
        restore = nodes.get(_producer(meta.saver_def.restore_op_name))
        if restore is not None and restore.op in _CALL_OPS:
            restored = _function_restores(meta.graph_def, restore)
            for name in sorted(set(restored.values()) - set(by_op_name)):
                by_op_name[name] = _restored_only_variable(graph, name, import_scope)
        missing = sorted(v for v in restored.values() if v not in by_op_name)
        if missing:
            log.warning("The Saver of the MetaGraphDef restores %s, which no variable "
                        "collection names; the rebuilt Saver leaves them out.",
                        ", ".join(missing))
        var_list = {key: by_op_name[v] for key, v in restored.items() if v in by_op_name}
        name = meta.saver_def.restore_op_name.rpartition("/")[0] or "save"
    else:
        global_names = {VariableDef.FromString(data).variable_name.rpartition(":")[0]
                        for data in _values(meta, "variables", "bytes_list")}
        var_list = {n: var for n, var in by_op_name.items() if n in global_names}
        name = "save"
    var_list = _with_parts_grouped(var_list, by_op_name)
    options = {}
    if meta.HasField("saver_def"):
        options["max_to_keep"] = meta.saver_def.max_to_keep
        if meta.saver_def.keep_checkpoint_every_n_hours:
            options["keep_checkpoint_every_n_hours"] = \
                meta.saver_def.keep_checkpoint_every_n_hours
    return ImportedMetaGraph(var_list, name, options)


def _with_parts_grouped(var_list: dict, by_op_name: dict) -> dict:
    """``var_list`` with the parts of each partitioned variable (those with a
    ``SaveSliceInfo``) as one entry, a list of all its parts, keyed by its full name (or
    by the name a TF Saver's ``RestoreV2`` gave it), as the Saver saves them."""
    parts: dict = {}
    for var in by_op_name.values():
        info = var._get_save_slice_info()
        if info is not None:
            parts.setdefault(info.full_name, []).append(var)
    grouped = {}
    for key, var in var_list.items():
        info = var._get_save_slice_info()
        if info is None:
            grouped[key] = var
        else:
            grouped[info.full_name if key == var.op.name else key] = parts[info.full_name]
    return grouped


def _function_restores(graph_def, call) -> dict:
    """{checkpoint key: variable node} of TF2's restore function that ``call`` calls:
    each ``AssignVariableOp`` of the function assigns an argument (the call's input, a
    variable of the graph) a ``RestoreV2`` output (through ``Identity``\\ s), whose key
    is that output's entry in the ``RestoreV2``'s ``tensor_names`` constant."""
    functions = {f.signature.name: f for f in graph_def.library.function}
    function = functions.get(call.attr["f"].func.name)
    if function is None:
        return {}
    outer = {arg.name: _producer(call.input[k])
             for k, arg in enumerate(function.signature.input_arg) if k < len(call.input)}
    body = {n.name: n for n in function.node_def}
    restored = {}
    for node in function.node_def:
        if node.op != "AssignVariableOp" or len(node.input) < 2 or node.input[0] not in outer:
            continue
        source = node.input[1]
        producer = body.get(source.split(":")[0])
        while producer is not None and producer.op == "Identity":
            source = producer.input[0]
            producer = body.get(source.split(":")[0])
        if producer is None or producer.op != "RestoreV2":
            continue
        names = body.get(producer.input[1].split(":")[0])
        if names is None or names.op != "Const":
            continue
        keys = proto_to_array(names.attr["value"].tensor, names.name).reshape(-1)
        key = keys[int(source.rpartition(":")[2])]
        restored[key.decode() if isinstance(key, bytes) else str(key)] = outer[node.input[0]]
    return restored


def _restored_only_variable(graph: Graph, name: str, import_scope) -> Variable:
    """A Variable over the imported node ``name`` that no collection lists (a TF2
    SavedModel's: its restore function is its only initializer), for the rebuilt Saver."""
    from ..graph import control_dependencies, name_scope
    from ..ops.state import no_op

    prefix = f"{import_scope}/" if import_scope else ""
    with graph.as_default(), control_dependencies(None), name_scope(None):
        initializer = no_op(name=f"{prefix}{name}/Initializer")
    return Variable.from_proto(VariableDef(variable_name=f"{name}:0", snapshot_name=f"{name}:0",
                                           initializer_name=initializer.name[len(prefix):]),
                               import_scope, graph)


def _values(meta, key: str, kind: str) -> list:
    collection = meta.collection_def.get(key)
    if collection is None or collection.WhichOneof("kind") != kind:
        return []
    return list(getattr(collection, kind).value)
