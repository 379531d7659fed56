"""devsession's graphs -> GraphDefs in TensorFlow's form: the inverse of ``tf_graph.py``.

``Graph.as_graph_def()`` is devsession's own format, an exact round trip (every attr as
the op holds it).  TensorFlow cannot import it: TF's NodeDefs carry the dtypes of their
inputs and outputs as attrs (``T``, ``Tidx``, ``N``...), and some of devsession's attrs
are inputs in TF's ops.  ``to_tf_graph_def(graph)`` writes the same computation as TF
writes it, from TF's op signatures (``tf_op_signatures.json``, generated once from
TensorFlow's own op registry by ``tools/make_tf_op_signatures.py``; TF is never imported):

* every node gets the type and number attrs of TF's signature, computed from the dtypes
  of its inputs and outputs (hence a ``Graph``: a GraphDef alone has no dtypes, so one is
  first imported into a scratch graph), and its float attrs in TF's float32 field;
* devsession's attr forms become TF's inputs, a ``Const`` named as TF names it, unique in
  the graph: the reductions' ``axis`` (``<node>/reduction_indices`` and ``keep_dims``; every
  axis of an input of unknown rank is ``Range(0, Rank(x), 1)``), ``ArgMax``/``ArgMin``'s
  (``<node>/dimension``), ``ConcatV2``'s (``<node>/axis``; one value is an ``Identity``),
  ``Transpose``'s ``perm``, ``Reshape``'s ``shape``, the random ops' ``shape``
  (``_RunTimeAttr``, such an attr computed at run time, is the op it wraps);
  ``RandomUniformInt``'s inputs in TF's order; a draw with other bounds than TF's standard
  ones is the standard draw scaled as TF1's ``random_uniform``/``random_normal`` build it
  (``<node>/RandomUniform``, ``<node>/mul``..., ``<node>`` the result); ``Softmax`` over
  another axis than the last between two ``Transpose``s, as TF1's ``softmax(axis=)``;
  ``Assert``'s ``message`` the first of its data, a string ``Const``;
* ``If``/``While`` (and their stateless twins) become TF 2's functional ops, each
  branch, cond and body a ``FunctionDef`` of the GraphDef's library
  (``tf_function_export.py``);
* a training graph's gradient nodes TF cannot run, devsession's private shape ops
  (``_BroadcastToShapeOf``...) and ``Conv2DBackprop*V2`` (no CPU kernels in TF), are
  written as TF's gradient functions build them, from ``Shape`` ops
  (``tf_export_gradients.py``), so a training graph trains in TensorFlow;
* the GraphDef says it is TF's GraphDef version of the table's TensorFlow.

Attrs TF fills in with its defaults are left out, as TF's importer adds them.  What TF
cannot read is ``UnimplementedError`` naming the node: devsession's other private ops
(types starting with ``_``, its TensorArray ops; ``_ReadVariable`` is TF's ``Identity``), a loop or cond recording
its random draws or assigning a variable in a body (``tf_function_export.py``), an op TF
lacks (or that is newer than the table: the error
says to run the tool), an attr TF's op lacks, a dtype TF's op does not take, fewer
inputs than TF's op needs.  Every other node passes
with its name, device, inputs and control inputs unchanged, and ``import_graph_def``
reads the result back (``tf_graph.py``) into the same computation.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import dtypes
from .errors import UnimplementedError
from .graph import TF_ATTR_LOOKUP, Graph
from .graph_codec import FunctionAttr, encode_attr
from .graph_def import import_graph_def
from .ops.run_time_attrs import RUN_TIME_ATTR
from .proto import graph_pb2
from .tensor_shape import TensorShape
from .tf_export_gradients import GRADIENT_FORMS
from .tf_export_ordering import reads_before_writes
from .tf_function_export import CONTROL_FLOW_OPS, export_control_flow
from .tf_signatures import SIGNATURES_FILE, signature_table, tf_signature

__all__ = ["to_tf_graph_def", "tf_attr", "tf_signature", "tf_version", "SIGNATURES_FILE"]

# devsession's private ops that are TF ops under another name: a read of a variable
# under control dependencies is TF's Identity of the variable
_PRIVATE_AS_TF = {"_ReadVariable": "Identity"}

# TF's handle types: devsession's queues and readers pass string handles in their place.
_HANDLE_TYPES = ("resource", "variant")


def _absent(op_type: str) -> str:
    if op_type in signature_table()["missing"]:
        return f"TensorFlow {tf_version()} has no op of this type."
    return ("an op newer than TensorFlow's op signatures (tf_op_signatures.json); run "
            "tools/make_tf_op_signatures.py to add TF's signature, if TF has it.")


def tf_version() -> str:
    """The TensorFlow version whose op registry the signature table was made from."""
    return signature_table()["tensorflow_version"]


def to_tf_graph_def(graph_or_graph_def) -> graph_pb2.GraphDef:
    """A GraphDef TensorFlow imports computing what ``graph_or_graph_def`` (a ``Graph``, or
    a GraphDef or its bytes in devsession's or TF's form) computes; see the module
    docstring.  Nodes keep their order (helper Consts come just before their reader)."""
    graph, graph_def = graph_or_graph_def, None
    if not isinstance(graph, Graph):
        graph_def = graph
        if isinstance(graph_def, (bytes, bytearray)):
            graph_def = graph_pb2.GraphDef.FromString(bytes(graph_def))
        graph = Graph()
        import_graph_def(graph_def, name="", graph=graph)
        ops = [graph.get_operation_by_name(node.name) for node in graph_def.node]
    else:
        ops = graph.get_operations()
    exporter = _Exporter({op.name for op in ops})
    if graph_def is not None and graph_def.HasField("library"):
        exporter.out.library.CopyFrom(graph_def.library)
    reads_first = reads_before_writes(graph)
    for op in ops:
        node = _Node.of(op)
        node.control += [name for name in reads_first.get(op.name, ())
                         if name not in node.control]
        exporter.export(node)
    exporter.out.versions.producer = signature_table()["graph_def_version"]
    return exporter.out


def tf_attr(op, name: str):
    """Attr ``name`` of ``op`` as TensorFlow's op has it (its type attrs ``T``, ``Tidx``...,
    ``keep_dims``, the defaults TF's op fills in), in TF's ``Operation.get_attr`` forms:
    bytes for strings, a DType for a type, lists for lists, the protos for shapes, tensors
    and functions.  KeyError where TF's node has no such attr or ``op`` has no TF form."""
    exporter = _Exporter({op.name})       # the names its helper nodes must not take
    try:
        exporter.export(_Node.of(op))
    except UnimplementedError:
        raise KeyError(name) from None
    found = [n for n in exporter.out.node if n.name == op.name]
    if not found:
        raise KeyError(name)
    if name in found[0].attr:
        return _tf_attr_value(found[0].attr[name])
    return _tf_default(found[0].op, name)


