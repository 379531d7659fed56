"""TensorFlow 2's functional control flow in a GraphDef -> devsession's If and While, before
import.

TensorFlow 2 writes ``tf.cond`` and ``tf.while_loop`` (in ``tf.compat.v1`` graphs too,
unless a program disables control flow v2) as one node each, ``If``/``StatelessIf``
(``then_branch``, ``else_branch``) or ``While``/``StatelessWhile`` (``cond``, ``body``),
whose func attrs name functions of the GraphDef's library.  A ``FunctionDef`` is a small
graph of its own: its nodes read the function's arguments by name and each other's
outputs as ``"node:output_arg:k"`` (the k-th tensor of the op's output argument of that
name), and ``ret`` says which tensor each output argument returns.

``functionalize_functions`` gives each such node the plan the TF1 passes give a TF1 cond
or loop (``tf_cond_import.CondPlan``, ``tf_while_import.WhilePlan``), so the same
builders make devsession's If and While from it:

* each function becomes a ``FunctionPart``: its nodes as a GraphDef whose inputs are
  GraphDef inputs (``"node:out:k"`` -> ``"node:<flat index>"``, the index worked out from
  the op's output arguments in TF's signature table, ``tf_signatures.py``), each argument
  a key read from outside; nested If and While nodes get their plans in turn;
* an ``If``'s arguments are the tensors it passes (the node's inputs after the
  predicate), read as captures; its branches are (else, then) as a TF1 cond's
  (false, true);
* a ``While``'s arguments are its loop variables (TF 2 passes every tensor its functions
  read as one), but for a variable's handle (``DT_RESOURCE``), which its body returns
  unchanged: the functions read that as the variable itself, captured
  (``_carried_variables``), so a body assigns it;
* TensorLists (``variant`` arguments and results: TF 2's TensorArrays) are split first
  (``tf_tensor_list_import.py``), in the graph and in each function, the lengths of
  each list after the other arguments and results, so the node and its functions agree;
* a cond's gradient reads the intermediates of the branch that ran through Optionals
  (also ``variant``s): each is the one tensor it holds (``_unwrap_optionals``);
* a loop readied for a gradient pushes its intermediates onto lists; where nothing
  outside the loop reads such a list, the push is skipped (``_skip_unread_accumulators``).

The node keeps its name and inputs and becomes the plan's node type, so its outputs
resolve as TF's did.  A node calling a function directly (``PartitionedCall``,
``StatefulPartitionedCall``: a ``tf.function`` called in a graph) is inlined first
(``inline_calls``, which the importer runs before its other passes, so a variable passed
to the call is read by the inlined nodes as any other).  Refused with
``UnimplementedError`` naming the node: a function the library lacks.  A
GraphDef without functional nodes is returned as it is.
"""

from __future__ import annotations

import contextvars

import numpy as np

from .errors import InvalidArgumentError, UnimplementedError
from .proto import graph_pb2
from .tensor_codec import array_to_proto, dtype_from_enum
from .tf_cond_import import COND_OP, CondPlan
from .tf_graph_passes import FUNCTIONAL_IFS, FunctionPart, cut_function, is_tfs_functional, \
    unique_name, with_inputs, with_nodes
from .tf_signatures import tf_signature
from .tf_tensor_list_import import DT_VARIANT, LIST_OP_SIGNATURES, split_tensor_lists

DT_RESOURCE = graph_pb2.DT_RESOURCE
from .tf_while_import import WHILE_OP, WhilePlan

__all__ = ["functionalize_functions", "inline_calls"]

_CALLS = ("PartitionedCall", "StatefulPartitionedCall")
# the functions whose parts are being made, outermost first: one holding itself recurses
_EXPANDING: contextvars.ContextVar = contextvars.ContextVar("expanding", default=frozenset())


