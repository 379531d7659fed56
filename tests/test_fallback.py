"""A GPU asked for on a machine that cannot give one: CI's machine, simulated three ways.

"missing" (``import cupy`` fails), "no_driver" (cupy imports, the runtime has no usable
driver), "no_device" (zero devices) and "hidden" (``DEVSESSION_VISIBLE_GPUS=""``).  In
every case: no GPU devices and a reason, exactly one factory (DIRECT_SESSION), the CPU
with a logged warning when soft placement is allowed, and an error that says what is
missing when it is not.
"""

from __future__ import annotations

import logging
import sys
import time

import numpy as np
import pytest

import devsession as ds
from devsession import devices
from devsession.errors import InvalidArgumentError, NotFoundError
from devsession.session_factory import factory_verdicts
from fake_gpu import fake_gpus, isolated_kernel_registry, simulated_cupy
from sessions import assert_fails_without_soft_placement

MACHINES = {
    "missing": "cupy is not installed",
    "no_driver": "no usable CUDA driver",
    "no_device": "no CUDA device",
    "hidden": "DEVSESSION_VISIBLE_GPUS",
}


@pytest.fixture(params=sorted(MACHINES))
def no_gpu(request, monkeypatch):
    with simulated_cupy(request.param, monkeypatch):
        yield MACHINES[request.param]


def small_model():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    x = ds.placeholder(ds.float32, (None, 4), name="x")
    y = ds.nn.softmax(ds.nn.relu(ds.matmul(x, ds.constant(w, name="w")) + 0.5), name="y")
    xv = rng.standard_normal((5, 4)).astype(np.float32)
    h = np.maximum(xv @ w + np.float32(0.5), 0)
    e = np.exp(h - h.max(axis=1, keepdims=True))
    return x, y, xv, e / e.sum(axis=1, keepdims=True)


def test_no_gpu_devices_and_a_reason(no_gpu):
    start = time.perf_counter()
    assert devices.gpu_devices() == []
    assert no_gpu in devices.gpu_unavailable_reason()
    assert [d.device_type for d in devices.list_local_devices()] == ["CPU"]
    assert time.perf_counter() - start < 5


def test_gpu_request_falls_back_to_cpu_with_a_warning(no_gpu, caplog):
    x, y, xv, expected = small_model()
    with caplog.at_level(logging.WARNING, logger="devsession"):
        sess = ds.Session(options=ds.SessionOptions(device="/device:GPU:0"))
    try:
        warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert any("GPU:0" in m and "CPU:0" in m and no_gpu in m for m in warned), warned
        metadata = ds.RunMetadata()
        out = sess.run(y, {x: xv}, options=ds.RunOptions(trace=True), run_metadata=metadata)
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
        assert [d.device_type for d in sess.list_devices()] == ["CPU"]
        assert metadata.devices() == {"CPU:0"}
        assert set(sess.placement().values()) == {devices.local_device_name("CPU", 0)}
        notes = sess.placement_notes()
        assert set(notes) >= {"y", "w"} and all(no_gpu in n for n in notes.values())
    finally:
        sess.close()


def test_a_fallback_is_one_warning_not_one_a_node(no_gpu, caplog):
    """The session's own fallback is said once, when it is made; nodes moved for another
    reason are said once per reason, naming the first few."""
    x, y, xv, expected = small_model()
    with ds.device("gpu:1"):
        pinned = [ds.multiply(y, float(k), name=f"pinned{k}") for k in range(7)]
    with caplog.at_level(logging.WARNING, logger="devsession"):
        with ds.Session(options=ds.SessionOptions(device="/device:GPU:0")) as sess:
            sess.run(y, {x: xv})
            sess.run(pinned, {x: xv})
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert sum("GPU:0" in m for m in warned) == 1, warned
    moved = [m for m in warned if "pinned" in m]
    # seven products and their constants: 14 nodes, five named
    assert len(moved) == 1 and "14 nodes ('pinned0/y', 'pinned0', " in moved[0], moved
    assert "and 9 more) placed on CPU:0 instead of /device:GPU:1" in moved[0]