def _tf_default(op_type: str, name: str):
    """The value TF's op ``op_type`` gives attr ``name`` when its NodeDef omits it."""
    spec = tf_signature(op_type)["attrs"].get(name)
    if spec is None or "default" not in spec:
        raise KeyError(name)
    default = spec["default"]
    if spec["type"] == "tensor":
        default = np.asarray(default["values"], default["dtype"]).reshape(default["shape"])
    value = graph_pb2.AttrValue()
    encode_attr(_as_kind(default, spec), value)
    return _tf_attr_value(value)


def _tf_attr_value(value):
    kind = value.WhichOneof("value")
    if kind == "list":
        for field in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            items = getattr(value.list, field)
            if items:
                return [dtypes.as_dtype(t) for t in items] if field == "type" else list(items)
        return []
    if kind == "type":
        return dtypes.as_dtype(value.type)
    return getattr(value, kind)


TF_ATTR_LOOKUP.append(tf_attr)         # Operation.get_attr's source of TF's attrs


def _holds_body(value: FunctionAttr) -> bool:
    """Whether a func attr holds devsession's function body (not a library name)."""
    return FunctionAttr.BODY_KEY in graph_pb2.NameAttrList.FromString(value.data).attr


@dataclasses.dataclass
class _Node:
    """A NodeDef in the making: inputs with their dtypes, attrs as Python values."""

    name: str
    op: str
    device: str = ""
    inputs: list = dataclasses.field(default_factory=list)        # "x", "x:1"
    dtypes: list = dataclasses.field(default_factory=list)        # of the inputs
    shapes: list = dataclasses.field(default_factory=list)        # of the inputs
    control: list = dataclasses.field(default_factory=list)       # node names
    attrs: dict = dataclasses.field(default_factory=dict)
    outputs: list = dataclasses.field(default_factory=list)       # dtypes

    @classmethod
    def of(cls, op) -> "_Node":
        return cls(op.name, op.type, op.device,
                   [t.op.name if t.value_index == 0 else t.name for t in op.inputs],
                   [t.dtype for t in op.inputs], [t.shape for t in op.inputs],
                   [c.name for c in op.control_inputs], dict(op.attrs),
                   [t.dtype for t in op.outputs])

    def error(self, text: str) -> UnimplementedError:
        return UnimplementedError(f"Node '{self.name}' ({self.op}): {text}", self.name)