def functionalize_functions(graph_def: graph_pb2.GraphDef, library: dict | None = None,
                            lists: dict | None = None):
    """(GraphDef, {node name: plan}, Wiring): ``graph_def`` with its TensorLists split
    (``tf_tensor_list_import``: their ops' plans, and where each list went) and TF's
    functional If and While nodes standing for their plans.  ``library``: function name
    -> FunctionDef (default: ``graph_def``'s own); ``lists``: the list arguments of the
    function ``graph_def`` is the body of."""
    if library is None:
        library = {f.signature.name: f for f in graph_def.library.function}
    graph_def = inline_calls(graph_def, library)
    optional = {node.name: _optional_results(node, library) for node in graph_def.node
                if node.op in FUNCTIONAL_IFS and is_tfs_functional(node)}
    graph_def, plans, wiring = split_tensor_lists(graph_def, lists, optional)
    if not any(is_tfs_functional(node) for node in graph_def.node):
        return graph_def, plans, wiring
    nodes, read = [], _read_outputs(graph_def)
    for node in graph_def.node:
        if not is_tfs_functional(node):
            nodes.append(node)
            continue
        data = [t for t in node.input if not t.startswith("^")]
        list_args, list_results = wiring.functional.get(node.name, ((), ()))
        if node.op in FUNCTIONAL_IFS:
            arity = len(data) - 1 - len(list_args)
            branches = tuple(_part(node, library, key, "data", arity, list_args, list_results,
                                   optional[node.name])
                             for key in ("else_branch", "then_branch"))
            plans[node.name] = CondPlan(node.name, branches, [])
            op = COND_OP
        else:
            arity = len(data) - len(list_args)
            signature = _function(node, library, "body").signature
            arguments = signature.input_arg
            if len(arguments) != arity:
                raise InvalidArgumentError(
                    f"Node '{node.name}' ({node.op}) passes {arity} tensors to its body "
                    f"'{signature.name}', which takes {len(arguments)}.", node.name)
            if len(signature.output_arg) != arity or \
                    len(_function(node, library, "cond").signature.output_arg) != 1:
                raise InvalidArgumentError(
                    f"Node '{node.name}' ({node.op}): its body must return its {arity} loop "
                    f"variables and its cond one predicate.", node.name)
            variables = _carried_variables(node, library)
            cond = _part(node, library, "cond", "arg", arity, list_args, (),
                         variables=variables)
            unread = {k for k in range(arity) if k not in read.get(node.name, ())}
            body = _part(node, library, "body", "arg", arity, list_args, list_results,
                         unread=unread, variables=variables)
            names = [a.name for a in arguments] + \
                [f"{arguments[k].name}_lengths" for k in list_args]
            iterations = node.attr["parallel_iterations"].i \
                if "parallel_iterations" in node.attr else 10
            plans[node.name] = WhilePlan(node.name, len(data), cond, body, names, iterations)
            op = WHILE_OP
            # the variables again, after the loop variables: what the functions capture
            node = with_inputs(node, data + [data[k] for k in variables] +
                                [t for t in node.input if t.startswith("^")])
        nodes.append(graph_pb2.NodeDef(name=node.name, op=op, input=node.input,
                                       device=node.device))
    return with_nodes(graph_def, nodes), plans, wiring


def inline_calls(graph_def: graph_pb2.GraphDef, library: dict | None = None):
    """``graph_def`` with each call of a TF function (``PartitionedCall``,
    ``StatefulPartitionedCall``) replaced by the function's nodes, named
    ``<call>/<node>`` and reading the call's inputs, and an ``IdentityN`` of its results
    under the call's name (waiting for its ``control_ret`` nodes), so the call's outputs
    resolve as TF's did.  Calls in the inlined nodes are inlined in turn."""
    if library is None:
        library = {f.signature.name: f for f in graph_def.library.function}
    for _ in range(len(library) + 1):          # one level of nesting per round
        if not any(node.op in _CALLS for node in graph_def.node):
            return _without_uncalled_functions(graph_def)
        nodes = []
        for node in graph_def.node:
            nodes += _inlined(node, _function(node, library, "f")) if node.op in _CALLS \
                else [node]
        graph_def = with_nodes(graph_def, nodes)
    raise UnimplementedError("The GraphDef's functions call each other recursively; "
                             "devsession inlines function calls, which recursion defeats.")


def _without_uncalled_functions(graph_def):
    """``graph_def`` less the library's functions that no node calls, directly or through
    another function (If/While branches and bodies are calls too): those inlined, and
    those a TF2 SavedModel carries for its Python objects only (every traced variant of
    a layer, ``..._layer_call_fn``), which later passes need not understand."""
    functions = {f.signature.name: f for f in graph_def.library.function}
    called: set = set()
    stack = list(graph_def.node)
    while stack:
        for attr in stack.pop().attr.values():
            for name in [attr.func.name] + [f.name for f in attr.list.func]:
                if name in functions and name not in called:
                    called.add(name)
                    stack.extend(functions[name].node_def)
    if len(called) == len(functions):
        return graph_def
    pruned = graph_pb2.GraphDef()
    pruned.CopyFrom(graph_def)
    del pruned.library.function[:]
    pruned.library.function.extend(f for f in graph_def.library.function
                                   if f.signature.name in called)
    return pruned


