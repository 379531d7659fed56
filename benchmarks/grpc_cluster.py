"""The gRPC session on a loopback cluster, beside raw grpcio (and TF1) in the same run.

    python -m devsession.benchmarks.grpc_cluster [--repeats 7] [--json out.json]
                                                 [--tf1-python /path/to/python] [--no-kill]

Every figure is measured against processes started here: two ``devsession worker``
processes (tasks 0 and 1, the session's master on task 0) and this process as the
client.  Beside each of our figures, the same bytes or round trips through raw grpcio
between this process and a bare grpcio server process, and (when a Python with
tensorflow is given) TF1's distributed runtime doing the same steps.

* worker -> worker: a variable on task 1 read on task 0 (``identity`` as a target, so
  nothing comes back to the client), 4 MB and 100 MB, in MB/s, as a ratio to raw grpcio
  streaming the same bytes in 1 MiB and 4 MiB chunks (the better of the two);
* client feed / fetch of 100 MB through the master (feed a placeholder consumed by an
  identity target; fetch a variable), in MB/s;
* tiny two-worker step: a scalar made on task 1 (the identity of a constant: constants
  are copied to the tasks that read them) plus a constant on task 0, fetched, in ms,
  beside a raw grpcio unary round trip;
* SIGKILL: the time from killing task 1 in the middle of a long step to the client's
  ``UnavailableError``.

Warm-up first; then ``--repeats`` interleaved rounds (ours and raw alternate, so machine
noise falls on both; tiny steps alternate by blocks of ``TINY_BLOCK``) and medians.  Setup time (process start, first step with its kernel
compilation) is reported apart.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import platform
import statistics
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np

from devsession.distributed.local_processes import WorkerProcesses, first_line, free_ports

MB = 1e6
SIZES = {"4MB": 4 << 20, "100MB": 100 << 20}
# Tiny steps are timed in blocks of this many, ours and raw grpcio's alternating by block:
# a step right after another process's call (raw grpcio's server) costs twice as much
# here, and TF1's steps, timed in their own process, never follow one.
TINY_BLOCK = 50

RAW_SERVER = textwrap.dedent("""
    import sys, grpc
    from concurrent import futures
    ident = lambda b: b
    def echo(request, context): return request
    def sink(requests, context):
        n = 0
        for chunk in requests: n += len(chunk)
        return n.to_bytes(8, "little")
    limit = 64 << 20
    options = [("grpc.max_receive_message_length", limit), ("grpc.max_send_message_length", limit)]
    server = grpc.server(futures.ThreadPoolExecutor(8), options=options)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("raw", {
        "Echo": grpc.unary_unary_rpc_method_handler(echo, ident, ident),
        "Sink": grpc.stream_unary_rpc_method_handler(sink, ident, ident)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(port, flush=True)
    sys.stdin.read()
""")


class RawGrpc:
    """A bare grpcio server in another process, driven from this one."""

    def __init__(self):
        import grpc

        self.proc = subprocess.Popen([sys.executable, "-c", RAW_SERVER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        port = int(first_line(self.proc))
        limit = 64 << 20
        self.channel = grpc.insecure_channel(
            f"127.0.0.1:{port}", options=[("grpc.max_receive_message_length", limit),
                                          ("grpc.max_send_message_length", limit)])
        self.echo = self.channel.unary_unary("/raw/Echo")
        self.sink = self.channel.stream_unary("/raw/Sink")
        self.payload = np.random.default_rng(0).bytes(max(SIZES.values()))

    def round_trip(self) -> float:
        start = time.perf_counter()
        self.echo(b"x", timeout=10)
        return time.perf_counter() - start

    def stream(self, size: int, chunk: int) -> float:
        view = memoryview(self.payload)
        start = time.perf_counter()
        self.sink((bytes(view[i:i + chunk]) for i in range(0, size, chunk)), timeout=60)
        return time.perf_counter() - start

    def close(self) -> None:
        self.channel.close()
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


class Workers(WorkerProcesses):
    """``devsession worker`` processes for tasks 0..n-1 on free loopback ports."""

    def __init__(self, n: int):
        import devsession as ds

        super().__init__(ds.ClusterSpec({"worker": [f"127.0.0.1:{p}" for p in free_ports(n)]}))
        try:
            for task in range(n):
                self.start(task)
        except BaseException:
            self.stop()
            raise

    @property
    def target(self) -> str:
        return f"grpc://{self.spec.task_address('worker', 0)}"


def build_graphs(ds):
    """(graph, init, {size: tensor moved from task 1 to 0}, the 100 MB variable, the
    placeholder fed, its identity, the tiny step's sum), built with ``ds``: devsession,
    or ``tf.compat.v1`` in ``tf1_script``, which runs this very source."""
    g = ds.Graph()
    moves, values = {}, {}
    with g.as_default():
        for name, size in SIZES.items():
            with ds.device("/job:worker/task:1"):
                v = ds.Variable(ds.random_uniform((size // 4,), seed=1), name=f"v{name}")
            with ds.device("/job:worker/task:0"):
                moves[name] = ds.identity(v, name=f"moved{name}")
            values[name] = v
        with ds.device("/job:worker/task:0"):
            big = ds.Variable(ds.random_uniform((SIZES["100MB"] // 4,), seed=2), name="big")
            fed = ds.placeholder(ds.float32, (None,), name="fed")
            fed_used = ds.identity(fed, name="fed_used")
            tiny_0 = ds.constant(1.0, name="tiny0")
        with ds.device("/job:worker/task:1"):
            tiny_1 = ds.identity(ds.constant(2.0), name="tiny1")   # computed there, not a constant
        with ds.device("/job:worker/task:0"):
            tiny = ds.add(tiny_0, tiny_1, name="tiny")
        init = ds.global_variables_initializer()
    return g, init, moves, big, fed, fed_used, tiny


def make_steps(sess, init, moves, big, fed, fed_used, tiny):
    """({size: move}, fetch 100 MB, feed 100 MB, tiny step): the steps timed, as callables
    of ``sess`` on ``build_graphs``' graph (run in ``tf1_script`` too)."""
    sess.run(init)
    moved = {name: sess.make_callable(t.op) for name, t in moves.items()}
    fetch_big = sess.make_callable(big.value())
    feed_big = sess.make_callable(fed_used.op, [fed])
    tiny_step = sess.make_callable(tiny)
    return moved, fetch_big, feed_big, tiny_step


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_ms(samples) -> float:
    return statistics.median(samples) * 1e3


def measure_ours_and_raw(repeats: int, tiny_steps: int) -> dict:
    import devsession as ds

    setup_start = time.perf_counter()
    workers = Workers(2)
    raw = RawGrpc()
    out: dict = {}
    try:
        g, *graph = build_graphs(ds)
        sess = ds.Session(workers.target, graph=g)
        moved, fetch_big, feed_big, tiny_step = make_steps(sess, *graph)
        feed_value = np.random.default_rng(3).random(SIZES["100MB"] // 4).astype(np.float32)
        assert tiny_step() == 3.0 and fetch_big().nbytes == SIZES["100MB"]
        for fn in moved.values():
            fn()
        feed_big(feed_value)
        out["setup_s"] = time.perf_counter() - setup_start

        samples: dict = {k: [] for k in (
            "ours_w2w_4MB", "ours_w2w_100MB", "raw_1MiB_4MB", "raw_4MiB_4MB", "raw_1MiB_100MB",
            "raw_4MiB_100MB", "ours_fetch_100MB", "ours_feed_100MB")}
        for _ in range(2):                                   # warm-up
            raw.stream(SIZES["4MB"], 1 << 20)
            tiny_step()
            raw.round_trip()
        for _ in range(repeats):
            for name in SIZES:
                samples[f"ours_w2w_{name}"].append(timed(moved[name]))
                for chunk, label in ((1 << 20, "1MiB"), (4 << 20, "4MiB")):
                    samples[f"raw_{label}_{name}"].append(
                        timed(lambda: raw.stream(SIZES[name], chunk)))
            samples["ours_fetch_100MB"].append(timed(fetch_big))
            samples["ours_feed_100MB"].append(timed(lambda: feed_big(feed_value)))
        tiny_ours, tiny_raw = [], []
        for _ in range(0, tiny_steps, TINY_BLOCK):    # blocks: each step right after another
            tiny_ours += [timed(tiny_step) for _ in range(TINY_BLOCK)]
            tiny_raw += [raw.round_trip() for _ in range(TINY_BLOCK)]

        for name, size in SIZES.items():
            ours = size / statistics.median(samples[f"ours_w2w_{name}"]) / MB
            raw_best = max(size / statistics.median(samples[f"raw_{c}_{name}"]) / MB
                           for c in ("1MiB", "4MiB"))
            out[f"worker_to_worker_{name}"] = {
                "ours_mb_s": ours, "raw_grpcio_mb_s": raw_best, "ratio": ours / raw_best,
                "raw_by_chunk_mb_s": {c: size / statistics.median(samples[f"raw_{c}_{name}"])
                                      / MB for c in ("1MiB", "4MiB")},
                "samples_s": samples[f"ours_w2w_{name}"]}
        for kind in ("fetch", "feed"):
            s = samples[f"ours_{kind}_100MB"]
            out[f"client_{kind}_100MB"] = {"ours_mb_s": SIZES["100MB"] / statistics.median(s)
                                           / MB, "samples_s": s}
        out["tiny_two_worker_step"] = {"ours_ms": median_ms(tiny_ours),
                                       "raw_grpcio_round_trip_ms": median_ms(tiny_raw),
                                       "ours_p90_ms": float(np.percentile(tiny_ours, 90)) * 1e3}
        sess.close()
        out["sigkill_to_error_ms"] = measure_sigkill(ds, workers)
    finally:
        raw.close()
        workers.stop()
    return out


def measure_sigkill(ds, workers: Workers) -> float | None:
    """Kill task 1 in the middle of a long step; ms until the client's error."""
    g = ds.Graph()
    with g.as_default():
        with ds.device("/job:worker/task:1"):
            m = ds.random_normal((512, 512), seed=1)
            for _ in range(2000):
                m = ds.tanh(ds.matmul(m, m) * 1e-2)
            slow = ds.reduce_sum(m)
        with ds.device("/job:worker/task:0"):
            out = slow + 1.0
    sess = ds.Session(workers.target, graph=g)
    run_out = sess.make_callable(out)     # placed, partitioned and registered now
    result: dict = {}

    def step():
        try:
            run_out()
        except ds.errors.UnavailableError:
            result["at"] = time.perf_counter()

    thread = threading.Thread(target=step)
    thread.start()
    time.sleep(1.0)             # the step (seconds of matmuls on task 1) is under way
    killed = time.perf_counter()
    workers.kill(1)
    thread.join(timeout=60)
    sess.close()
    return (result["at"] - killed) * 1e3 if "at" in result else None


TF1_HEAD = textwrap.dedent("""
    import json, os, signal, socket, statistics, subprocess, sys, time
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    import tensorflow as tf
    v1 = tf.compat.v1
    v1.disable_eager_execution()
    repeats, tiny_steps = int(sys.argv[1]), int(sys.argv[2])
""")

TF1_BODY = textwrap.dedent("""
    def free_ports(n):
        ss = [socket.socket() for _ in range(n)]
        for s in ss: s.bind(("127.0.0.1", 0))
        ports = [s.getsockname()[1] for s in ss]
        for s in ss: s.close()
        return ports
    hosts = [f"127.0.0.1:{p}" for p in free_ports(2)]
    serve = ("import os, sys; os.environ['TF_CPP_MIN_LOG_LEVEL']='3'; import tensorflow as tf;"
             "s = tf.compat.v1.train.Server(tf.compat.v1.train.ClusterSpec({'worker': %r}),"
             "job_name='worker', task_index=int(sys.argv[1])); print('up', flush=True); s.join()")
    procs = [subprocess.Popen([sys.executable, "-c", serve % hosts, str(i)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
             for i in range(2)]
    try:
        for p in procs: p.stdout.readline()
        g, *graph = build_graphs(v1)
        sess = v1.Session("grpc://" + hosts[0], graph=g)
        moved, fetch_big, feed_big, tiny_step = make_steps(sess, *graph)
        x = np.random.default_rng(3).random(SIZES["100MB"] // 4).astype(np.float32)
        for fn in moved.values(): fn()
        fetch_big(); feed_big(x); tiny_step()
        samples = {k: [] for k in ("4MB", "100MB", "fetch", "feed")}
        for _ in range(repeats):
            for n in SIZES: samples[n].append(timed(moved[n]))
            samples["fetch"].append(timed(fetch_big))
            samples["feed"].append(timed(lambda: feed_big(x)))
        tiny_times = [timed(tiny_step) for _ in range(tiny_steps)]
        out = {f"worker_to_worker_{n}_mb_s": s / statistics.median(samples[n]) / 1e6
               for n, s in SIZES.items()}
        out["client_fetch_100MB_mb_s"] = SIZES["100MB"] / statistics.median(samples["fetch"]) / 1e6
        out["client_feed_100MB_mb_s"] = SIZES["100MB"] / statistics.median(samples["feed"]) / 1e6
        out["tiny_two_worker_step_ms"] = statistics.median(tiny_times) * 1e3
        out["version"] = tf.__version__
        print(json.dumps(out), flush=True)
    finally:
        for p in procs:
            p.send_signal(signal.SIGKILL)
            p.wait()
        os._exit(0)   # TF's session threads would keep a process whose servers died alive
""")


def tf1_script() -> str:
    """The TF1 run, a script for a Python with tensorflow: our graph and steps (their
    source, so both sides time the same steps) on two ``tf.train.Server`` processes."""
    shared = [inspect.getsource(fn) for fn in (build_graphs, make_steps, timed)]
    return "\n".join([TF1_HEAD, f"SIZES = {SIZES!r}", *shared, TF1_BODY])


def measure_tf1(python: str, repeats: int, tiny_steps: int) -> dict:
    if not python or not os.path.exists(python):
        return {"skipped": f"no Python with tensorflow at {python!r}"}
    try:
        done = subprocess.run([python, "-c", tf1_script(), str(repeats), str(tiny_steps)],
                              capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        return {"skipped": "TF1 run timed out"}
    if done.returncode != 0:
        return {"skipped": f"TF1 run failed: {done.stderr.strip()[-500:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def print_table(figures: dict) -> None:
    tf1 = figures.get("tf1", {})
    print(f"\n{'figure':<34}{'devsession':>14}{'raw grpcio':>14}{'ratio':>8}{'TF1':>12}")
    for name in SIZES:
        f = figures[f"worker_to_worker_{name}"]
        t = tf1.get(f"worker_to_worker_{name}_mb_s")
        print(f"{'worker->worker ' + name + ' (MB/s)':<34}{f['ours_mb_s']:>14.0f}"
              f"{f['raw_grpcio_mb_s']:>14.0f}{f['ratio']:>8.2f}{t or float('nan'):>12.0f}")
    for kind in ("fetch", "feed"):
        f = figures[f"client_{kind}_100MB"]
        t = tf1.get(f"client_{kind}_100MB_mb_s")
        print(f"{'client ' + kind + ' 100MB (MB/s)':<34}{f['ours_mb_s']:>14.0f}{'':>14}{'':>8}"
              f"{t or float('nan'):>12.0f}")
    f = figures["tiny_two_worker_step"]
    t = tf1.get("tiny_two_worker_step_ms")
    print(f"{'tiny two-worker step (ms)':<34}{f['ours_ms']:>14.2f}"
          f"{f['raw_grpcio_round_trip_ms']:>14.2f}{'':>8}{t or float('nan'):>12.2f}")
    kill = figures.get("sigkill_to_error_ms")
    if kill is not None:
        print(f"{'SIGKILL -> client error (ms)':<34}{kill:>14.0f}")
    if "skipped" in tf1:
        print(f"TF1: {tf1['skipped']}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--tiny-steps", type=int, default=1000)
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--tf1-python", default=os.environ.get("DEVSESSION_TF1_PYTHON", ""),
                        help="a Python with tensorflow, to run TF1's runtime beside ours")
    args = parser.parse_args(argv)
    figures = measure_ours_and_raw(args.repeats, args.tiny_steps)
    figures["tf1"] = measure_tf1(args.tf1_python, args.repeats, args.tiny_steps)
    figures["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version(),
                          "platform": platform.platform()}
    print_table(figures)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