class _Exporter:
    """Writes ``_Node``s into ``out`` as TF's NodeDefs; ``used`` keeps names unique."""

    def __init__(self, used: set, library=None):
        self.used = set(used)
        self.out = graph_pb2.GraphDef()
        # where If/While bodies go as FunctionDefs (a function body's exporter shares
        # the graph's)
        self.library = self.out.library if library is None else library

    def unique(self, name: str) -> str:
        candidate, k = name, 0
        while candidate in self.used:
            k += 1
            candidate = f"{name}_{k}"
        self.used.add(candidate)
        return candidate

    def export(self, node: _Node) -> None:
        if node.op == RUN_TIME_ATTR:
            node = _run_time_attr(node)
        node.op = _PRIVATE_AS_TF.get(node.op, node.op)
        gradient_form = GRADIENT_FORMS.get(node.op)
        if gradient_form is not None:                 # devsession's gradient helpers
            node = gradient_form(node, self)
        if node.op.startswith("_"):
            raise node.error("an op private to devsession, which TensorFlow does not have.")
        if tf_signature(node.op) is None:
            raise node.error(_absent(node.op))
        if node.op in CONTROL_FLOW_OPS:
            node = export_control_flow(node, self)    # bodies -> the library's functions
        for key, value in node.attrs.items():
            if isinstance(value, FunctionAttr) and _holds_body(value):
                raise node.error(f"attr '{key}' holds a function body in devsession's own "
                                 f"encoding, which TensorFlow cannot read.")
        rewrite = _REWRITES.get(node.op)
        if rewrite is not None:
            node = rewrite(node, self)
        self.emit(node)

    def helper(self, like: _Node, suffix: str, op: str, inputs=(), attrs=None,
               outputs=()) -> str:
        """Emit a node ``<like>/<suffix>`` (unique) on ``like``'s device; its name."""
        node = _Node(self.unique(f"{like.name}/{suffix}"), op, like.device,
                     [name for name, _, _ in inputs], [d for _, d, _ in inputs],
                     [s for _, _, s in inputs], [], dict(attrs or {}), list(outputs))
        self.emit(node)
        return node.name

    def const(self, like: _Node, suffix: str, value, dtype=None) -> tuple:
        """A Const ``<like>/<suffix>`` holding ``value``; (name, dtype, shape) as an input."""
        value = np.asarray(value)
        dtype = dtypes.as_dtype(dtype or value.dtype)
        name = self.helper(like, suffix, "Const", attrs={"value": value, "dtype": dtype},
                           outputs=[dtype])
        return name, dtype, TensorShape(value.shape)

    def emit(self, node: _Node) -> None:
        _tf_attrs(node)
        out = self.out.node.add(name=node.name, op=node.op, device=node.device)
        out.input.extend(node.inputs)
        out.input.extend(f"^{name}" for name in node.control)
        for key, value in sorted(node.attrs.items()):
            encode_attr(value, out.attr[key])


# --- TF's attrs from the signature ----------------------------------------------------------

def _tf_attrs(node: _Node) -> None:
    """``node.attrs`` as TF's op has them: type and number attrs from the dtypes, values
    in the kinds TF's attrs are; UnimplementedError for what TF's op cannot take."""
    sig = tf_signature(node.op)
    if sig is None:
        raise node.error(_absent(node.op))
    specs = sig["attrs"]
    computed: dict = {}
    _bind(node, sig["inputs"], node.dtypes, "input", computed)
    _bind(node, sig["outputs"], node.outputs, "output", computed)
    for key, value in computed.items():
        held = node.attrs.get(key)
        if held is not None and _as_kind(held, specs[key]) != value:
            raise node.error(f"attr '{key}' is {held!r}, but its arguments say {value!r}.")
    node.attrs.update(computed)
    for key in list(node.attrs):
        if key.startswith("_"):
            continue                               # TF keeps "_" attrs (_class) as they are
        if key not in specs:
            raise node.error(f"attr '{key}'={node.attrs[key]!r} has no counterpart in "
                             f"TensorFlow's {node.op}.")
        node.attrs[key] = _as_kind(node.attrs[key], specs[key])
    for key, spec in specs.items():
        if key not in node.attrs and "default" not in spec:
            raise node.error(f"TensorFlow's {node.op} needs attr '{key}', which devsession "
                             f"does not know how to give it.")
        if key not in node.attrs:
            continue
        value = node.attrs[key]
        if "allowed" in spec and spec["type"] == "type" and value.name not in spec["allowed"]:
            raise node.error(f"TensorFlow's {node.op} does not take {value.name} for attr "
                             f"'{key}' (it takes {', '.join(spec['allowed'])}).")
        if "minimum" in spec and spec["type"] == "int" and value < spec["minimum"]:
            raise node.error(f"TensorFlow's {node.op} needs attr '{key}' >= "
                             f"{spec['minimum']}, not {value}.")
        if "minimum" in spec and spec["type"].startswith("list(") \
                and len(value) < spec["minimum"]:
            raise node.error(f"TensorFlow's {node.op} needs {spec['minimum']} or more values "
                             f"in attr '{key}', not {len(value)}.")


