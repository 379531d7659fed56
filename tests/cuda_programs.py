"""Every elementwise program the GPU kernels can be asked to compile, in one list.

The host harness (``test_cuda_host_harness.py``, in CI) runs them as host C++ and NVRTC
(``test_gpu_codegen.py``, on a GPU in ``ci/gpu-check``) compiles them, from the same
enumeration, so what one checks the other checks too:

* ``registry_nodes()``: a ``KernelNode`` for every op of ``ELEMENTWISE_OPS`` and every
  combination of GPU dtypes its ``OpDef`` accepts (asked of the op's own inference
  function, so a new op, or a new dtype rule, is enumerated without touching this
  file), and every ``Cast`` between two different GPU dtypes;
* ``program_for(node)``: the program ``kernels/cuda/elementwise.py`` compiles for it
  (``elementwise_program`` then ``codegen.cuda.compile_expression``, as its builder);
  ``inputs_for(node)``: seeded inputs that reach the corners (broadcasting, NaN and
  inf against everything, integer extremes, ties);
* ``LANGUAGE_PROGRAMS``: expressions that use the language beyond single ops (shared
  subexpressions, mixed dtypes, ``nan``/``inf`` constants, integer ``**``);
* ``random_fused_cases(seeds)``: the ``_FusedElementwise`` kernels the optimizer makes
  for random graphs of elementwise ops over float32/float64/int32/int64/bool (casts,
  comparisons, selects, integer wrap-around), each with the inputs it received and the
  value the unfused graph gives (REF kernels, on a fake GPU with fusion off).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

import kernel_cases as cases
from devsession import dtypes as ds_dtypes
from devsession.device_spec import Device
from devsession.kernels.codegen import cuda as cg
from devsession.kernels.codegen.expressions import ELEMENTWISE_OPS, elementwise_program
from devsession.kernels.registry import KernelNode
from devsession.kernels.division_checks import DIVISION_OPS, real_div_of_integers
from devsession.ops.backprops import ACTIVATION_GRADS, OUTPUT_GRADS
from devsession.ops.registry import InputSpec, get_op_def
from devsession.tensor_shape import TensorShape

__all__ = ["GPU_DTYPES", "registry_nodes", "program_for", "inputs_for", "label", "LANGUAGE_PROGRAMS",
           "language_programs", "FusedCase", "random_fused_cases", "every_program"]

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
I32, I64, BOOL = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.bool_)
GPU_DTYPES = tuple(sorted(cg.SUPPORTED_DTYPES, key=lambda d: d.name))


def _node(op, input_dtypes, output_dtype, attrs=None) -> KernelNode:
    """A GPU node of ``op`` with its OpDef's default attrs (as a built graph has)."""
    attrs = {**get_op_def(op).attr_defaults, **(attrs or {})}
    return KernelNode(f"{op.lower()}_node", op, attrs, tuple(input_dtypes),
                      tuple((3,) for _ in input_dtypes), np.dtype(output_dtype), (3,),
                      device=Device("GPU", 0))


def _accepted(op: str, input_dtypes) -> np.dtype | None:
    """The output dtype the op's inference gives these inputs, or None if it refuses."""
    op_def = get_op_def(op)
    specs = [InputSpec(ds_dtypes.as_dtype(d), TensorShape((3,)), f"x{k}")
             for k, d in enumerate(input_dtypes)]
    try:
        dtype, _ = op_def.infer(specs, dict(op_def.attr_defaults), f"{op.lower()}_node")
    except (TypeError, ValueError):
        return None
    return np.dtype(ds_dtypes.as_dtype(dtype).np)


SAME_SHAPES = frozenset(ACTIVATION_GRADS) | frozenset(OUTPUT_GRADS)


def registry_nodes() -> list[KernelNode]:
    """Every (op, input dtypes) the GPU elementwise kernels serve, as kernel nodes (a
    RealDiv of integers builds but has no kernel, as TF's: test_tf1_kernels.py)."""
    nodes = []
    for op, (names, _) in ELEMENTWISE_OPS.items():
        for combination in itertools.product(GPU_DTYPES, repeat=len(names)):
            out = _accepted(op, combination)
            if out is not None and not real_div_of_integers(_node(op, combination, out)):
                nodes.append(_node(op, combination, out))
    nodes += [_node("Cast", [src], dst, {"DstT": dst})
              for src in GPU_DTYPES for dst in GPU_DTYPES if src != dst]
    return nodes


def program_for(node: KernelNode) -> cg.Program:
    """The program the GPU builder compiles for ``node`` (raises ``CodegenError``)."""
    expr, names, out_dtype, _ = elementwise_program(node)
    return cg.compile_expression(expr, list(zip(names, node.input_dtypes)), out_dtype)


def label(node: KernelNode) -> str:
    return f"{node.op}({','.join(d.name for d in node.input_dtypes)})->{node.output_dtype.name}"


def with_extremes(x: np.ndarray) -> np.ndarray:
    """Integers get their dtype's min and max at elements 1 and 3 (wrap-around)."""
    if x.dtype.kind in "iu" and x.size >= 4:
        x.reshape(-1)[[1, 3]] = [np.iinfo(x.dtype).min, np.iinfo(x.dtype).max]
    return x


