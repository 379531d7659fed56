"""ds.TensorArray (TF1's tf.TensorArray): values against numpy, inside ds.while_loop and
ds.cond, gradients against finite differences in float64, TF1's errors, and the
kernels on every device against the reference's."""

from __future__ import annotations

import re

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError, UnimplementedError
from gradient_check import check_op_gradient, numeric_gradient
from kernel_cases import DEVICES, check_against_ref, make_node, run_on
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)

F64 = np.float64


@pytest.fixture(autouse=True)
def graph():
    with ds.Graph().as_default() as g:
        yield g


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)




# --- values -----------------------------------------------------------------------------

def test_write_read_stack_and_size():
    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((3, 2, 3))
    ta = ds.TensorArray(ds.float64, size=3, clear_after_read=False)
    ta = ta.write(0, a).write(2, c).write(1, b)
    stacked, second, size = ta.stack(), ta.read(1), ta.size()
    assert stacked.shape == (3, 2, 3) and second.shape == (2, 3)
    assert ta.element_shape == ds.TensorShape([2, 3]) and ta.dtype == ds.float64
    got = run([stacked, second, size, ta.read(1)])
    np.testing.assert_array_equal(got[0], np.stack([a, b, c]))
    np.testing.assert_array_equal(got[1], b)
    assert got[2] == 3
    np.testing.assert_array_equal(got[3], b)        # read again: not cleared


def test_unstack_gather_scatter_and_a_dynamic_size():
    x = np.arange(12.0).reshape(4, 3)
    ta = ds.TensorArray(ds.float64, size=0, dynamic_size=True,
                        clear_after_read=False).unstack(x)       # read more than once
    gathered = ta.gather([3, 0, 3])
    scattered = ds.TensorArray(ds.float64, size=4).scatter([2, 0, 3, 1], x)
    grown = ds.TensorArray(ds.int32, size=1, dynamic_size=True).write(0, 7).write(4, 9)
    got = run([ta.stack(), ta.size(), gathered, scattered.stack(), grown.size(),
               grown.read(4)])
    np.testing.assert_array_equal(got[0], x)
    assert got[1] == 4
    np.testing.assert_array_equal(got[2], x[[3, 0, 3]])
    np.testing.assert_array_equal(got[3], x[[1, 3, 0, 2]])
    assert got[4] == 5 and got[5] == 9


def test_split_into_unequal_pieces_and_concat():
    x = np.arange(14.0).reshape(7, 2)
    ta = ds.TensorArray(ds.float64, size=3, infer_shape=False,
                        clear_after_read=False).split(x, [3, 0, 4])
    assert ta.concat().shape.as_list() == [None, 2]
    got = run([ta.concat(), ta.read(0), ta.read(1), ta.read(2)])
    np.testing.assert_array_equal(got[0], x)
    for piece, want in zip(got[1:], (x[:3], x[3:3], x[3:])):
        np.testing.assert_array_equal(piece, want)
    equal = ds.TensorArray(ds.float64, size=2).split(x[:6], [3, 3])
    assert equal.element_shape == ds.TensorShape([3, 2])
    np.testing.assert_array_equal(run(equal.stack()), x[:6].reshape(2, 3, 2))


def test_a_size_given_as_a_tensor_an_identity_and_the_handle_and_flow():
    n = ds.placeholder(ds.int32, ())
    ta = ds.TensorArray(ds.float32, size=n, element_shape=[2])
    ta = ds.TensorArray(ds.float32, size=n).unstack(ds.ones([n, 2]))
    again = ds.TensorArray(ds.float32, handle=ta.handle, flow=ta.flow).identity()
    assert isinstance(ta.close(), ds.Operation)
    got = run([again.stack(), again.size()], {n: 3})
    np.testing.assert_array_equal(got[0], np.ones((3, 2), np.float32))
    assert got[1] == 3


def test_an_empty_array_stacks_to_its_declared_element_shape():
    ta = ds.TensorArray(ds.float32, size=0, element_shape=[2, 3])
    assert run(ta.stack()).shape == (0, 2, 3)
    assert run(ta.concat()).shape == (0, 3)


# --- control flow -----------------------------------------------------------------------

def rnn(xs, w, u, h0):
    """An RNN over time-major ``xs`` accumulating its states in a TensorArray, as TF1
    code writes it; returns the stacked states."""
    steps = ds.shape(xs)[0]
    states = ds.TensorArray(xs.dtype, size=steps)

    def body(t, h, states):
        h = ds.tanh(ds.matmul(xs[t], w) + ds.matmul(h, u))
        return t + 1, h, states.write(t, h)
    _, _, states = ds.while_loop(lambda t, h, states: t < steps, body, (0, h0, states))
    return states.stack()


