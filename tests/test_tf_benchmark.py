"""``ds.test.Benchmark``: a TF1 benchmark file run by ``ds.test.main()`` with
``--benchmark_filter`` (TF1's ``--benchmarks=`` too) prints TF's BenchmarkEntries text;
with ``TEST_REPORT_FILE_PREFIX`` it writes them (TF 2.21's test_log_pb2 read these
files back as its own when this was written); ``run_op_benchmark``'s figures and
extras; bad reports are TF's TypeErrors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from google.protobuf import text_format

import devsession as ds
from devsession.proto import test_log_pb2

BENCHMARK_FILE = textwrap.dedent('''
    import devsession as tf


    class ProductBenchmark(tf.test.Benchmark):
        def benchmarkProduct(self):
            with tf.Session() as sess:
                x = tf.ones([32, 32])
                self.run_op_benchmark(sess, tf.matmul(x, x), min_iters=4, mbs=2.0,
                                      extras={"size": 32, "kind": "matmul"})

        def benchmarkOther(self):
            self.report_benchmark(iters=1, wall_time=0.25, name="other/one")


    class ProductTest(tf.test.TestCase):
        def testProduct(self):
            self.assertAllEqual(self.evaluate(tf.ones([2]) * 2.0), [2.0, 2.0])


    if __name__ == "__main__":
        tf.test.main()
''')


def run_file(tmp_path, *args, env=None):
    path = tmp_path / "product_benchmark.py"
    path.write_text(BENCHMARK_FILE)
    return subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, env=env)


def test_main_runs_the_matching_benchmarks_instead_of_the_tests(tmp_path):
    ran = run_file(tmp_path, "--benchmark_filter=Product$")
    assert ran.returncode == 0, ran.stderr
    entries = text_format.Parse(ran.stdout, test_log_pb2.BenchmarkEntries())
    (entry,) = entries.entry
    assert (entry.name, entry.iters) == ("ProductBenchmark.benchmarkProduct", 4)
    assert entry.wall_time > 0 and entry.throughput == pytest.approx(2.0 / entry.wall_time)
    assert entry.extras["size"].double_value == 32
    assert entry.extras["kind"].string_value == "matmul"
    assert "Ran 1 test" not in ran.stderr                     # the tests did not run
    tests = run_file(tmp_path)
    assert tests.returncode == 0 and "Ran 2 tests" in tests.stderr  # test_session skipped
    nothing = run_file(tmp_path, "--benchmarks=Nope")
    assert nothing.returncode == 1
    assert "No benchmarks matched the pattern: 'Nope'" in nothing.stderr


def test_reports_are_written_where_the_prefix_says(tmp_path):
    env = {**os.environ, "TEST_REPORT_FILE_PREFIX": str(tmp_path / "report_")}
    assert run_file(tmp_path, "--benchmarks=all", env=env).returncode == 0
    product = test_log_pb2.BenchmarkEntries.FromString(
        (tmp_path / "report_ProductBenchmark.benchmarkProduct").read_bytes())
    assert product.entry[0].iters == 4
    other = test_log_pb2.BenchmarkEntries.FromString(
        (tmp_path / "report_ProductBenchmark.other__one").read_bytes())   # "/" -> "__"
    assert (other.entry[0].name, other.entry[0].wall_time) == (
        "ProductBenchmark.other/one", 0.25)
    again = run_file(tmp_path, "--benchmarks=Other", env=env)
    assert again.returncode == 1 and "File already exists" in again.stderr


class TimedBenchmark(ds.test.Benchmark):
    def benchmarkTimed(self, **kwargs):          # noqa: N802  (TF's naming)
        with ds.Session() as sess:
            return self.run_op_benchmark(sess, ds.ones([8]) * 3.0, min_iters=3, **kwargs)


def test_run_op_benchmark_returns_the_median_and_the_extras(capsys):
    found = TimedBenchmark().benchmarkTimed(name="renamed", store_trace=True)
    assert (found["iters"], found["name"]) == (3, "renamed")
    assert found["wall_time"] > 0 and found["throughput"] == 0
    assert found["extras"]["wall_time_mean"] > 0 and found["extras"]["wall_time_stdev"] >= 0
    trace = json.loads(found["extras"]["full_trace_chrome_format"])
    assert any(event.get("name") == "mul" for event in trace["traceEvents"])
    printed = capsys.readouterr().out
    assert 'name: "TimedBenchmark.renamed"' in printed and "full_trace" not in printed


def test_bad_reports_are_tfs_type_errors():
    bench = TimedBenchmark()
    with pytest.raises(TypeError, match="extras must be a dict"):
        bench.report_benchmark(iters=1, extras=[1])
    with pytest.raises(TypeError, match="metric must has a 'value' field"):
        bench.report_benchmark(iters=1, metrics=[{"name": "accuracy"}])
    with pytest.raises(TypeError, match="metrics must be a list"):
        bench.report_benchmark(iters=1, metrics={"name": "a", "value": 1})
