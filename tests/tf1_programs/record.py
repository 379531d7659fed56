"""Runs every TF1 program here under real TensorFlow and records what it produced.

    /work/peers/bin/python tests/tf1_programs/record.py [pNN_topic ...]

For each program pNN_topic.py it writes expected/pNN_topic.json; it also writes
expected/symbols.json (the `tf.xxx` names each program uses, from an AST walk). TensorFlow is
needed only here, to re-record; tests read the JSON files.

Each program is run twice, each time in a fresh default graph, and both runs must record the
same values (keys with a loose tolerance excepted), so nothing recorded depends on TF's RNG.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import sys
import time
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# shared with the tests
from values import encode, load_program, program_names, read_event_tags  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected")
ALLOWED_IMPORTS = {"numpy", "tempfile", "os", "zlib"}
DEFAULT_TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


# ------------------------------------------------------------------ the programs

def check_imports(tree, name):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mods = [(node.module or "").split(".")[0]]
        else:
            continue
        bad = [m for m in mods if m not in ALLOWED_IMPORTS and m != "__future__"]
        if bad:
            raise AssertionError(f"{name} imports {bad}; programs may import only "
                                 f"{sorted(ALLOWED_IMPORTS)} and use the tf they are given")


def tf_symbols(tree):
    """Every maximal attribute chain rooted at the name `tf`: tf.nn.relu -> 'nn.relu'."""
    found = set()
    inner = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            inner.add(id(node.value))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        parts = []
        cur = node
        while isinstance(cur, ast.Attribute):
            parts.append(cur.attr)
            cur = cur.value
        if isinstance(cur, ast.Name) and cur.id == "tf":
            found.add(".".join(reversed(parts)))
    return sorted(found)


def method_names(tree):
    """Attribute names used on objects other than tf/np/os/tempfile (sess.run, v.assign...):
    a rough list of the Session/Tensor/Variable/Operation methods a program needs."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in ("tf", "np", "os", "tempfile"):
                continue
            names.add(node.attr)
    return sorted(names)


def run_once(mod):
    tf.reset_default_graph()
    out = {}
    mod.main(tf, out)
    assert tf.get_default_session() is None, "the program left a default session behind"
    return out


def strip_private(out):
    return {k: v for k, v in out.items() if not k.startswith("_")}


def dump_doc(doc):
    """JSON with one line per top-level key and per recorded value (readable diffs)."""
    lines = []
    for k, v in doc.items():
        if isinstance(v, dict) and k in ("values", "recorder_observed") and v:
            inner = [f"  {json.dumps(ik)}: {json.dumps(iv)}" for ik, iv in v.items()]
            lines.append(f" {json.dumps(k)}: {{\n" + ",\n".join(inner) + "\n }")
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def record(name):
    path = os.path.join(HERE, name + ".py")
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    check_imports(tree, name)
    mod = load_program(name)

    t0 = time.perf_counter()
    first = run_once(mod)
    seconds = time.perf_counter() - t0
    second = run_once(mod)

    tolerances = first.get("_tol", {})
    enc1 = {k: encode(v) for k, v in strip_private(first).items()}
    enc2 = {k: encode(v) for k, v in strip_private(second).items()}
    assert enc1.keys() == enc2.keys(), name
    unstable = [k for k in enc1 if k not in tolerances and enc1[k] != enc2[k]]
    assert not unstable, f"{name}: values differ between two runs: {unstable}"
    missing = [k for k in tolerances if k not in enc1]
    assert not missing, f"{name}: _tol names unknown keys {missing}"

    if seconds > 2.0:
        print(f"warning: {name} took {seconds:.2f}s under TF; programs should take under ~2s")
    doc = {
        "program": name,
        "description": (mod.__doc__ or "").strip().splitlines()[0] if mod.__doc__ else "",
        "tensorflow_version": tf.__version__,
        "tolerance": DEFAULT_TOLERANCE,
        "tolerances": tolerances,
        "values": enc1,
    }
    if "_logdirs" in first:  # summary programs: what TensorBoard reads back from each dir
        doc["recorder_observed"] = {f"event_files_{k}": read_event_tags(d)
                                    for k, d in sorted(first["_logdirs"].items())}
    for out in (first, second):
        for d in sorted(out.get("_logdirs", {}).values(), key=len):
            shutil.rmtree(d, ignore_errors=True)
    with open(os.path.join(EXPECTED, name + ".json"), "w") as f:
        f.write(dump_doc(doc))
    return doc, seconds, tf_symbols(tree), method_names(tree)


def main(argv):
    os.makedirs(EXPECTED, exist_ok=True)
    names = argv or program_names()
    sym_path = os.path.join(EXPECTED, "symbols.json")
    symbols = {}
    if os.path.exists(sym_path):
        with open(sym_path) as f:
            symbols = json.load(f).get("programs", {})
    failed = []
    for name in names:
        try:
            doc, seconds, syms, methods = record(name)
        except Exception:  # report them all, then fail
            traceback.print_exc()
            failed.append(name)
            continue
        symbols[name] = {"tf_symbols": syms, "methods": methods}
        print(f"{name:32s} ok  {seconds:6.2f}s  {len(doc['values']):3d} values  "
              f"{len(syms):3d} tf symbols")
    symbols = {k: symbols[k] for k in sorted(symbols) if k in program_names()}
    by_symbol = {}
    for prog, entry in symbols.items():
        for s in entry["tf_symbols"]:
            by_symbol.setdefault(s, []).append(prog)
    with open(sym_path, "w") as f:
        json.dump({"note": "tf_symbols: attribute chains rooted at `tf` in each program "
                           "(tf.nn.relu -> 'nn.relu'); methods: attribute names used on other "
                           "objects (sess.run -> 'run'); by_symbol: programs using each symbol",
                   "programs": symbols,
                   "by_symbol": dict(sorted(by_symbol.items()))}, f, indent=1)
        f.write("\n")
    if failed:
        print("FAILED:", " ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