def _inlined(call, function) -> list:
    data = [t for t in call.input if not t.startswith("^")]
    controls = [t for t in call.input if t.startswith("^")]
    arguments = function.signature.input_arg
    if len(data) != len(arguments):
        raise InvalidArgumentError(
            f"Node '{call.name}' ({call.op}) passes {len(data)} tensors to the function "
            f"'{function.signature.name}', which takes {len(arguments)}.", call.name)
    args = {a.name: text for a, text in zip(arguments, data)}
    nodes = {n.name: n for n in function.node_def}
    prefix = f"{call.name}/"

    def outer(text: str) -> str:
        if text.startswith("^"):
            return f"^{prefix}{text[1:]}"
        if text in args:
            return args[text]
        producer, argument, k = text.split(":")
        return f"{prefix}{producer}:{_flat_index(nodes.get(producer), argument, int(k), text)}"

    out = []
    for node in function.node_def:
        copy = graph_pb2.NodeDef()
        copy.CopyFrom(node)
        copy.name = prefix + node.name
        del copy.input[:]
        copy.input.extend([outer(t) for t in node.input] + controls)
        copy.device = copy.device or call.device
        out.append(copy)
    results = graph_pb2.NodeDef(name=call.name, op="IdentityN", device=call.device)
    results.input.extend(outer(function.ret[a.name]) for a in function.signature.output_arg)
    results.input.extend(f"^{prefix}{function.control_ret[name].split(':')[0]}"
                         for name in function.signature.control_output
                         if name in function.control_ret)
    if not function.signature.output_arg:
        results.op = "NoOp"
    return out + [results]


def _function(node, library: dict, key: str):
    """The FunctionDef ``node``'s attr ``key`` names, its inputs and results checked
    (a GraphDef is untrusted input)."""
    name = node.attr[key].func.name
    function = library.get(name)
    if function is None:
        raise UnimplementedError(
            f"Node '{node.name}' ({node.op}): its {key} is the function '{name}', which the "
            f"GraphDef's library does not hold.", node.name)
    _check_function(function)
    return function


def _check_function(function) -> None:
    """InvalidArgumentError naming the function for an input or result that is not
    ``"^node"``, ``"arg"``, ``"node:k"`` or ``"node:out_arg:k"``, and for a result
    missing from ``ret``."""
    name = function.signature.name
    arguments = {arg.name for arg in function.signature.input_arg}
    for node in function.node_def:
        for text in node.input:
            if not (text.startswith("^") or _well_formed(text, arguments)):
                raise InvalidArgumentError(
                    f"Node '{node.name}' of the TF function '{name}' has a malformed input "
                    f"'{text}' (an argument's name, or 'node:output_arg:k').", node.name)
    for arg in function.signature.output_arg:
        if arg.name not in function.ret or not _well_formed(function.ret[arg.name],
                                                            arguments):
            raise InvalidArgumentError(
                f"The TF function '{name}' does not say which tensor its result "
                f"'{arg.name}' is (its ret map has {dict(function.ret)!r}).")


def _well_formed(text: str, arguments: set) -> bool:
    """An argument's name, or ``node:out_arg:k``."""
    parts = text.split(":")
    return text in arguments if len(parts) == 1 else \
        len(parts) == 3 and all(parts) and parts[2].isdigit()


def _carried_variables(node, library: dict) -> list:
    """The positions of the loop variables of TF's While ``node`` that are variables'
    handles (``DT_RESOURCE``: a variable its cond or body reads or assigns), which
    its body must return unchanged, as TF's loops do."""
    body = _function(node, library, "body")
    positions = [k for k, t in enumerate(node.attr["T"].list.type) if t == DT_RESOURCE]
    for k in positions:
        argument = body.signature.input_arg[k].name
        if body.ret[body.signature.output_arg[k].name] != argument:
            raise UnimplementedError(
                f"Node '{node.name}' ({node.op}): its body returns another variable than "
                f"the one it takes as loop variable {k} ('{argument}').", node.name)
    return positions


