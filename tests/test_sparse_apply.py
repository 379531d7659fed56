"""TF's SparseApply<X> ops (``ops/sparse_training.py``): GraphDefs TensorFlow wrote
(tests/data/tf_sparse_apply*.pb, by make_tf_sparse_apply.py) imported and trained step by
step against TF's values, with reference variables and with resource ones
(ResourceSparseApply<X>, renamed on import); repeated indices applied in order; the
kernels on every device against the reference; TF's errors naming the node."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from devsession.device_spec import Device
from devsession.errors import InvalidArgumentError, UnimplementedError
from devsession.kernels.registry import KernelNode, lookup_kernel
from devsession.ops.sparse_training import SPARSE_TRAINING_OPS, sparse_apply, sparse_inputs
from devsession.runtime.resources import ResourceMgr
from devsession.runtime.state import StateContext
from kernel_cases import DEVICES, F16, F32, F64, STANDIN, assert_same, rng_for, run_updates

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
# every SparseApply op, as the recorded GraphDefs hold them: a test fails if one is added
# without a recorded case (SparseApplyAdagradDA's: tests/test_adagrad_da.py)
RECORDED = set(SPARSE_TRAINING_OPS) - {"SparseApplyAdagradDA"}


def _replay(stem: str) -> list:
    """Import ``<stem>.pb``, run each case's steps with TF's feeds, and compare every
    variable after every step with TF's; the op types the cases ran."""
    graph_def = ds.read_graph_def(os.path.join(DATA, f"{stem}.pb"))
    data = np.load(os.path.join(DATA, f"{stem}.npz"))
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(graph_def, name="")
    cases = sorted(k[5:] for k in data if k.startswith("step:"))
    ran = []
    with ds.Session(graph=graph) as sess:
        sess.run(graph.get_operation_by_name("init"))
        for case in cases:
            op_type = str(data[f"op:{case}"]).removeprefix("Resource")
            assert any(op.type == op_type and op.name.startswith(f"{case}/")
                       for op in graph.get_operations()), (case, op_type)
            ran.append(op_type)
            step = graph.get_operation_by_name(str(data[f"step:{case}"]))
            indices = graph.get_tensor_by_name(f"{case}/indices:0")
            k = 0
            while f"indices:{k}" in data:
                sess.run(step, {f"{case}/grad:0": data[f"grad:{case}:{k}"],
                                indices: data[f"indices:{k}"].astype(indices.dtype.as_numpy_dtype)})
                prefix = f"after:{case}:{k}:"
                for key in (key for key in data if key.startswith(prefix)):
                    got = sess.run(f"{key[len(prefix):]}:0")
                    np.testing.assert_allclose(got, data[key], rtol=2e-6, atol=1e-7,
                                               err_msg=f"{case} step {k} {key}")
                k += 1
            assert k == 6
    return ran


def test_tf_reference_variable_graphs_train_to_tfs_values():
    """Every op, raw (repeated indices reach the kernel) and from TF1's optimizers (which
    sum repeated rows first), with TF's attrs (use_nesterov, update_slots false), 1-D and
    3-D variables, int32 and int64 indices, an empty batch."""
    ran = _replay("tf_sparse_apply")
    assert set(ran) == RECORDED
    assert len(ran) == 24


def test_tf_resource_variable_graphs_import_onto_sparse_apply():
    """TF2's default variables: ResourceSparseApplyMomentum/Adagrad (its optimizers') and
    ResourceSparseApplyAdagradV2 (raw, repeated indices) run as their SparseApply twins."""
    graph_def = ds.read_graph_def(os.path.join(DATA, "tf_sparse_apply_resource.pb"))
    assert {"ResourceSparseApplyMomentum", "ResourceSparseApplyAdagrad",
            "ResourceSparseApplyAdagradV2"} <= {node.op for node in graph_def.node}
    assert sorted(_replay("tf_sparse_apply_resource")) == [
        "SparseApplyAdagrad", "SparseApplyAdagradV2", "SparseApplyMomentum"]