def inputs_for(node) -> list:
    """Seeded inputs for a registry node: broadcast shapes, NaN and inf, integer
    extremes, ties."""
    rng = cases.rng_for("registry inputs", label(node))
    dtypes = node.input_dtypes
    if node.op == "Cast":
        x = with_extremes(cases.random_array(rng, (3, 5), dtypes[0]))
        if x.dtype.kind == "f":
            x[0, :3] = [0.0, -0.0, 2.75]
            x[1, :2] = [-2.75, 0.5]
        return [x]
    if len(dtypes) == 1:
        return [with_extremes(cases.random_array(rng, (3, 7), dtypes[0], specials=True))]
    if len(dtypes) == 2:
        # TF's gradient ops take two tensors of one shape (their REF kernel checks it)
        shapes = ((7, 7), (7, 7)) if node.op in SAME_SHAPES else ((7, 1), (1, 7))
        if node.op == "Pow":                   # small exponents, no specials
            x, y = cases.binary_inputs(node.op, dtypes[0], shapes)
            if x.dtype.kind == "i":            # the negative-exponent rule's cases
                x.reshape(-1)[:4], y.reshape(-1)[:4] = [-1, 1, 0, -2], [-1, -3, -2, 3]
            return [x, y]
        # every pair of (nan, inf, -inf, finite) meets; two ties, so that < and <= differ
        x, y = (with_extremes(cases.random_array(rng, s, d, specials=True))
                for s, d in zip(shapes, dtypes))
        if x.dtype == y.dtype:
            y.reshape(-1)[[0, -1]] = x.reshape(-1)[[0, -1]]
        if node.op in DIVISION_OPS and y.dtype.kind in "iu":
            y[y == 0] = 1          # an integer divisor of 0 is REF's error (test_tf1_kernels)
        return [x, y]
    return [cases.random_array(rng, s, d, specials=True)
            for s, d in zip([(3, 1), (1, 7), ()], dtypes)]


LANGUAGE_PROGRAMS = [
    ("exp(x - m)", [("x", F16), ("m", F32)], F32),
    ("e / s", [("e", F32), ("s", F32)], F16),
    ("t0 = i0 * 1.5\nt1 = relu(t0 + i1)\nt2 = sigmoid(t1) + 0.5 * i0 * i0\nt2",
     [("i0", F32), ("i1", F32)], F32),
    ("where(x > 0, x ** 3 + y, -x) / 7", [("x", I64), ("y", I64)], F64),
    ("cast(x > 0.5, 'float32') * nan + inf", [("x", F64)], F32),
    ("t = exp(x - 1)\nt / (1 + t) + exp(x - 1)", [("x", F64)], F64),
    ("max(x, y) - min(x, y) + abs(x - y) * (x != y)", [("x", I32), ("y", I32)], I32),
    ("(x * 2147483647 + y) ** 3 - -x", [("x", I32), ("y", I32)], I32),
    ("where(c and not d, x, -inf) + cast(c ^ d, 'int64')", [("c", BOOL), ("d", BOOL),
                                                             ("x", F64)], F64),
    ("cast(sqrt(abs(x)) * 3.5, 'int32') + cast(x, 'int64')", [("x", F32)], I64),
]


def language_programs() -> list[cg.Program]:
    return [cg.compile_expression(e, i, o) for e, i, o in LANGUAGE_PROGRAMS]


# ------------------------------------------------------------- random fused graphs

@dataclass
class FusedCase:
    seed: int
    node: KernelNode          # the _FusedElementwise node the GPU builder got
    inputs: list              # the arrays it was called with
    expected: np.ndarray      # the unfused graph's value of the fused root (REF kernels)


