"""``ds.test``'s TestCase beyond what TF's run of tests/tf1_programs/p68_unit_tests.py
recorded: a TF1 test file run by ``ds.test.main()`` (flags parsed, exit status),
``assertProtoEquals`` failing, ``force_gpu`` without a GPU, ``create_local_cluster`` and
``assert_equal_graph_def``'s rules (node order, control inputs as a set, internal attrs,
Saver's random file names), and TensorShape's proto both ways."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import devsession as ds

TEST_FILE = textwrap.dedent('''
    import devsession as tf

    tf.flags.DEFINE_integer("size", 3, "how many")
    FLAGS = tf.flags.FLAGS


    class SquareTest(tf.test.TestCase):
        def testSquare(self):
            with self.cached_session():
                x = tf.range(FLAGS.size)
                self.assertAllEqual(self.evaluate(x * x), [k * k for k in range(FLAGS.size)])

        def testFails(self):
            if FLAGS.size == 4:
                self.assertAllClose(tf.constant([1.0]), [2.0])


    if __name__ == "__main__":
        tf.test.main()
''')


def run_test_file(tmp_path, *args):
    path = tmp_path / "square_test.py"
    path.write_text(TEST_FILE)
    return subprocess.run([sys.executable, str(path), *args], capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_a_tf1_test_file_runs_under_main_with_its_flags(tmp_path):
    passed = run_test_file(tmp_path, "--size=5", "-v")
    assert passed.returncode == 0, passed.stderr
    # test_session too, as TF's loader finds it: skipped by TestCase.setUp, as TF's
    assert "testSquare" in passed.stderr and "Ran 3 tests" in passed.stderr
    assert "OK (skipped=1)" in passed.stderr
    failed = run_test_file(tmp_path, "--size=4")
    assert failed.returncode == 1
    assert "FAIL: testFails" in failed.stderr and "not close" in failed.stderr
    one = run_test_file(tmp_path, "SquareTest.testSquare")
    assert one.returncode == 0 and "Ran 1 test" in one.stderr


@pytest.fixture
def case():
    """A TestCase set up as for a test (its class out of pytest's sight: pytest would
    collect it, and its test_session)."""
    class Probe(ds.test.TestCase):
        def runTest(self):              # noqa: N802  (unittest's name)
            pass

    probe = Probe()
    probe.setUp()
    yield probe
    probe.tearDown()


def test_assert_proto_equals_fails_on_another_proto(case):
    shape = ds.TensorShape([3, None]).as_proto()
    case.assertProtoEquals("dim { size: 3 } dim { size: -1 }", shape)
    with pytest.raises(AssertionError, match="size: 2"):
        case.assertProtoEquals("dim { size: 2 }", shape)


def test_force_gpu_without_one_is_an_error_and_the_temp_dir_is_the_tests(case):
    if ds.test.is_gpu_available():
        pytest.skip("this machine has a CUDA device: force_gpu places there")
    with pytest.raises(ds.errors.OpError):
        with case.session(force_gpu=True) as sess:
            sess.run(ds.constant(1.0) + 1.0)
    folder = case.get_temp_dir()
    assert os.path.isdir(folder) and folder.startswith(ds.test.get_temp_dir())
    assert case.get_temp_dir() == folder


def test_create_local_cluster_serves_ps_and_worker_tasks():
    workers, ps_servers = ds.test.create_local_cluster(num_workers=2, num_ps=1)
    try:
        g = ds.Graph()
        with g.as_default():
            with ds.device("/job:ps/task:0"):
                v = ds.Variable(3.0)
            with ds.device("/job:worker/task:1"):
                doubled = v * 2.0
        with ds.Session(workers[0].target, graph=g) as sess:
            sess.run(v.initializer)
            assert sess.run(doubled) == 6.0
    finally:
        for server in workers + ps_servers:
            server.stop()


def _graph_def(build) -> ds.GraphDef:
    g = ds.Graph()
    with g.as_default():
        build()
    return g.as_graph_def()


def _pair():
    a = ds.placeholder(ds.float32, [2], name="a")
    b = ds.constant([1.0, 2.0], name="b")
    first, second = ds.no_op(name="first"), ds.no_op(name="second")
    with ds.control_dependencies([first, second]):
        ds.add(a, b, name="sum")


def test_graph_defs_compare_by_name_inputs_and_attrs():
    ours = _graph_def(_pair)
    shuffled = ds.GraphDef()
    shuffled.node.extend(reversed(ours.node))            # another node order
    total = [n for n in shuffled.node if n.name == "sum"][0]
    control = [i for i in total.input if i.startswith("^")]
    assert len(control) == 2
    del total.input[-2:]
    total.input.extend(reversed(control))                # control inputs: a set
    total.attr["_class"].list.s.append(b"loc:@a")        # internal attrs: ignored
    ds.test.assert_equal_graph_def(ours, shuffled)

    swapped = ds.GraphDef.FromString(ours.SerializeToString())
    total = [n for n in swapped.node if n.name == "sum"][0]
    total.input[0], total.input[1] = total.input[1], total.input[0]
    with pytest.raises(AssertionError, match="Node named 'sum' has inputs"):
        ds.test.assert_equal_graph_def(swapped, ours)
    fewer = ds.GraphDef()
    fewer.node.extend(n for n in ours.node if n.name != "b")
    with pytest.raises(AssertionError, match="Did not find expected node 'b = Const"):
        ds.test.assert_equal_graph_def(fewer, ours)
    with pytest.raises(AssertionError, match="Found unexpected node 'b = Const"):
        ds.test.assert_equal_graph_def(ours, fewer)
    with pytest.raises(TypeError, match="Expected tf.GraphDef for expected, got str"):
        ds.test.assert_equal_graph_def(ours, "node {}")


def test_saver_random_file_names_compare_with_checkpoint_v2():
    def named(suffix):
        def build():
            ds.constant(f"model_temp_{suffix * 32}/part", name="filename")
        return _graph_def(build)

    first, second = named("a"), named("b")
    with pytest.raises(AssertionError, match="Node named 'filename' has attr 'value'"):
        ds.test.assert_equal_graph_def(first, second)
    ds.test.assert_equal_graph_def(first, second, checkpoint_v2=True)
    assert first.node[0].attr["value"].tensor.string_val    # the arguments are unchanged


@pytest.mark.parametrize("dims", [None, [], [3, None], [0, 2]], ids=str)
def test_tensor_shapes_go_to_tfs_proto_and_back(dims):
    """``as_proto`` (what assertProtoEquals compares) and ``TensorShape(proto)``, as TF's:
    an unknown rank is ``unknown_rank``, an unknown dimension -1."""
    shape = ds.TensorShape(dims)
    proto = shape.as_proto()
    assert proto.unknown_rank == (dims is None)
    assert [d.size for d in proto.dim] == [-1 if d is None else d for d in dims or []]
    back = ds.TensorShape(proto)
    assert back.dims is None if dims is None else back == shape
