"""The ``devsession`` command line: devices, factories, run, worker, demo, bench.

    devsession devices
    devsession factories --target grpc://host:2222 --device gpu:0
    devsession run model.pb --fetch out:0 --feed x:0=x.npy --device cpu --trace trace.json
    devsession worker --cluster worker=127.0.0.1:2222,127.0.0.1:2223 --job worker --task 0
    devsession demo
    devsession bench --suite small --device cpu --json figures.json --plot figures.png
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

__all__ = ["main"]


def _cmd_devices(args) -> int:
    from .devices import gpu_unavailable_reason, list_local_devices

    for d in list_local_devices():
        extra = f", compute capability {d.compute_capability[0]}.{d.compute_capability[1]}" \
            if d.compute_capability else ""
        print(f"{d.name}  {d.device_type}  memory {d.memory_limit / 2**30:.1f} GiB  "
              f"({d.description}{extra})")
    reason = gpu_unavailable_reason()
    if reason:
        print(f"no GPU: {reason}")
    return 0


def _options(args):
    from .options import SessionOptions

    return SessionOptions(target=args.target, device=args.device,
                          allow_soft_placement=not args.no_soft_placement)


def _cmd_factories(args) -> int:
    from .session_factory import factory_verdicts

    options = _options(args)
    verdicts = factory_verdicts(options)
    accepted = [name for name, (_, v) in verdicts.items() if v.accepted]
    print(f"options: target={options.target!r} device={options.device!r} "
          f"allow_soft_placement={options.allow_soft_placement}")
    for name, (_, verdict) in verdicts.items():
        mark = "accepts " if verdict.accepted else "declines"
        print(f"  {name:<16} {mark}  {verdict.reason}")
    if len(accepted) == 1:
        print(f"picked: {accepted[0]}")
        return 0
    print("error: " + ("no factory accepts these options" if not accepted else
                       f"several factories accept these options: {', '.join(accepted)}"))
    return 1


def _parse_feed(text: str):
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise SystemExit(f"--feed takes NAME=FILE.npy, got {text!r}")
    return name, np.load(path, allow_pickle=False)


def _cmd_run(args) -> int:
    from .graph import Graph
    from .options import RunMetadata, RunOptions
    from .session_factory import new_session

    graph = Graph()
    session = new_session(_options(args))
    session.create(graph)
    try:
        load = _load_saved_model if os.path.isdir(args.graph) else _load_graph_def
        names, outputs = load(session, args)
        feeds = {names.get(name, name): value for name, value in map(_parse_feed, args.feed)}
        fetches = args.fetch or outputs
        metadata = RunMetadata() if args.trace else None
        options = RunOptions(trace=bool(args.trace), timeout_s=args.timeout)
        values = session.run([names.get(f, f) for f in fetches], feed_dict=feeds,
                             options=options, run_metadata=metadata)
    finally:
        session.close()
    for name, value in zip(fetches, values):
        if value is None:
            print(f"{name}: ran")
        else:
            print(f"{name}: {value.dtype} {list(value.shape)}\n{np.array2string(value, threshold=50)}")
    if args.out:
        np.savez(args.out, **{n.replace(":", "_"): v for n, v in zip(fetches, values)
                              if v is not None})
        print(f"saved {args.out}")
    if args.trace:
        with open(args.trace, "w") as f:
            f.write(metadata.chrome_trace())
        print(f"trace written to {args.trace} (open in https://ui.perfetto.dev)")
    return 0


def _load_graph_def(session, args) -> tuple[dict, list]:
    """Import the GraphDef (its variables initialized with ``--init``); no names to map,
    no default fetches."""
    from .graph_def import import_graph_def, read_graph_def

    if not args.fetch:
        raise SystemExit("devsession run: --fetch is required for a GraphDef (a SavedModel "
                         "directory fetches its signature's outputs by default)")
    import_graph_def(read_graph_def(args.graph), graph=session.graph)
    if args.init:
        initializers = _variable_initializers(session.graph)
        if initializers:
            session.run(initializers)
    return {}, []


def _load_saved_model(session, args) -> tuple[dict, list]:
    """Load the SavedModel's MetaGraphDef of ``--tag`` (restored, its main op run);
    returns {its ``--signature``'s input and output keys: tensor names} (feeds and fetches
    may name them by key) and its output keys (the fetches when none is given)."""
    from .saved_model import loader

    meta = loader.load(session, args.tag or ["serve"], args.graph)
    signature = meta.signature_def.get(args.signature)
    if signature is None:
        raise ValueError(f"The SavedModel's MetaGraphDef has no signature "
                         f"'{args.signature}'; it has {sorted(meta.signature_def)}.")
    names = {k: v.name for k, v in signature.inputs.items()}
    names.update({k: v.name for k, v in signature.outputs.items()})
    return names, sorted(signature.outputs)


def _variable_initializers(graph) -> list:
    """The Assign ops that initialize the graph's variables (named ``<variable>/Assign``
    and reading ``<variable>/initial_value``, as ds.Variable builds them)."""
    return [op for op in graph.get_operations()
            if op.type == "Assign" and op.inputs[0].op.type == "VariableV2"
            and op.name == f"{op.inputs[0].op.name}/Assign"]


def _cmd_show(args) -> int:
    from .saved_model.describe import describe

    print(describe(args.dir))
    return 0


def _cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(json_path=args.json)


def _cmd_bench(args) -> int:
    from .benchmarks.bench import run_bench

    return run_bench(devices=args.device, suite=args.suite, repeats=args.repeats,
                     json_path=args.json, plot_path=args.plot, peers=args.peers,
                     progress=not args.no_progress)


def _cmd_worker(args) -> int:
    from .distributed.worker_main import run_worker

    return run_worker(args)


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="devsession", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("devices", help="list this machine's devices").set_defaults(fn=_cmd_devices)

    def session_flags(p):
        p.add_argument("--target", default="", help='"" (in-process) or grpc://host:port')
        p.add_argument("--device", default="", help='"", "cpu", "gpu:0", "/device:GPU:1", ...')
        p.add_argument("--no-soft-placement", action="store_true",
                       help="fail instead of falling back to the CPU")

    p = sub.add_parser("factories", help="which session factory serves these options, and why")
    session_flags(p)
    p.set_defaults(fn=_cmd_factories)

    p = sub.add_parser("run", help="run a saved GraphDef or SavedModel")
    p.add_argument("graph", help="a GraphDef file, binary or text format (ds.write_graph, "
                                 "ds.train.write_graph, or a graph TensorFlow froze), or a "
                                 "SavedModel directory (devsession's or TensorFlow's)")
    p.add_argument("--fetch", action="append", help="tensor or op name, or a signature's "
                   "output key; repeatable (a SavedModel's default: its signature's outputs)")
    p.add_argument("--feed", action="append", default=[],
                   help="NAME=FILE.npy (a tensor name or a signature's input key); repeatable")
    p.add_argument("--tag", action="append", help="a SavedModel's MetaGraphDef tag; "
                   "repeatable (default: serve)")
    p.add_argument("--signature", default="serving_default",
                   help="a SavedModel's signature (default: serving_default)")
    p.add_argument("--trace", help="write a Chrome/Perfetto trace JSON here")
    p.add_argument("--timeout", type=float, default=None, help="deadline in seconds")
    p.add_argument("--out", help="save the fetched arrays to this .npz file")
    p.add_argument("--init", action="store_true",
                   help="initialize a GraphDef's variables before running")
    session_flags(p)
    p.set_defaults(fn=_cmd_run)

    p = sub.add_parser("show", help="a SavedModel's tag sets, signatures and ops, as "
                                    "TensorFlow's saved_model_cli show --all prints them")
    p.add_argument("dir", help="a SavedModel directory (devsession's or TensorFlow's)")
    p.set_defaults(fn=_cmd_show)

    p = sub.add_parser("worker", help="serve one task of a cluster (a master and a worker)")
    from .distributed.worker_main import add_arguments as add_worker_arguments

    add_worker_arguments(p)
    p.set_defaults(fn=_cmd_worker)

    p = sub.add_parser("demo", help="run a small model on every local device, beside numpy")
    p.add_argument("--json", help="also write the figures to this JSON file")
    p.set_defaults(fn=_cmd_demo)

    p = sub.add_parser("bench", help="benchmark graph workloads on each device, beside "
                                     "numpy, numexpr, TF1 and JAX")
    p.add_argument("--device", action="append", help="cpu, gpu:0, grpc or grpc:DEVICE (a "
                   "local gRPC server); repeatable; default: every local device")
    p.add_argument("--suite", default="default", help="small, default (about a minute) or full")
    p.add_argument("--repeats", type=int, default=5,
                   help="timed rounds after the warm-up; medians are reported (default 5)")
    p.add_argument("--json", help="write every figure to this JSON file")
    p.add_argument("--plot", help="draw throughputs into this PNG (needs devsession[plot])")
    p.add_argument("--peers", help="comma-separated, from numpy,numexpr,tf1,jax,cupy "
                   "(default: all; missing ones are listed as not installed)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(fn=_cmd_bench)
    return parser


def main(argv=None) -> int:
    args = _build_parser().parse_args(argv)
    from .errors import OpError

    try:
        return args.fn(args)
    except (OpError, ValueError, TypeError, OSError, RuntimeError) as e:
        print(f"devsession {args.command}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