def rnn_numpy(xs, w, u, h0):
    h, out = h0, []
    for x in xs:
        h = np.tanh(x @ w + h @ u)
        out.append(h)
    return np.stack(out)


def rnn_inputs():
    rng = np.random.default_rng(1)
    return (rng.standard_normal((5, 2, 3)), rng.standard_normal((3, 4)) * 0.5,
            rng.standard_normal((4, 4)) * 0.5, rng.standard_normal((2, 4)))


def test_an_rnn_accumulates_its_states_in_a_while_loop():
    values = rnn_inputs()
    tensors = [ds.constant(v) for v in values]
    states = rnn(*tensors)
    assert states.shape.as_list() == [5, 2, 4]      # the body's write set the shape
    np.testing.assert_allclose(run(states), rnn_numpy(*values), rtol=1e-12)


def test_the_gradient_through_a_loop_that_writes_a_tensor_array():
    values = rnn_inputs()
    weights = np.random.default_rng(2).standard_normal((5, 2, 4))
    xs, w, u, h0 = (ds.placeholder(ds.float64, v.shape) for v in values)
    loss = ds.reduce_sum(rnn(xs, w, u, h0) * weights)
    grads = ds.gradients(loss, [xs, w, u, h0])
    feed = dict(zip((xs, w, u, h0), values))
    got = run(grads, feed)
    for k, g in enumerate(got):
        def f(v, k=k):
            args = list(values)
            args[k] = v
            return float(np.sum(rnn_numpy(*args) * weights))
        np.testing.assert_allclose(g, numeric_gradient(f, values[k]), rtol=1e-6, atol=1e-8)


def test_a_dynamic_array_grows_in_a_loop_and_its_gradient_flows():
    xv = np.array([0.5, -1.0, 2.0])
    x = ds.placeholder(ds.float64, (3,))
    ta = ds.TensorArray(ds.float64, size=0, dynamic_size=True)

    def body(t, ta):
        return t + 1, ta.write(t, x * ds.cast(t + 1, ds.float64))
    _, ta = ds.while_loop(lambda t, ta: t < 4, body, (0, ta))
    stacked = ta.stack()
    (g,) = ds.gradients(ds.reduce_sum(ds.square(stacked)), x)
    got, grad, size = run([stacked, g, ta.size()], {x: xv})
    np.testing.assert_allclose(got, np.outer([1, 2, 3, 4], xv))
    np.testing.assert_allclose(grad, 2 * xv * (1 + 4 + 9 + 16))
    assert size == 4


def test_a_tensor_array_through_cond():
    flag = ds.placeholder(ds.bool, ())
    ta = ds.TensorArray(ds.float64, size=2).write(0, [1.0])
    ta = ds.cond(flag, lambda: ta.write(1, [2.0]), lambda: ta.write(1, [3.0]))
    assert isinstance(ta, ds.TensorArray)
    np.testing.assert_array_equal(run(ta.stack(), {flag: False}), [[1.0], [3.0]])
    with pytest.raises(TypeError, match="Incompatible return types"):
        ds.cond(flag, lambda: ta, lambda: ds.constant(1.0))


def test_a_body_must_return_a_tensor_array_for_a_tensor_array():
    ta = ds.TensorArray(ds.float64, size=2)
    with pytest.raises(TypeError, match="must return a TensorArray"):
        ds.while_loop(lambda t, ta: t < 2, lambda t, ta: (t + 1, ta.flow), (0, ta))


# --- gradients of each op, against finite differences -------------------------------------

def array_of(values, lengths, infer_shape=True):
    """A TensorArray over the tensors ``values`` and ``lengths``."""
    return ds.TensorArray(values.dtype, handle=lengths, flow=values, infer_shape=infer_shape)


def written(n, shape, rows):
    """(values, lengths) of an array of ``n`` elements of ``shape``, ``rows`` written."""
    rng = np.random.default_rng(n)
    values = np.zeros((n,) + shape)
    lengths = np.full(n, -1, np.int32)
    for i in rows:
        values[i] = rng.standard_normal(shape)
        lengths[i] = shape[0] if shape else 0
    return values, lengths


def test_write_gradient():
    values, lengths = written(3, (2,), [0])
    check_op_gradient(lambda v, n, x: array_of(v, n).write(2, x).flow,
                      [values, lengths, np.array([0.5, -2.0])], no_gradient=(1,))