def test_repeated_indices_apply_one_after_another():
    """Momentum on row 1 twice: the second update sees the first's accumulator (TF's
    kernels loop over the indices), where summing the rows first would not."""
    with ds.Graph().as_default():
        var = ds.Variable(np.zeros((3, 2), np.float32))
        accum = ds.Variable(np.ones((3, 2), np.float32))
        grad = ds.placeholder(ds.float32, (None, 2))
        indices = ds.placeholder(ds.int64, (None,))
        out = sparse_apply("SparseApplyMomentum", var, accum, 0.5, grad, indices, 0.5)
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            got = sess.run(out, {grad: [[1, 2], [3, 4]], indices: [1, 1]})
            a1 = np.array([1 * 0.5 + 1, 1 * 0.5 + 2])          # accum after the first row
            a2 = a1 * 0.5 + [3, 4]
            np.testing.assert_allclose(got[1], -0.5 * a1 - 0.5 * a2)
            np.testing.assert_array_equal(got[[0, 2]], 0)
            np.testing.assert_allclose(sess.run(accum)[1], a2)
            np.testing.assert_array_equal(sess.run(accum)[[0, 2]], 1)


# --- the kernels on every device -------------------------------------------------------------

SLOT_START = {"mg": 0.05, "ms": 1.0}       # a centered mean small next to its mean square
SCALARS = {"lr": 0.05, "alpha": 0.05, "momentum": 0.9, "epsilon": 0.01, "rho": 0.9,
           "l1": 0.05, "l2": 0.02, "l2_shrinkage": 0.03, "lr_power": -0.5}
FLAGS = {"SparseApplyMomentum": "use_nesterov", "SparseApplyAdagrad": "update_slots",
         "SparseApplyAdagradV2": "update_slots"}


def _node(op, dtype, shape, n, resources, attrs, device):
    names, num_refs, grad_at = sparse_inputs(op)
    keys = tuple(("", f"{op}_{name}", np.dtype(dtype), shape) for name in names[:num_refs])
    dtypes = [np.dtype(np.int64) if x in ("indices", "global_step") else np.dtype(dtype)
              for x in names]
    shapes = [shape if k < num_refs else (n,) + shape[1:] if x == "grad" else
              (n,) if x == "indices" else () for k, x in enumerate(names)]
    return KernelNode(f"{op.lower()}_node", op, {"use_locking": False, **attrs}, tuple(dtypes),
                      tuple(shapes), np.dtype(dtype), shape,
                      context=StateContext(resources, keys[0], keys), device=device)


def _values(op, dtype, grad, indices):
    names, num_refs, _ = sparse_inputs(op)
    return [grad if x == "grad" else indices if x == "indices" else
            np.array(3, np.int64) if x == "global_step" else
            np.array(SCALARS[x], dtype) for x in names[num_refs:]]


def _run(device, op, dtype, shape, attrs, initial, steps):
    """The variable and its slots after ``steps`` ((grad, indices) pairs) on ``device``."""
    on_gpu = device in ("GPU", STANDIN)
    n = len(steps[0][1])
    node = _node(op, dtype, shape, n, ResourceMgr(), attrs, Device("GPU" if on_gpu else "CPU"))
    names, num_refs, _ = sparse_inputs(op)
    # the indices are a host input (OpDef.host_inputs): numpy on every device
    host = {names[num_refs:].index("indices")}
    return run_updates(device, node, initial,
                       [_values(op, dtype, grad, indices) for grad, indices in steps], host)


CASES = [(op, dtype, flag) for op in sorted(SPARSE_TRAINING_OPS) for dtype in (F16, F32, F64)
         for flag in ((False, True) if op in FLAGS else (None,))]