def _bind(node: _Node, args: list, types: list, what: str, computed: dict) -> None:
    """Set the attrs of ``args`` (TF's input or output args) from ``types``, the dtypes of
    the node's inputs or outputs, into ``computed``."""
    known = {**node.attrs, **computed}
    sizes = []
    for arg in args:
        if "number_attr" in arg:
            sizes.append(known.get(arg["number_attr"]))
        elif "type_list_attr" in arg:
            held = known.get(arg["type_list_attr"])
            sizes.append(None if held is None else len(held))
        else:
            sizes.append(1)
    missing = {arg.get("number_attr") or arg.get("type_list_attr")
               for arg, size in zip(args, sizes) if size is None}
    left = len(types) - sum(size for size in sizes if size is not None)
    if len(missing) == 1:
        share = sum(size is None for size in sizes)
        if left < 0 or left % share:
            raise node.error(f"its {len(types)} {what}s do not fit TensorFlow's signature.")
        sizes = [left // share if size is None else size for size in sizes]
    elif missing or left:
        raise node.error(f"its {len(types)} {what}s do not fit TensorFlow's signature "
                         f"({', '.join(arg['name'] for arg in args) or 'none'}).")
    start = 0
    for arg, size in zip(args, sizes):
        part, start = types[start:start + size], start + size
        if "type_list_attr" in arg:
            _put(node, computed, arg["type_list_attr"], tuple(part))
            continue
        if "number_attr" in arg:
            _put(node, computed, arg["number_attr"], size)
        if "type_attr" in arg:
            for dtype in part:
                _put(node, computed, arg["type_attr"], dtype)
        elif arg["type"] not in _HANDLE_TYPES and any(d.name != arg["type"] for d in part):
            got = ", ".join(sorted({d.name for d in part}))
            raise node.error(f"TensorFlow's {node.op} takes {arg['type']} for {what} "
                             f"'{arg['name']}', not {got}.")
        elif arg["type"] == "resource" and any(d.is_numeric for d in part):
            # a reference variable where TF's op takes a resource variable's handle (the
            # stateful random ops of tf.random.Generator): TF's importer refuses it
            raise node.error(f"TensorFlow's {node.op} takes a resource variable's handle "
                             f"for {what} '{arg['name']}'; devsession's variables are TF1's "
                             f"reference variables, which it cannot take.")


def _put(node: _Node, computed: dict, key: str, value) -> None:
    if key in computed and computed[key] != value:
        raise node.error(f"TensorFlow's {node.op} needs one type for attr '{key}', but its "
                         f"arguments are {computed[key]!r} and {value!r}.")
    computed[key] = value


def _as_kind(value, spec: dict):
    """``value`` as the kind of TF attr ``spec`` holds: a float in TF's float32 field, a
    shape a TensorShape, a tensor an array."""
    kind = spec["type"]
    if kind.startswith("list(") and isinstance(value, (tuple, list)):
        item = dict(spec, type=kind[5:-1])
        return tuple(_as_kind(v, item) for v in value)
    if kind == "float":
        return np.float32(value)
    if kind == "int" and not isinstance(value, bool):
        return int(value)
    if kind == "bool":
        return bool(value)
    if kind == "type":
        return dtypes.as_dtype(value)
    if kind == "shape" and not isinstance(value, TensorShape):
        return TensorShape(value)
    if kind == "tensor" and not isinstance(value, np.ndarray):
        default = spec.get("default")
        return np.asarray(value, dtype=default["dtype"] if isinstance(default, dict) else None)
    return value


# --- devsession's attr forms -> TF's input forms ------------------------------------------

def _add_input(node: _Node, source: tuple, at: int | None = None) -> None:
    name, dtype, shape = source
    at = len(node.inputs) if at is None else at
    node.inputs.insert(at, name)
    node.dtypes.insert(at, dtype)
    node.shapes.insert(at, shape)


def _int_const(values) -> np.ndarray:
    """int32 as TF writes axes and shapes, int64 where int32 cannot hold them."""
    values = np.asarray(values, np.int64)
    small = values.size == 0 or (values.min() >= -2**31 and values.max() < 2**31)
    return values.astype(np.int32) if small else values


def _first_input(node: _Node) -> tuple:
    return node.inputs[0], node.dtypes[0], node.shapes[0]


def _matmul(node: _Node, ex: _Exporter) -> _Node:
    """A product of stacks of matrices (an input not known to be of rank 2) is TF's
    ``BatchMatMulV2``: TF's ``MatMul`` takes matrices only.  Its ``adj_x``/``adj_y``
    conjugate complex values, so a complex input transposed (not conjugated) goes
    through a ``Conj`` first."""
    if all(shape.rank == 2 for shape in node.shapes[:2]):
        return node
    node.op = "BatchMatMulV2"
    for k, (flag, adjoint) in enumerate((("transpose_a", "adj_x"),
                                         ("transpose_b", "adj_y"))):
        node.attrs[adjoint] = transposed = bool(node.attrs.pop(flag, False))
        if transposed and node.dtypes[k].is_complex:
            conj = ex.helper(node, f"Conj_{'xy'[k]}", "Conj",
                             [(node.inputs[k], node.dtypes[k], node.shapes[k])],
                             outputs=[node.dtypes[k]])
            node.inputs[k] = conj
    return node


def _reduction(node: _Node, ex: _Exporter) -> _Node:
    if "axis" not in node.attrs:
        return node                                 # TF's form already
    axes, keep = node.attrs.pop("axis"), bool(node.attrs.pop("keepdims", False))
    if node.attrs.pop("all_axes", False):           # every axis of an input of unknown rank
        int32, scalar = dtypes.int32, TensorShape([])
        rank = ex.helper(node, "Rank", "Rank", [_first_input(node)], outputs=[int32])
        bounds = [ex.const(node, "range/start", np.int32(0)), (rank, int32, scalar),
                  ex.const(node, "range/delta", np.int32(1))]
        indices = ex.helper(node, "range", "Range", bounds, outputs=[int32])
        _add_input(node, (indices, int32, TensorShape([None])))
    else:
        _add_input(node, ex.const(node, "reduction_indices", _int_const(axes)))
    node.attrs["keep_dims"] = keep
    return node


def _arg_reduction(node: _Node, ex: _Exporter) -> _Node:
    if "axis" in node.attrs:
        _add_input(node, ex.const(node, "dimension", _int_const(node.attrs.pop("axis"))))
    return node


def _concat(node: _Node, ex: _Exporter) -> _Node:
    if "axis" not in node.attrs:
        return node
    axis = node.attrs.pop("axis")
    if len(node.inputs) == 1:                       # TF's ConcatV2 takes two or more
        return dataclasses.replace(node, op="Identity")
    _add_input(node, ex.const(node, "axis", _int_const(axis)))
    return node


def _run_time_attr(node: _Node) -> _Node:
    """``_RunTimeAttr``: the wrapped op, its attr already TF's input (a Transpose's perm,
    a reduction's axes computed at run time)."""
    attrs = {k: v for k, v in node.attrs.items() if k not in ("op", "attr", "keepdims")}
    if "keepdims" in node.attrs:
        attrs["keep_dims"] = bool(node.attrs["keepdims"])
    return dataclasses.replace(node, op=node.attrs["op"], attrs=attrs)


def _attr_to_input(attr: str):
    """A rewrite passing attr ``attr`` (Transpose's perm, Reshape's shape) as a Const."""
    def rewrite(node: _Node, ex: _Exporter) -> _Node:
        if attr in node.attrs and len(node.inputs) == 1:
            _add_input(node, ex.const(node, attr, _int_const(node.attrs.pop(attr))))
        return node
    return rewrite


def _softmax(node: _Node, ex: _Exporter) -> _Node:
    axis = node.attrs.pop("axis", -1)
    rank = node.shapes[0].ndims
    if axis == -1 or rank and axis % rank == rank - 1:
        return node
    if not rank:
        raise node.error(f"a softmax over axis {axis} of an input of unknown rank; "
                         f"TensorFlow's {node.op} works on the last axis.")
    axis %= rank
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]     # swap the axis last and back, as TF1
    x = _first_input(node)
    swapped_shape = TensorShape([x[2].dims[p] for p in perm])
    swapped = ex.helper(node, "transpose", "Transpose",
                        [x, ex.const(node, "transpose/perm", _int_const(perm))],
                        outputs=[x[1]])
    inner = ex.helper(node, node.op, node.op, [(swapped, x[1], swapped_shape)],
                      outputs=[x[1]])
    back = dataclasses.replace(node, op="Transpose", inputs=[inner], dtypes=[x[1]],
                               shapes=[swapped_shape], attrs={})
    _add_input(back, ex.const(node, "perm", _int_const(perm)))
    return back