def test_scatter_and_split_gradients():
    values, lengths = written(4, (2,), [1])
    check_op_gradient(lambda v, n, x: array_of(v, n).scatter([3, 0], x).flow,
                      [values, lengths, np.arange(4.0).reshape(2, 2)], no_gradient=(1,))
    check_op_gradient(lambda v, n, x: array_of(v, n, False).split(x, [2, 0, 3]).flow,
                      [np.zeros((3, 3, 2)), np.full(3, -1, np.int32),
                       np.arange(10.0).reshape(5, 2)], no_gradient=(1,))


def test_read_gather_and_concat_gradients():
    values, lengths = written(4, (3,), [0, 1, 2, 3])
    check_op_gradient(lambda v, n: array_of(v, n).read(2), [values, lengths],
                      no_gradient=(1,))
    check_op_gradient(lambda v, n: array_of(v, n).gather([3, 1, 3]), [values, lengths],
                      no_gradient=(1,))
    check_op_gradient(lambda v, n: array_of(v, n).concat(), [values, lengths],
                      no_gradient=(1,))


def test_gradients_through_ragged_elements():
    x = np.arange(1.0, 8.0)
    xt = ds.placeholder(ds.float64, (7,))
    ta = ds.TensorArray(ds.float64, size=3, infer_shape=False,
                        clear_after_read=False).split(xt, [2, 4, 1])
    y = ds.reduce_sum(ta.read(1) * ta.read(1)) + ds.reduce_sum(ta.concat() * 3.0)
    (g,) = ds.gradients(y, xt)
    want = np.full(7, 3.0)
    want[2:6] += 2 * x[2:6]
    np.testing.assert_allclose(run(g, {xt: x}), want)


# --- TF1's errors ----------------------------------------------------------------------------