INDICES = {"unique": [4, 0, 2], "repeated": [1, 3, 1, 1], "none": []}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(5,), (5, 3), (5, 2, 2)], ids=str)
@pytest.mark.parametrize("which", sorted(INDICES))
@pytest.mark.parametrize("op,dtype,flag", CASES, ids=str)
def test_kernels_match_the_reference(device, op, dtype, flag, which, shape):
    rng = rng_for(op, dtype, flag, which, shape)
    names, num_refs, _ = sparse_inputs(op)
    initial = [rng.standard_normal(shape).astype(dtype)]
    initial += [(np.abs(rng.standard_normal(shape)) * 0.1 + SLOT_START.get(s, 0.5)
                 ).astype(dtype) for s in names[1:num_refs]]
    indices = np.array(INDICES[which], np.int64)
    steps = [(rng.standard_normal((len(indices),) + shape[1:]).astype(dtype), indices)
             for _ in range(3)]
    attrs = {} if flag is None else {FLAGS[op]: flag}
    want = _run("REF", op, dtype, shape, attrs, initial, steps)
    got = _run(device, op, dtype, shape, attrs, initial, steps)
    for g, w, start in zip(got, want, initial):
        assert_same(g, w)
        untouched = np.setdiff1d(np.arange(shape[0]), indices)
        np.testing.assert_array_equal(g[untouched], start[untouched])   # rows left out


def test_unique_rows_take_the_dense_formula():
    """Each named row changes as the dense Apply op changes a variable of that one row."""
    for op in sorted(SPARSE_TRAINING_OPS):
        names, num_refs, _ = sparse_inputs(op)
        rng = rng_for(op)
        initial = [rng.standard_normal((4, 3))] + [
            np.abs(rng.standard_normal((4, 3))) * 0.1 + SLOT_START.get(s, 0.5)
            for s in names[1:num_refs]]
        grad, indices = rng.standard_normal((2, 3)), np.array([3, 1])
        sparse = _run("REF", op, F64, (4, 3), {}, initial, [(grad, indices)])
        for row, g in zip(indices, grad):
            dense = _dense_step(SPARSE_TRAINING_OPS[op], [a[row:row + 1] for a in initial],
                                g[None])
            for s, d in zip(sparse, dense):
                np.testing.assert_array_equal(s[row:row + 1], d, err_msg=op)


def _dense_step(op, arrays, grad):
    """The dense ``op``'s reference kernel on ``arrays`` (the variable and its slots)."""
    from devsession.ops.training import TRAINING_OPS

    names, num_refs = TRAINING_OPS[op]
    resources = ResourceMgr()
    shape = arrays[0].shape
    keys = tuple(("", f"{op}_{n}", np.dtype(F64), shape) for n in names[:num_refs])
    node = KernelNode("dense", op, {"use_locking": False}, (np.dtype(F64),) * len(names),
                      (shape,) * len(names), np.dtype(F64), shape,
                      context=StateContext(resources, keys[0], keys))
    for key, value in zip(keys, arrays):
        resources.variable(*key).assign(value.copy(), "init")
    values = [grad if n in ("grad", "delta") else np.array(3, np.int64) if n == "global_step"
              else np.array(SCALARS[n], F64) for n in names[num_refs:]]
    lookup_kernel(op, "REF")(node)(*values)
    return [r.value for r in node.context.ref_resources()]


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("device_type", ["REF", "CPU"])
def test_run_time_errors_name_the_node(device_type):
    op = "SparseApplyAdagrad"
    resources = ResourceMgr()
    node = _node(op, F32, (4, 2), None, resources, {}, Device("CPU"))
    kernel = lookup_kernel(op, device_type)(node)
    var, accum = node.context.ref_resources()
    var.assign(np.zeros((4, 2), F32), "init")
    accum.assign(np.ones((4, 2), F32), "init")
    grad = np.ones((3, 2), F32)
    cases = [
        ((grad, np.array([0, 4, 1])), r"Index 4 at offset 1 in indices is out of range"),
        ((grad, np.array([0, 1, -1])), r"Index -1 at offset 2 in indices is out of range"),
        ((grad, np.array([0, 1])), "grad must be the same size as indices"),
        ((np.ones((3, 3), F32), np.array([0, 1, 2])), "must match in dimension 1"),
        ((np.ones(3, F32), np.array([0, 1, 2])), "same rank"),
        ((grad, np.array([[0, 1, 2]])), "indices must be one-dimensional"),
    ]
    for (g, i), pattern in cases:
        with pytest.raises(InvalidArgumentError, match=pattern) as info:
            kernel(np.array(0.1, F32), g, i)
        assert info.value.node_name == node.name and f"'{node.name}'" in str(info.value)
    with pytest.raises(InvalidArgumentError, match="lr is not a scalar"):
        kernel(np.ones(1, F32), grad, np.array([0, 1, 2]))
    np.testing.assert_array_equal(var.value, 0)           # nothing changed
    np.testing.assert_array_equal(accum.value, 1)
    kernel(np.array(0.1, F32), grad, np.array([0, 1, 2]))
    np.testing.assert_allclose(var.value[:3], -0.1 / np.sqrt(2))
    np.testing.assert_array_equal(var.value[3], 0)