def _part(node, library: dict, key: str, kind: str, arity: int, list_args,
          list_results, optional: dict | None = None, unread=(),
          variables=()) -> FunctionPart:
    """The function ``node``'s attr ``key`` names as a ``FunctionPart`` whose k-th
    argument is read from outside as (``kind``, k), in ``tf_tensor_list_import``'s
    layout: the lengths of the lists among its arguments (``list_args``) and results
    (``list_results``) after the others.  ``optional``: the results that are a cond's
    Optionals -> the dtype they hold (``_unwrap_optionals``); ``unread``: the loop's
    results nothing reads (``_skip_unread_accumulators``); ``variables``: a loop's
    arguments that are variables, read instead as the j-th captured input (the
    variable itself, which the function reads and assigns)."""
    function = _function(node, library, key)
    arguments = function.signature.input_arg
    if len(arguments) != arity:
        raise InvalidArgumentError(
            f"Node '{node.name}' ({node.op}) passes {arity} tensors to its {key} "
            f"'{function.signature.name}', which takes {len(arguments)}.", node.name)
    expanding = _EXPANDING.get()
    if function.signature.name in expanding:
        raise InvalidArgumentError(
            f"Node '{node.name}' ({node.op}): its {key} '{function.signature.name}' holds "
            f"itself (through {sorted(expanding)}); a TF function must not recurse.",
            node.name)
    token = _EXPANDING.set(expanding | {function.signature.name})
    try:
        return _function_part(node, library, function, kind, list_args, list_results,
                              optional, unread, variables)
    finally:
        _EXPANDING.reset(token)


def _function_part(node, library, function, kind, list_args, list_results, optional,
                   unread, variables) -> FunctionPart:
    arguments = function.signature.input_arg
    body, keys, names = _as_graph_def(function)
    nodes = {n.name: n for n in function.node_def}
    nones = {function.ret[function.signature.output_arg[k].name].split(":")[0]: dtype
             for k, dtype in (optional or {}).items()}
    body = _unwrap_optionals(body, nones)
    order = [keys[a.name] for a in arguments]
    lists = {order[k]: (order[k], f"{unique_name(names, arguments[k].name + '_lengths')}:0")
             for k in list_args}
    externals = order + [lists[order[k]][1] for k in list_args]
    results = [_graph_input(function.ret[a.name], keys, nodes)
               for a in function.signature.output_arg]
    body = _skip_unread_accumulators(body, [results[k] for k in unread],
                                     [order[k] for k in unread])
    body, plans, wiring = functionalize_functions(body, library, lists)
    outputs = [wiring.keys(r)[0] for r in results] + \
        [_lengths(wiring, results[k], node, function) for k in list_results]
    by_key = {key: (kind, k) for k, key in enumerate(externals)}
    by_key.update({order[k]: ("data", j) for j, k in enumerate(variables)})

    def outside(key: str):
        if key not in by_key:
            raise InvalidArgumentError(
                f"Node '{node.name}' ({node.op}): its function '{function.signature.name}' "
                f"reads '{key}', which is neither one of its nodes nor an argument.",
                node.name)
        return by_key[key]
    return cut_function(body, outputs, plans, outside)


def _read_outputs(graph_def) -> dict:
    """Node name -> the indices of its outputs some node of ``graph_def`` reads."""
    read: dict = {}
    for node in graph_def.node:
        for text in node.input:
            if not text.startswith("^"):
                producer, _, index = text.rpartition(":")
                if not (producer and index.isdigit()):
                    producer, index = text, "0"
                read.setdefault(producer, set()).add(int(index))
    return read


def _skip_unread_accumulators(body, results: list, arguments: list):
    """A loop body with each ``TensorListPushBack`` of an argument onto itself, whose
    result nothing outside the loop reads, replaced by the argument unchanged.  TF 2
    makes a loop ready for its gradient by pushing every intermediate onto such a list
    (Keras 2's RNN layers do in any graph, frozen ones too), some of them lists
    themselves, which devsession's TensorArrays cannot hold; unread, they are only
    work."""
    skipped = {r.split(":")[0]: a for r, a in zip(results, arguments)}
    if not any(n.name in skipped and n.op == "TensorListPushBack" for n in body.node):
        return body
    out = graph_pb2.GraphDef()
    out.CopyFrom(body)
    for node in out.node:
        if node.op == "TensorListPushBack" and skipped.get(node.name) == node.input[0]:
            node.op = "Identity"
            controls = [t for t in node.input if t.startswith("^")]
            node.input[:] = [node.input[0], *controls]
            node.attr.clear()
    return out


def _optional_results(node, library: dict) -> dict:
    """The ``variant`` results of TF's If ``node`` that its branches return as Optionals
    (how TF 2 hands a cond's intermediates to its gradient: ``OptionalFromValue`` in the
    branch that computed one, ``OptionalNone`` in the other) -> the DataType held."""
    out = {}
    results = node.attr["Tout"].list.type
    for key in ("then_branch", "else_branch"):
        function = _function(node, library, key)
        if len(function.signature.output_arg) != len(results):
            raise InvalidArgumentError(
                f"Node '{node.name}' ({node.op}) returns {len(results)} tensors (Tout), but "
                f"its {key} '{function.signature.name}' returns "
                f"{len(function.signature.output_arg)}.", node.name)
    for k, t in enumerate(results):
        if t != DT_VARIANT:
            continue
        for key in ("then_branch", "else_branch"):
            function = _function(node, library, key)
            ret = function.ret[function.signature.output_arg[k].name].split(":")[0]
            made = next((n for n in function.node_def if n.name == ret), None)
            if made is not None and made.op == "OptionalFromValue":
                held = made.attr["Toutput_types"].list.type
                if len(held) != 1:
                    raise UnimplementedError(
                        f"Node '{node.name}' ({node.op}): its {key} returns an Optional of "
                        f"{len(held)} tensors ('{made.name}'); devsession reads Optionals "
                        f"of one, as TF's conds make them.", node.name)
                out[k] = held[0]
            elif made is not None and made.op == "OptionalNone":
                out.setdefault(k, graph_pb2.DT_FLOAT)
    return out