def test_gpu_request_without_soft_placement_is_an_error(no_gpu):
    opts = ds.SessionOptions(device="gpu:0", allow_soft_placement=False)
    with pytest.raises(NotFoundError) as info:
        ds.new_session(opts)
    message = str(info.value)
    assert "GPU:0 is not available" in message and no_gpu in message
    assert "allow_soft_placement=True" in message
    assert "DIRECT_SESSION" in message      # the registry lists who declined and why


def test_exactly_one_factory_in_every_case(no_gpu):
    for device in ["", "cpu", "gpu:0", "gpu:1", "/device:GPU:0"]:
        for soft in (True, False):
            opts = ds.SessionOptions(device=device, allow_soft_placement=soft)
            accepted = [n for n, (_, v) in factory_verdicts(opts).items() if v.accepted]
            if soft or opts.device.device_type != "GPU":
                assert accepted == ["DIRECT_SESSION"], (device, soft, accepted)
                assert ds.SessionFactory.get_factory(opts) is not None
            else:
                assert accepted == []


def test_nodes_pinned_to_a_missing_gpu(no_gpu, caplog):
    x, y, xv, expected = small_model()
    with ds.device("gpu:0"):
        z = ds.multiply(y, 2.0, name="z")
    with caplog.at_level(logging.WARNING, logger="devsession"):
        with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
            np.testing.assert_allclose(sess.run(z, {x: xv}), 2 * expected, rtol=1e-5, atol=1e-6)
            assert "z" in sess.placement_notes()
    assert any("'z'" in r.getMessage() and "CPU:0" in r.getMessage() for r in caplog.records)
    assert_fails_without_soft_placement(
        z, {x: xv}, match="operation '(z|z/y|Const(_1)?)'.*GPU:0 does not exist")


def test_cli_shows_the_fallback(no_gpu, capsys):
    from devsession.cli import main

    assert main(["factories", "--device", "gpu:0"]) == 0
    out = capsys.readouterr().out
    assert "DIRECT_SESSION" in out and "falls back to CPU:0" in out and no_gpu in out
    assert "picked: DIRECT_SESSION" in out
    assert main(["factories", "--device", "gpu:0", "--no-soft-placement"]) == 1
    out = capsys.readouterr().out
    assert "declines" in out and no_gpu in out
    assert main(["devices"]) == 0
    assert "no GPU: " in capsys.readouterr().out


def test_missing_gpu_kernels_name_the_extra_to_install(monkeypatch):
    with isolated_kernel_registry() as registry:
        monkeypatch.setitem(sys.modules, "cupy", None)
        for name in [m for m in list(sys.modules)
                     if m.startswith("devsession.kernels.cuda")]:
            monkeypatch.delitem(sys.modules, name)
        registry._loaded.discard("GPU")
        registry._load_errors.pop("GPU", None)
        with pytest.raises(NotFoundError, match=r"pip install 'devsession\[cuda\]'"):
            registry.lookup_kernel("Add", "GPU")
        with pytest.raises(NotFoundError, match="cupy"):      # remembered
            registry.registered_ops("GPU")


def test_gpu_present_but_kernels_broken_falls_back_per_node(caplog):
    with fake_gpus(1) as _:
        from devsession.kernels import registry

        with registry._lock:     # a GPU is there, but its kernel module failed to import
            for key in [k for k in registry._builders if k[1] == "GPU"]:
                del registry._builders[key]
            registry._loaded.discard("GPU")
            registry._load_errors["GPU"] = ImportError("libcublas.so: cannot open")
        x, y, xv, expected = small_model()
        with caplog.at_level(logging.WARNING, logger="devsession"):
            with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
                np.testing.assert_allclose(sess.run(y, {x: xv}), expected, rtol=1e-5,
                                           atol=1e-6)
                assert set(sess.placement().values()) == {
                    devices.local_device_name("CPU", 0)}
        assert any("libcublas.so: cannot open" in r.getMessage() for r in caplog.records)
        strict = ds.new_session(ds.SessionOptions(device="gpu:0", allow_soft_placement=False))
        try:
            with pytest.raises(InvalidArgumentError, match="GPU kernels are unavailable.*libcublas"):
                strict.run(y, {x: xv})
        finally:
            strict.close()