# the attrs of devsession's draws, at TF's standard values
_DRAW_BOUNDS = {"RandomUniform": ("minval", 0.0, "maxval", 1.0),
                "RandomStandardNormal": ("mean", 0.0, "stddev", 1.0),
                "TruncatedNormal": ("mean", 0.0, "stddev", 1.0)}


def _float_draw(node: _Node, ex: _Exporter) -> _Node:
    shape = node.attrs.pop("shape", None)
    low_key, low_default, high_key, high_default = _DRAW_BOUNDS[node.op]
    low = node.attrs.pop(low_key, low_default)
    high = node.attrs.pop(high_key, high_default)
    if not node.inputs:
        _add_input(node, ex.const(node, "shape", _int_const(shape)))
    if (low, high) == (low_default, high_default):
        return node
    # the standard draw, scaled as TF1's random_uniform / random_normal build it
    dtype, out_shape = node.outputs[0], TensorShape(None)
    lo = ex.const(node, "min" if node.op == "RandomUniform" else "mean", np.array(low, dtype.np))
    hi = ex.const(node, "max" if node.op == "RandomUniform" else "stddev",
                  np.array(high, dtype.np))
    draw = dataclasses.replace(node, name=ex.unique(f"{node.name}/{node.op}"))
    ex.emit(draw)                                 # the control inputs wait for the draw
    drawn = (draw.name, dtype, out_shape)
    if node.op == "RandomUniform":
        width = ex.helper(node, "sub", "Sub", [hi, lo], outputs=[dtype])
        scaled = ex.helper(node, "mul", "Mul", [drawn, (width, dtype, TensorShape([]))],
                           outputs=[dtype])
    else:
        scaled = ex.helper(node, "mul", "Mul", [drawn, hi], outputs=[dtype])
    return _Node(node.name, "AddV2", node.device, [scaled, lo[0]], [dtype, dtype],
                 [out_shape, lo[2]], [], {}, [dtype])


