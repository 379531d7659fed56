"""Peers: the same work done by numpy, numexpr, TF1 sessions, JAX and cupy, in our process.

Each peer is imported lazily, once, when a run asks for it; one that is not installed
(or fails to import) is reported as such and never stops the run.  numpy is always
there: it is the reference every result is checked against.

How each runs a workload, so that the comparison is like for like:

* ``numpy``, ``cupy``: the workload's ``array(xp, ...)`` function, eagerly (cupy on
  arrays already on the GPU, synchronised before the clock is read);
* ``numexpr``: the workload's numexpr expression (float32 constants, so nothing widens
  to float64), where it has one;
* ``tf1``: the workload's graph builder run with ``tf.compat.v1`` in its own
  ``tf.Graph`` and session, driven by ``Session.make_callable`` (and ``Session.run``
  where our side is timed with ``run`` too), numpy in and out like ours;
* ``jax``: ``jax.jit`` of the ``array`` function, inputs put on the device once
  (``jax.device_put``), ``block_until_ready`` on every result: this is JAX's dispatch
  plus its compiled computation, the figure JAX users quote.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import os
import time
from typing import Any

from .contenders import Contender

__all__ = ["KNOWN_PEERS", "Peer", "load_peers", "parse_peers", "peer_contenders"]

KNOWN_PEERS = ("numpy", "numexpr", "tf1", "jax", "cupy")
_MODULES = {"numpy": "numpy", "numexpr": "numexpr", "tf1": "tensorflow", "jax": "jax",
            "cupy": "cupy"}


@dataclasses.dataclass
class Peer:
    name: str
    module: Any = None          # the imported module, None when unavailable
    version: str = ""
    reason: str = ""            # why it is unavailable ('' when it is available)
    import_s: float = 0.0

    @property
    def available(self) -> bool:
        return self.module is not None

    def describe(self) -> str:
        return f"{self.name} {self.version}" if self.available else f"{self.name}: {self.reason}"


def parse_peers(text: str | None) -> list[str]:
    """``--peers numpy,jax`` as a list (numpy always first); ValueError for unknown names."""
    names = [n.strip().lower() for n in (text or ",".join(KNOWN_PEERS)).split(",") if n.strip()]
    aliases = {"tf": "tf1", "tensorflow": "tf1"}
    names = [aliases.get(n, n) for n in names]
    unknown = [n for n in names if n not in KNOWN_PEERS]
    if unknown:
        raise ValueError(f"unknown peer(s) {', '.join(unknown)}; peers: {', '.join(KNOWN_PEERS)}")
    return ["numpy"] + [n for n in dict.fromkeys(names) if n != "numpy"]


def load_peers(names: list[str], has_gpu: bool, gpu_reason: str = "") -> dict[str, Peer]:
    """Import each named peer; unavailable ones carry the reason."""
    peers = {}
    for name in names:
        if name == "cupy" and not has_gpu:
            peers[name] = Peer(name, reason=f"no GPU to run on ({gpu_reason or 'none found'})")
            continue
        peers[name] = _import_peer(name)
    return peers


def _import_peer(name: str) -> Peer:
    if name == "tf1":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # no C++ start-up chatter
        if importlib.util.find_spec("tf_keras") is not None:
            # TF1's tf.nn.rnn_cell (the LSTM workload) needs Keras 2 (tf_keras)
            os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    start = time.perf_counter()
    try:
        module = importlib.import_module(_MODULES[name])
    except ImportError:
        return Peer(name, reason="not installed")
    except Exception as e:   # a broken install must not stop the benchmark
        return Peer(name, reason=f"failed to import: {type(e).__name__}: {e}")
    if name == "jax":
        importlib.import_module("jax.numpy")
    return Peer(name, module, getattr(module, "__version__", "?"),
                import_s=time.perf_counter() - start)


def peer_contenders(peer: Peer, workload, data) -> list[Contender]:
    """The peer's contenders for a graph workload ([] where it cannot express it)."""
    if not peer.available:
        return []
    return _BUILDERS[peer.name](peer.module, workload, data)


def _numpy(np_module, workload, data):
    if workload.array is None:
        return []
    run = functools.partial(workload.array, np_module, data.feeds, data.consts)
    return [Contender("numpy", "peer", run, api="eager", device="CPU", reference=True)]


def _numexpr(ne, workload, data):
    if workload.numexpr is None:
        return []
    expression, constants = workload.numexpr
    local = dict(zip(data.names, data.feeds), **constants)
    run = functools.partial(ne.evaluate, expression, local_dict=local)
    return [Contender("numexpr", "peer", run, api="evaluate", device="CPU")]


def _tf1(tf, workload, data):
    if workload.graph is None:
        return []
    v1 = tf.compat.v1
    contenders = []
    for api in workload.apis:
        start = time.perf_counter()
        graph = tf.Graph()
        with graph.as_default():
            fetch, placeholders = workload.graph(v1, data)
        sess = v1.Session(graph=graph)
        if api == "make_callable":
            run = functools.partial(sess.make_callable(fetch, placeholders), *data.feeds)
        else:
            run = functools.partial(sess.run, fetch, dict(zip(placeholders, data.feeds)))
        contenders.append(Contender(
            "tf1" + ("" if api == "make_callable" else f" ({api})"), "peer", run, api=api,
            device="CPU", setup_s=time.perf_counter() - start, close=sess.close))
    return contenders


def _jax(jax, workload, data):
    if workload.array is None:
        return []
    import jax.numpy as jnp

    start = time.perf_counter()
    fn = jax.jit(functools.partial(workload.array, jnp))
    feeds = tuple(jax.device_put(a) for a in data.feeds)
    consts = tuple(jax.device_put(a) for a in data.consts)
    for a in feeds + consts:
        a.block_until_ready()
    return [Contender("jax jit", "peer", functools.partial(fn, feeds, consts),
                      sync=lambda r: r.block_until_ready(), api="jit",
                      device=jax.devices()[0].platform.upper(),
                      setup_s=time.perf_counter() - start)]


def _cupy(cp, workload, data):
    if workload.array is None:
        return []
    start = time.perf_counter()
    feeds = tuple(cp.asarray(a) for a in data.feeds)
    consts = tuple(cp.asarray(a) for a in data.consts)
    cp.cuda.runtime.deviceSynchronize()
    return [Contender("cupy", "peer", functools.partial(workload.array, cp, feeds, consts),
                      sync=lambda r: cp.cuda.runtime.deviceSynchronize(), to_host=cp.asnumpy,
                      api="eager", device="GPU:0", setup_s=time.perf_counter() - start)]


_BUILDERS = {"numpy": _numpy, "numexpr": _numexpr, "tf1": _tf1, "jax": _jax, "cupy": _cupy}