def _random_elementwise_graph(ds, seed: int):
    """(graph, feeds, fetches): 6-15 random elementwise ops over mixed dtypes.  Values
    marked bounded are finite and small, so casting them to an integer is defined."""
    rng = np.random.default_rng(seed)
    g = ds.Graph()
    with g.as_default():
        placeholders = {F32: ds.placeholder(ds.float32, (None, 5), name="f32"),
                        F64: ds.placeholder(ds.float64, (5,), name="f64"),
                        I32: ds.placeholder(ds.int32, (None, 5), name="i32"),
                        I64: ds.placeholder(ds.int64, (5,), name="i64")}
        values = [(t, True) for t in placeholders.values()]      # (tensor, bounded)
        float_unary = [ds.exp, ds.log, ds.sqrt, ds.tanh, ds.sigmoid]
        numeric_unary = [ds.negative, ds.abs, ds.square, ds.nn.relu]
        arithmetic = [ds.add, ds.subtract, ds.multiply, ds.maximum, ds.minimum, ds.divide,
                      ds.pow]
        comparisons = [ds.equal, ds.less, ds.less_equal, ds.greater, ds.greater_equal]

        def pick(predicate=lambda t: True):
            chosen = [v for v in values if predicate(v[0])]
            return chosen[int(rng.integers(len(chosen)))] if chosen else None

        def partner(t):
            """A value of ``t``'s dtype (a cast of another one when there is none)."""
            same = pick(lambda u: u.dtype == t.dtype and u is not t)
            if same is None or rng.random() < 0.2:
                other, bounded = pick(lambda u: u.dtype.is_bool or u.dtype.is_integer)
                return ds.cast(other, t.dtype), bounded
            return same

        for _ in range(int(rng.integers(6, 16))):
            kind = rng.choice(["unary", "arith", "compare", "select", "cast", "const"],
                              p=[0.25, 0.3, 0.12, 0.1, 0.13, 0.1])
            if kind == "unary":
                x, bounded = pick(lambda t: not t.dtype.is_bool)
                if x.dtype.is_floating and rng.random() < 0.5:
                    fn = float_unary[int(rng.integers(len(float_unary)))]
                    values.append((fn(x), bounded and fn in (ds.tanh, ds.sigmoid)))
                else:
                    fn = numeric_unary[int(rng.integers(len(numeric_unary)))]
                    values.append((fn(x), bounded and fn is not ds.square))
            elif kind == "arith":
                (x, bx) = pick(lambda t: not t.dtype.is_bool)
                y, by = partner(x)
                fn = arithmetic[int(rng.integers(len(arithmetic)))]
                if fn is ds.pow and x.dtype.is_integer:     # a negative one: REF's error
                    y = ds.maximum(y, 0)
                values.append((fn(x, y), bx and by and fn in (ds.add, ds.subtract,
                                                             ds.maximum, ds.minimum)))
            elif kind == "compare":
                x, _ = pick()
                y, _ = partner(x)
                fn = ds.equal if x.dtype.is_bool else \
                    comparisons[int(rng.integers(len(comparisons)))]
                values.append((fn(x, y), True))
            elif kind == "select":
                cond = pick(lambda t: t.dtype.is_bool)
                if cond is None:
                    continue
                x, bx = pick()
                y, by = partner(x)
                values.append((ds.where_v2(cond[0], x, y), bx and by))
            elif kind == "cast":
                x, bounded = pick()
                target = [F32, F64, I32, I64, BOOL][int(rng.integers(5))]
                if target == x.dtype.np or (x.dtype.is_floating and target.kind == "i"
                                            and not bounded):
                    continue
                values.append((ds.cast(x, ds_dtypes.as_dtype(target)), bounded))
            else:
                x, bounded = pick(lambda t: not t.dtype.is_bool)
                c = float(np.round(rng.standard_normal() * 3, 2)) if x.dtype.is_floating \
                    else int(rng.integers(-5, 6))
                values.append((ds.multiply(x, c) if rng.random() < 0.5 else ds.add(x, c),
                               bounded))
        computed = [t for t, _ in values[len(placeholders):]]
        fetches = [computed[-1], computed[int(rng.integers(len(computed)))]]
    feeds = {placeholders[F32]: (rng.standard_normal((3, 5)) * 3).astype(F32),
             placeholders[F64]: rng.standard_normal(5) * 3,
             placeholders[I32]: rng.integers(-20, 20, (3, 5)).astype(I32),
             placeholders[I64]: rng.integers(-20, 20, 5).astype(I64)}
    return g, feeds, fetches


def random_fused_cases(seeds) -> list[FusedCase]:
    """The fused kernels of random graphs on a fake GPU, with inputs and REF values."""
    import devsession as ds
    from fake_gpu import fake_gpus

    cases = []
    for seed in seeds:
        g, feeds, fetches = _random_elementwise_graph(ds, seed)
        with fake_gpus(1) as fake:
            from devsession.kernels import registry

            calls = []
            fake_fused = fake._fused

            def recording(node, fake_fused=fake_fused):
                kernel = fake_fused(node)

                def run(*xs):
                    calls.append((node, [np.array(x).view(np.ndarray) for x in xs]))
                    return kernel(*xs)
                return run
            with registry._lock:
                registry._builders[("_FusedElementwise", "GPU")] = recording
            options = ds.SessionOptions(device="gpu:0")
            with ds.Session(graph=g, options=options) as sess:
                sess.run(fetches, feeds)
            if not calls:
                continue
            unfused = ds.SessionOptions(device="gpu:0",
                                        optimizer=ds.OptimizerOptions(fusion=False))
            with ds.Session(graph=g, options=unfused) as sess:
                roots = [g.get_tensor_by_name(f"{node.name}:0") for node, _ in calls]
                values = sess.run(roots, feeds)
        cases += [FusedCase(seed, node, inputs, np.asarray(value))
                  for (node, inputs), value in zip(calls, values)]
    return cases


def every_program(fused_seeds=range(12)) -> list[tuple[str, cg.Program]]:
    """(label, program) of every kernel above: registry nodes, the language programs
    and the fused kernels of random graphs."""
    programs = [(label(n), program_for(n)) for n in registry_nodes()]
    programs += [(f"language: {p.expr!r}", p) for p in language_programs()]
    programs += [(f"fused (seed {c.seed}): {c.node.attrs['expression']!r}", program_for(c.node))
                 for c in random_fused_cases(fused_seeds)]
    return programs
