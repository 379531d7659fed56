"""Recorded values: the JSON encoding the recorder writes and the comparison the tests make;
also which programs there are and how one is loaded.

Shared by ``record.py`` (which runs under TensorFlow) and ``tests/test_tf1_programs.py``
(which runs under devsession), so both sides agree on one encoding and run the same
programs; see README.md's "Value encoding in the JSON".  Imports nothing but numpy and the
standard library.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

__all__ = ["program_names", "load_program", "encode", "assert_matches", "read_event_tags"]

HERE = os.path.dirname(os.path.abspath(__file__))


def program_names() -> list:
    """The programs in this folder (``pNN_topic``), sorted."""
    return sorted(f[:-3] for f in os.listdir(HERE)
                  if f.startswith("p") and f[1:3].isdigit() and f.endswith(".py"))


def load_program(name: str):
    """Program ``name`` imported as a module of its own; ``main(tf, out)`` runs it."""
    spec = importlib.util.spec_from_file_location(f"tf1_program_{name}",
                                                  os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def encode(v):
    """A JSON form of a recorded value that keeps numpy dtypes and shapes.

    ndarray / numpy scalar -> {"kind": "ndarray"|"scalar", "dtype", "shape", "value"}
    bytes                  -> {"kind": "bytes", "value": latin-1 text}
    arrays of bytes        -> dtype "object", each element encoded as bytes above
    None, bool, int, float, str stay as they are; lists/tuples become lists; dicts stay dicts.
    """
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, np.generic):
        return v
    if isinstance(v, bytes):
        return {"kind": "bytes", "value": v.decode("latin-1")}
    if isinstance(v, (np.ndarray, np.generic)):
        arr = np.asarray(v)
        kind = "scalar" if isinstance(v, np.generic) else "ndarray"
        if arr.dtype == object:
            value = _map_nested(arr.tolist(), encode)
            dtype = "object"
        elif arr.dtype.kind == "S":
            value = _map_nested(arr.tolist(), encode)
            dtype = "bytes"
        else:
            value = arr.tolist()
            dtype = str(arr.dtype)
        return {"kind": kind, "dtype": dtype, "shape": list(arr.shape), "value": value}
    if isinstance(v, (list, tuple)):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {str(k): encode(x) for k, x in v.items()}
    raise TypeError(f"cannot record a {type(v).__name__}: {v!r}")


def _map_nested(x, fn):
    if isinstance(x, list):
        return [_map_nested(y, fn) for y in x]
    return fn(x)


def assert_matches(got, want, tolerance: dict, where: str) -> None:
    """``got`` (encoded) equals ``want`` (from the JSON): kinds, dtypes and shapes exactly,
    floating values within ``tolerance`` (rtol, atol), everything else exactly.
    Raises AssertionError naming ``where`` (the key path)."""
    if isinstance(want, dict) and want.get("kind") in ("ndarray", "scalar"):
        assert isinstance(got, dict) and got.get("kind") == want["kind"], \
            f"{where}: expected a numpy {want['kind']}, got {got!r}"
        assert got["dtype"] == want["dtype"], \
            f"{where}: dtype {got['dtype']}, expected {want['dtype']}"
        assert got["shape"] == want["shape"], \
            f"{where}: shape {got['shape']}, expected {want['shape']}"
        if want["dtype"].startswith(("float", "complex")):
            np.testing.assert_allclose(
                np.asarray(got["value"], dtype=float), np.asarray(want["value"], dtype=float),
                rtol=tolerance["rtol"], atol=tolerance["atol"], err_msg=where)
        else:
            assert got["value"] == want["value"], \
                f"{where}: {got['value']!r}, expected {want['value']!r}"
    elif isinstance(want, dict) and "kind" not in want:
        assert isinstance(got, dict), f"{where}: expected a dict, got {got!r}"
        assert sorted(got) == sorted(want), f"{where}: keys {sorted(got)}, expected {sorted(want)}"
        for k in want:
            assert_matches(got[k], want[k], tolerance, f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), \
            f"{where}: expected a list of {len(want)}, got {got!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_matches(g, w, tolerance, f"{where}[{i}]")
    elif isinstance(want, float) and not isinstance(want, bool):
        assert isinstance(got, (int, float)) and not isinstance(got, bool), \
            f"{where}: expected a float, got {got!r}"
        np.testing.assert_allclose(got, want, rtol=tolerance["rtol"], atol=tolerance["atol"],
                                   err_msg=where)
    else:
        assert type(got) is type(want) and got == want, f"{where}: {got!r}, expected {want!r}"


def read_event_tags(logdir) -> dict:
    """What TensorBoard's ``EventAccumulator`` reads back from the event files in ``logdir``:
    tags, steps, scalar values (6 decimals) and whether a graph is there.  Needs the
    ``tensorboard`` package (imported here, only when called)."""
    from tensorboard.backend.event_processing import event_accumulator

    files = sorted(f for f in os.listdir(logdir) if "tfevents" in f)
    acc = event_accumulator.EventAccumulator(
        logdir, size_guidance={event_accumulator.SCALARS: 0, event_accumulator.HISTOGRAMS: 0,
                               event_accumulator.IMAGES: 0})
    acc.Reload()
    tags = acc.Tags()
    scalars = {t: [[e.step, round(float(e.value), 6)] for e in acc.Scalars(t)]
               for t in sorted(tags.get("scalars", []))}
    return {
        "event_files": len(files),
        "tags": {k: sorted(v) for k, v in tags.items() if isinstance(v, list) and v},
        "has_graph": bool(tags.get("graph")),
        "scalar_steps_and_values": scalars,
        "histogram_steps": {t: [e.step for e in acc.Histograms(t)]
                            for t in sorted(tags.get("histograms", []))},
        "image_steps": {t: [e.step for e in acc.Images(t)]
                        for t in sorted(tags.get("images", []))},
    }