def _uniform_int(node: _Node, ex: _Exporter) -> _Node:
    """devsession's (minval, maxval[, shape]) with attrs dtype and shape -> TF's (shape,
    minval, maxval), Tout from the output."""
    if "dtype" not in node.attrs:
        return node                                # TF's form already
    shape = node.attrs.pop("shape", None)
    del node.attrs["dtype"]
    if len(node.inputs) == 3:                      # devsession's shape input comes last
        for seq in (node.inputs, node.dtypes, node.shapes):
            seq.insert(0, seq.pop())
    else:
        _add_input(node, ex.const(node, "shape", _int_const(shape)), at=0)
    return node


def _assert(node: _Node, ex: _Exporter) -> _Node:
    message = node.attrs.pop("message", "")
    message = message.encode() if isinstance(message, str) else message
    if message or len(node.inputs) == 1:           # TF's Assert shows one datum at least
        _add_input(node, ex.const(node, "data_0", np.array(message, object),
                                  dtypes.string), at=1)
    return node


_REWRITES = {
    "MatMul": _matmul,
    **{op: _reduction for op in ("Sum", "Mean", "Max", "Min", "Prod", "All", "Any",
                                 "EuclideanNorm")},
    "ArgMax": _arg_reduction,
    "ArgMin": _arg_reduction,
    "ConcatV2": _concat,
    "Transpose": _attr_to_input("perm"),
    "Reshape": _attr_to_input("shape"),
    "Softmax": _softmax,
    **{op: _float_draw for op in _DRAW_BOUNDS},
    "RandomUniformInt": _uniform_int,
    "Assert": _assert,
}