def test_an_element_never_written_reads_as_zeros_where_its_shape_is_known():
    # as TF1's (TF 2.21's TensorArrayV3): the shape declared, or set by a write
    ta = ds.TensorArray(ds.float32, size=3).write(0, [1.0, 2.0])
    np.testing.assert_array_equal(run(ta.read(1)), [0.0, 0.0])
    np.testing.assert_array_equal(run(ta.stack()), [[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(run(ta.concat()), [1.0, 2.0, 0.0, 0.0, 0.0, 0.0])
    declared = ds.TensorArray(ds.float32, size=2, element_shape=[2], infer_shape=False)
    np.testing.assert_array_equal(run(declared.read(1)), [0.0, 0.0])
    grown = ds.TensorArray(ds.float32, size=0, dynamic_size=True).write(
        2, ds.placeholder_with_default([1.0], None))
    np.testing.assert_array_equal(run(grown.stack()), [[0.0], [0.0], [1.0]])


def test_reading_an_element_of_unknown_shape_never_written_is_an_error_naming_the_node():
    ta = ds.TensorArray(ds.float32, size=2, element_shape=[None, 2])
    value = ta.read(1, name="peek")
    with pytest.raises(InvalidArgumentError, match=r"Could not read from TensorArray index 1\."
                       r"  Furthermore, the element shape is not fully defined: \[\?,2\]"
                       ) as info:
        run(value)
    assert info.value.node_name == "peek"
    unknown = ds.TensorArray(ds.float32, size=2, infer_shape=False).write(0, [1.0])
    with pytest.raises(InvalidArgumentError, match="index 1.  Furthermore"):
        run(unknown.stack())
    strings = ds.TensorArray(ds.string, size=2).write(0, "a")
    with pytest.raises(InvalidArgumentError, match="TensorSetZero type not supported: string"):
        run(strings.read(1))


def test_writing_an_element_twice_is_an_error():
    ta = ds.TensorArray(ds.float32, size=2).write(0, 1.0)
    with pytest.raises(InvalidArgumentError, match="Could not write to TensorArray index 0 "
                                                   "because it has already been written to"):
        run(ta.write(0, 2.0).stack())
    with pytest.raises(InvalidArgumentError, match="already been written to"):
        run(ds.TensorArray(ds.float32, size=2).scatter([1, 1], [1.0, 2.0]).flow)


def test_an_index_past_the_size_of_a_fixed_array_is_an_error():
    ta = ds.TensorArray(ds.float32, size=2)
    with pytest.raises(InvalidArgumentError, match="Tried to write to index 2 but array is "
                                                   "not resizeable and size is: 2"):
        run(ta.write(2, 1.0).flow)
    full = ta.unstack([1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="Tried to read from index 5 but array "
                                                   "size is: 2"):
        run(full.read(5))
    with pytest.raises(InvalidArgumentError, match=r"size is not equal to the size of "
                                                   r"lengths \(2 vs\. 3\)"):
        run(ds.TensorArray(ds.float32, size=2).split([1.0, 2.0, 3.0], [1, 1, 1]).flow)


def test_values_known_only_at_run_time_are_checked_as_tf1_does():
    unknown = lambda value: ds.placeholder_with_default(value, None)  # noqa: E731
    ta = ds.TensorArray(ds.float32, size=3)
    with pytest.raises(InvalidArgumentError, match="Tried to write to index -1 but array is "
                                                   "not resizeable and size is: 3"):
        run(ta.write(-1, 1.0).flow)
    with pytest.raises(InvalidArgumentError, match=r"index must be scalar, but had shape: "
                                                   r"\[1\]") as info:
        run(ta.write(unknown([0]), 1.0).flow)
    assert info.value.node_name.endswith("write")
    with pytest.raises(InvalidArgumentError, match=r"index must be scalar, but had shape"):
        run(ta.unstack([1.0, 2.0, 3.0]).read(unknown([0])))
    with pytest.raises(InvalidArgumentError, match=r"Input value for unpack must be at least "
                                                   r"a vector but received shape: \[\]"):
        run(ta.scatter([0], unknown(1.0)).flow)


def test_an_array_of_strings():
    ta = ds.TensorArray(ds.string, size=3).unstack([b"a", b"bc"]).write(2, b"d")
    assert list(run(ta.stack())) == [b"a", b"bc", b"d"]
    assert run(ta.read(1)) == b"bc"


def test_element_shapes_that_disagree():
    ta = ds.TensorArray(ds.float32, size=3).write(0, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(3,\) but expected "
                                         r"\(2,\)"):
        ta.write(1, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        ds.TensorArray(ds.float32, size=1, element_shape=[4]).write(0, [1.0])
    unknown = ds.placeholder(ds.float32, (None,))
    mixed = ta.write(1, unknown)
    with pytest.raises(InvalidArgumentError, match=r"value shape is \[3\] which is "
                                                   r"incompatible with the TensorArray's "
                                                   r"inferred element shape: \[2\]"):
        run(mixed.flow, {unknown: [1.0, 2.0, 3.0]})
    ragged = ds.TensorArray(ds.float32, size=2, infer_shape=False).write(0, [1.0, 2.0])
    ragged = ragged.write(1, unknown)
    np.testing.assert_array_equal(run(ragged.concat(), {unknown: [3.0]}), [1.0, 2.0, 3.0])
    with pytest.raises(InvalidArgumentError, match="inconsistent shapes"):
        run(ragged.stack(), {unknown: [3.0]})


def test_an_empty_array_of_unknown_element_shape_does_not_stack():
    # TF's errors::Unimplemented, for stack (gather) and concat alike
    with pytest.raises(UnimplementedError, match="size zero, but element shape <unknown> "
                                                 "is not fully defined"):
        run(ds.TensorArray(ds.float32, size=0).stack())
    with pytest.raises(UnimplementedError, match="size zero, but element_shape_except0 "
                                                 "<unknown> is not fully defined"):
        run(ds.TensorArray(ds.float32, size=0, infer_shape=False).concat())


def test_the_constructor_checks_its_arguments_as_tf1():
    with pytest.raises(ValueError, match="`size` must be provided"):
        ds.TensorArray(ds.float32)
    ta = ds.TensorArray(ds.float32, size=1)
    with pytest.raises(ValueError, match="flow must not be None"):
        ds.TensorArray(ds.float32, handle=ta.handle)
    with pytest.raises(ValueError, match="both a `handle` and `size`"):
        ds.TensorArray(ds.float32, size=1, handle=ta.handle, flow=ta.flow)
    with pytest.raises(TypeError, match="Expected `handle` to be a Tensor"):
        ds.TensorArray(ds.float32, handle="h", flow=ta.flow)


# TF 2.21's messages (TF1 behaviour: tf.disable_v2_behavior()), after its "TensorArray <name>: "
CLEARED = ("Could not read index {} twice because it was cleared after a previous read "
           "(perhaps try setting clear_after_read = false?).")
READ_BEFORE_WRITE = "Could not write to TensorArray index {} because it has already been read."


def _fails(fetches, node, message):
    """``fetches`` fail at ``node`` (or at any fetched one: two reads run in either order)."""
    with pytest.raises(InvalidArgumentError) as error:
        run(fetches)
    assert error.value.node_name in ([node.op.name] if node is not None
                                     else [t.op.name for t in fetches])
    assert re.search(rf"TensorArray TensorArray(_\d+)?: {re.escape(message)}$",
                     error.value.message), error.value.message


def test_an_element_read_once_is_cleared_as_tf1s():
    """clear_after_read (the default): a second read of an element in one run, by read,
    gather or stack, and a write after a read, are TF1's InvalidArgumentError naming
    the op; other elements, another run, or clear_after_read=False read freely."""
    def array(clear=True):
        return ds.TensorArray(ds.float32, size=3, clear_after_read=clear).unstack(
            [1.0, 2.0, 3.0])

    ta = array()
    _fails([ta.read(0), ta.read(0)], None, CLEARED.format(0))
    ta = array()
    first = ta.read(1)
    with ds.control_dependencies([first]):
        stacked, again = ta.stack(), ta.write(1, 5.0)
        gathered = ta.gather([0, 2])
    _fails([first, stacked], stacked, CLEARED.format(1))
    _fails([first, again.flow], again.flow, READ_BEFORE_WRITE.format(1))
    assert run([first, gathered])[1].tolist() == [1.0, 3.0]
    partial = ds.TensorArray(ds.float32, size=3).write(0, 1.0)
    first = partial.read(0)
    with ds.control_dependencies([first]):
        later = partial.write(1, 2.0).read(0)           # a write keeps what was read
    _fails([first, later], later, CLEARED.format(0))
    repeated = array().gather([2, 2])
    _fails(repeated, repeated, CLEARED.format(2))
    with ds.Session() as sess:                          # each run makes its array anew
        once = array().read(2)
        assert sess.run(once) == sess.run(once) == 3.0
    kept = array(clear=False)
    assert run([kept.read(0), kept.read(0), kept.stack()])[2].tolist() == [1.0, 2.0, 3.0]


def test_a_loop_reads_each_element_once_and_its_gradient_reads_them_again():
    """In a while_loop as TF1's: reading index i once per iteration is fine, twice is the
    error; the loop's gradient runs the body again without clearing (TF 2.21: x**2's
    gradient [2, 4, 6]), as a cond's gradient runs a copy of its branch."""
    x = ds.constant([1.0, 2.0, 3.0])
    ta = ds.TensorArray(ds.float32, size=3).unstack(x)
    _, total = ds.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + ta.read(i) ** 2),
                             [0, 0.0])
    (grad,) = ds.gradients(total, x)
    got = run([total, grad])                   # the loop, then its gradient running it again
    assert got[0] == 14.0
    np.testing.assert_array_equal(got[1], [2.0, 4.0, 6.0])
    branched = ds.TensorArray(ds.float32, size=3).unstack(x)
    chosen = ds.cond(ds.constant(True), lambda: branched.read(1) ** 2, lambda: branched.read(2))
    (branch_grad,) = ds.gradients(chosen, x)                 # the branch's copy reads again
    np.testing.assert_array_equal(run([chosen, branch_grad])[1], [0.0, 4.0, 0.0])
    twice = ds.TensorArray(ds.float32, size=3).unstack(x)
    _, bad = ds.while_loop(lambda i, a: i < 3,
                           lambda i, a: (i + 1, a + twice.read(i) + twice.read(i)), [0, 0.0])
    with pytest.raises(InvalidArgumentError, match="Could not read index 0 twice"):
        run(bad)


# --- GraphDefs ---------------------------------------------------------------------------

def test_a_graph_def_with_tensor_arrays_imports_and_runs():
    x = ds.constant([[1.0, 2.0], [3.0, 4.0]], name="x")
    ta = ds.TensorArray(ds.float32, size=2).unstack(x)
    out = ds.identity(ta.read(1) * 2.0, name="out")
    graph_def = ds.get_default_graph().as_graph_def()
    del out
    with ds.Graph().as_default():
        ds.import_graph_def(graph_def)
        np.testing.assert_array_equal(run("out:0"), [6.0, 8.0])


def test_a_tf2_tensor_list_op_devsession_does_not_map_is_refused_naming_it():
    # TF1's TensorArrayV3 ops import (tests/test_tf_tensor_array_import.py), and TF2's
    # TensorLists as loops use them (tests/test_tf_v2_control_flow_import.py); not all
    from devsession.proto import graph_pb2

    graph_def = graph_pb2.GraphDef()
    graph_def.node.add(name="list", op="TensorListConcatV2")
    with pytest.raises(UnimplementedError, match="Node 'list' \\(TensorListConcatV2\\): of "
                                                 "TF 2's TensorList ops"):
        ds.import_graph_def(graph_def)


# --- the kernels on every device ---------------------------------------------------------

I32 = np.dtype(np.int32)
F32 = np.dtype(np.float32)
WRITE = {"element_shape": None, "dynamic_size": True, "identical_element_shapes": False}


def array_node(op, inputs, attrs=None, outputs=1):
    node = make_node(op, [x.dtype for x in inputs], inputs[0].dtype, attrs)
    if outputs == 2:
        import dataclasses
        node = dataclasses.replace(node, output_dtypes=(inputs[0].dtype, I32),
                                   output_shapes=(None, None))
    return node


@pytest.mark.parametrize("device", DEVICES)
def test_kernels_against_the_reference(device):
    rng = np.random.default_rng(3)
    values = rng.standard_normal((4, 3, 2)).astype(F32)
    lengths = np.array([3, -1, 1, 2], np.int32)
    x = rng.standard_normal((3, 2)).astype(F32)
    cases = [
        ("_TensorArray", [np.int32(3)], {"dtype": F32, "element_shape": (None, 2)}, 2),
        ("_TensorArrayWrite", [values, lengths, np.int32(5), x], WRITE, 2),
        ("_TensorArrayScatter", [values, lengths, np.array([1, 4], np.int32), x[:2, None]],
         WRITE, 2),
        ("_TensorArraySplit", [np.zeros((2, 0, 2), F32), np.full(2, -1, np.int32), x,
                               np.array([1, 2], np.int64)], WRITE, 2),
        ("_TensorArrayRead", [values, lengths, np.int32(3)], {}, 1),
        ("_TensorArrayGather", [values, lengths, np.array([0, 0], np.int32)], {}, 1),
        ("_TensorArrayConcat", [values[[0, 2, 3]], lengths[[0, 2, 3]]], {}, 1),
        ("_TensorArrayGatherGrad", [values, np.array([2, 2], np.int32), x[None, :1].repeat(2, 0)],
         {}, 1),
        ("_TensorArrayConcatGrad", [values[[0, 2, 3]], lengths[[0, 2, 3]], x.repeat(2, 0)], {},
         1),
        ("_TensorArraySplitGrad", [values, lengths[[0, 0, 2, 3]], np.array([3, 3], np.int64)],
         {}, 1),
        ("_TensorArrayUnwrite", [values, values[:2, :2], np.array([1], np.int32)], {}, 1),
    ]
    for op, inputs, attrs, outputs in cases:
        check_against_ref(device, array_node(op, inputs, attrs, outputs), *inputs)
    read = run_on(device, array_node("_TensorArrayRead", [values, lengths, np.int32(0)]),
                  values, lengths, np.int32(0))
    np.testing.assert_array_equal(read, values[0])
    unwritten = array_node("_TensorArrayRead", [values, lengths, np.int32(1)])
    np.testing.assert_array_equal(run_on(device, unwritten, values, lengths, np.int32(1)),
                                  np.zeros((3, 2)))   # (the shape the first element has)
    unknown = array_node("_TensorArrayRead", [values, lengths, np.int32(1)],
                         {"identical_element_shapes": False})
    with pytest.raises(InvalidArgumentError, match="element shape is not fully defined"):
        run_on(device, unknown, values, lengths, np.int32(1))


def test_a_loop_writing_a_tensor_array_on_the_stand_in_gpu(standin):  # noqa: F811
    values = rnn_inputs()
    weights = np.random.default_rng(4).standard_normal((5, 2, 4))
    with ds.device("gpu:0"):
        tensors = [ds.placeholder(ds.float64, v.shape) for v in values]
        states = rnn(*tensors)
        grads = ds.gradients(ds.reduce_sum(states * weights), tensors[1:3])
    with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
        got, gw, gu = sess.run([states, *grads], dict(zip(tensors, values)))
    np.testing.assert_allclose(got, rnn_numpy(*values), rtol=1e-12)
    for k, g in ((1, gw), (2, gu)):
        def f(v, k=k):
            args = list(values)
            args[k] = v
            return float(np.sum(rnn_numpy(*args) * weights))
        np.testing.assert_allclose(g, numeric_gradient(f, values[k]), rtol=1e-6, atol=1e-8)