def test_out_of_range_index_in_a_session_is_invalid_argument():
    with ds.Graph().as_default():
        var = ds.Variable(np.zeros((3, 2), np.float32))
        indices = ds.placeholder(ds.int32, (None,))
        out = sparse_apply("SparseApplyProximalGradientDescent", var, 0.1, 0.0, 0.0,
                           np.ones((2, 2), np.float32), indices, name="prox")
        with ds.Session() as sess:
            sess.run(var.initializer)
            with pytest.raises(InvalidArgumentError, match="Index 3 at offset 1") as info:
                sess.run(out, {indices: [0, 3]})
            assert info.value.node_name == "prox"


def test_build_time_errors():
    with ds.Graph().as_default():
        var = ds.Variable(np.zeros((3, 2), np.float32))
        accum = ds.Variable(np.zeros((3, 2), np.float32))
        rows = np.ones((2, 2), np.float32)
        with pytest.raises(ValueError, match="grad"):
            sparse_apply("SparseApplyAdagrad", var, accum, 0.1, np.ones((2, 3), np.float32),
                         [0, 1])
        with pytest.raises(ValueError, match="grad"):
            sparse_apply("SparseApplyAdagrad", var, accum, 0.1, rows, [0, 1, 2])
        with pytest.raises(ValueError, match="one-dimensional"):
            sparse_apply("SparseApplyAdagrad", var, accum, 0.1, rows, [[0, 1]])
        with pytest.raises(ValueError, match="scalar"):
            sparse_apply("SparseApplyAdagrad", var, accum, [0.1, 0.2], rows, [0, 1])
        with pytest.raises(TypeError, match="int32 or int64"):
            sparse_apply("SparseApplyAdagrad", var, accum, 0.1, rows, ds.constant([0.0, 1.0]))
        with pytest.raises(TypeError, match="5 inputs"):
            sparse_apply("SparseApplyAdagrad", var, accum, 0.1, rows)
        with pytest.raises(ValueError, match="not one of"):
            sparse_apply("SparseApplyAdam", var, accum, 0.1, rows, [0, 1])
        scalar = ds.Variable(1.0)
        with pytest.raises(ValueError, match="at least 1 dimensional"):
            sparse_apply("SparseApplyProximalGradientDescent", scalar, 0.1, 0.0, 0.0, 1.0, [0])


@pytest.mark.parametrize("op", ["SparseApplyFtrl", "SparseApplyFtrlV2", "ApplyFtrl"])
def test_ftrl_multiply_linear_by_lr_is_refused(op):
    with ds.Graph().as_default() as graph:
        var, accum, linear = (ds.Variable(np.zeros((3, 2), np.float32)) for _ in range(3))
        scalars = [ds.constant(0.1)] * (4 if op.endswith("V2") else 3) + [ds.constant(-0.5)]
        data = [var._ref(), accum._ref(), linear._ref(), ds.constant(np.ones((2, 2), np.float32))]
        if op.startswith("Sparse"):
            data.append(ds.constant([0, 1]))
        else:
            data[-1] = ds.constant(np.ones((3, 2), np.float32))
        with pytest.raises(UnimplementedError, match="multiply_linear_by_lr"):
            graph.create_op(op, data + scalars, {"multiply_linear_by_lr": True}, name="f")
        graph.create_op(op, data + scalars, {"multiply_linear_by_lr": False}, name="ok")


def test_no_gradient_flows_through():
    from devsession.ops.registry import get_gradient

    for op in SPARSE_TRAINING_OPS:
        assert get_gradient(op) is None, op