def _unwrap_optionals(body: graph_pb2.GraphDef, nones: dict) -> graph_pb2.GraphDef:
    """A cond's Optionals as the one tensor each holds: ``OptionalFromValue`` and
    ``OptionalGetValue`` become ``Identity``s, and ``OptionalNone`` (the branch that
    computed nothing, whose result the gradient never reads) a zero of the dtype the
    other branch holds (``nones``: node name -> DataType)."""
    if not any(n.op.startswith("Optional") for n in body.node):
        return body
    out = graph_pb2.GraphDef()
    out.CopyFrom(body)
    for node in out.node:
        if node.op in ("OptionalFromValue", "OptionalGetValue"):
            node.op = "Identity"
            for key in ("Toutput_types", "output_types", "output_shapes"):
                if key in node.attr:
                    del node.attr[key]
        elif node.op == "OptionalNone":
            dtype = dtype_from_enum(nones.get(node.name, graph_pb2.DT_FLOAT), node.name)
            node.op = "Const"
            node.attr.clear()
            array_to_proto(np.zeros((), dtype.as_numpy_dtype), node.attr["value"].tensor)
    return out


def _lengths(wiring, result: str, node, function) -> str:
    keys = wiring.keys(result)
    if len(keys) != 2:
        raise UnimplementedError(
            f"Node '{node.name}' ({node.op}): its function '{function.signature.name}' "
            f"returns '{result}' where a TensorList is expected, which devsession cannot "
            f"follow.", node.name)
    return keys[1]


def _as_graph_def(function) -> tuple[graph_pb2.GraphDef, dict, set]:
    """(the function's nodes as a GraphDef reading GraphDef inputs, {argument name: the
    key its readers read it by}, the names taken).  An argument's key names no node of
    the function."""
    nodes = {node.name: node for node in function.node_def}
    names = set(nodes)
    keys = {arg.name: f"{unique_name(names, arg.name)}:0"
            for arg in function.signature.input_arg}
    graph_def = graph_pb2.GraphDef()
    for node in function.node_def:
        copy = graph_def.node.add()
        copy.CopyFrom(node)
        del copy.input[:]
        copy.input.extend(_graph_input(t, keys, nodes) for t in node.input)
    return graph_def, keys, names


def _graph_input(text: str, keys: dict, nodes: dict) -> str:
    """A function body's input string (``"arg"``, ``"node:out:k"``, ``"^node"``) as a
    GraphDef's (``"arg_key"``, ``"node:flat index"``, ``"^node"``)."""
    if text.startswith("^"):
        return text
    if ":" not in text:
        return keys[text]
    producer, argument, k = text.split(":")
    return f"{producer}:{_flat_index(nodes.get(producer), argument, int(k), text)}"


def _flat_index(node, argument: str, k: int, text: str) -> int:
    """Where the k-th tensor of ``node``'s output argument ``argument`` is among all its
    outputs: the sizes of the arguments before it (one tensor each, or a count an attr
    gives) plus k."""
    if node is None:
        raise InvalidArgumentError(f"A TF function reads '{text}', but has no node "
                                   f"'{text.split(':')[0]}'.")
    signature = tf_signature(node.op) or LIST_OP_SIGNATURES.get(node.op)
    if signature is None:
        return k                                # devsession will report the op unknown
    index = 0
    for output in signature["outputs"]:
        if output["name"] == argument:
            return index + k
        index += _size(node, output)
    raise InvalidArgumentError(
        f"Node '{node.name}' ({node.op}) has no output argument '{argument}' (TF's are "
        f"{[o['name'] for o in signature['outputs']]}).", node.name)


def _size(node, output: dict) -> int:
    if "number_attr" in output:
        return node.attr[output["number_attr"]].i
    if "type_list_attr" in output:
        return len(node.attr[output["type_list_attr"]].list.type)
    return 1
