"""The session-factory registry: exactly one factory, or an error that says why."""

from __future__ import annotations

import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import devsession as ds
from devsession.session_factory import SessionFactory, Verdict


class PrefixFactory(SessionFactory):
    """Accepts targets that start with a prefix; records what it was asked."""

    def __init__(self, prefix: str):
        self.prefix = prefix

    def accepts_options(self, options):
        if options.target.startswith(self.prefix):
            return Verdict(True, f"target starts with {self.prefix}")
        return Verdict(False, f"target does not start with {self.prefix}")

    def new_session(self, options):
        return ("session-from", self.prefix, options.target)


def get_factory_error(error, options) -> str:
    """The message of the ``error`` that looking up a factory for ``options`` raises."""
    with pytest.raises(error) as info:
        SessionFactory.get_factory(options)
    return str(info.value)


def test_builtin_direct_session_is_registered():
    assert "DIRECT_SESSION" in ds.registered_session_factories()


def test_local_target_gets_direct_session():
    factory = SessionFactory.get_factory(ds.SessionOptions(target="", device="cpu"))
    assert type(factory).__name__ == "DirectSessionFactory"
    assert type(SessionFactory.get_factory(ds.SessionOptions(target="local"))) is type(factory)


def test_no_factory_is_not_found_with_reasons(isolated_registry):
    SessionFactory.register("ZZZ_TEST", PrefixFactory("zzz://"))
    message = get_factory_error(ds.errors.NotFoundError,
                                ds.SessionOptions(target="localhost:2222"))
    assert message.startswith("No session factory registered for the given session options")
    assert 'target: "localhost:2222"' in message
    assert "DIRECT_SESSION: declines" in message
    assert "did you mean grpc://localhost:2222?" in message
    assert "ZZZ_TEST: declines: target does not start with zzz://" in message
    # sorted by name
    assert message.index("DIRECT_SESSION:") < message.index("ZZZ_TEST:")


def test_several_factories_is_internal_error_naming_them(isolated_registry):
    SessionFactory.register("A_TEST", PrefixFactory("x://"))
    SessionFactory.register("B_TEST", PrefixFactory("x://"))
    message = get_factory_error(ds.errors.InternalError, ds.SessionOptions(target="x://host"))
    assert message.startswith("Multiple session factories registered for the given session options")
    assert "{A_TEST, B_TEST}" in message


def test_duplicate_registration_names_both(isolated_registry):
    SessionFactory.register("DUP_TEST", PrefixFactory("a://"))
    with pytest.raises(ds.errors.AlreadyExistsError) as info:
        SessionFactory.register("DUP_TEST", PrefixFactory("b://"))
    assert "DUP_TEST" in str(info.value) and "PrefixFactory" in str(info.value)


def test_custom_factory_serves_its_target(isolated_registry):
    SessionFactory.register("CUSTOM_TEST", PrefixFactory("custom://"))
    assert ds.new_session(ds.SessionOptions(target="custom://a")) == \
        ("session-from", "custom://", "custom://a")


def test_register_rejects_non_factories(isolated_registry):
    with pytest.raises(TypeError):
        SessionFactory.register("BAD_TEST", object())


def test_crashing_factory_declines_with_its_error(isolated_registry):
    class Crashes(SessionFactory):
        def accepts_options(self, options):
            raise RuntimeError("boom")

        def new_session(self, options):
            raise AssertionError("never called")

    SessionFactory.register("CRASH_TEST", Crashes())
    factory = SessionFactory.get_factory(ds.SessionOptions())
    assert type(factory).__name__ == "DirectSessionFactory"
    with pytest.raises(ds.errors.NotFoundError, match="CRASH_TEST: declines: accepts_options "
                                                       "raised RuntimeError: boom"):
        SessionFactory.get_factory(ds.SessionOptions(target="nowhere"))


def test_bool_answers_are_accepted(isolated_registry):
    class Yes(SessionFactory):
        def accepts_options(self, options):
            return options.target == "yes"

        def new_session(self, options):
            return "yes-session"

    SessionFactory.register("YES_TEST", Yes())
    assert ds.new_session(ds.SessionOptions(target="yes")) == "yes-session"


def test_default_reset_is_unimplemented():
    with pytest.raises(ds.errors.UnimplementedError):
        PrefixFactory("p://").reset(ds.SessionOptions(), None)


def test_gpu_without_cuda_and_without_soft_placement_is_not_found(monkeypatch):
    monkeypatch.setenv("DEVSESSION_VISIBLE_GPUS", "")
    from devsession import devices
    devices.forget_gpu_probe()
    try:
        opts = ds.SessionOptions(device="/device:GPU:0", allow_soft_placement=False)
        with pytest.raises(ds.errors.NotFoundError) as info:
            ds.new_session(opts)
        assert "GPU:0 is not available" in str(info.value)
        assert "allow_soft_placement=True" in str(info.value)
    finally:
        devices.forget_gpu_probe()


def test_gpu_without_cuda_falls_back_with_warning(monkeypatch, caplog):
    monkeypatch.setenv("DEVSESSION_VISIBLE_GPUS", "")
    from devsession import devices
    devices.forget_gpu_probe()
    try:
        with caplog.at_level(logging.WARNING, logger="devsession"):
            sess = ds.new_session(ds.SessionOptions(device="gpu:0"))
        assert any("GPU:0" in r.getMessage() and "CPU:0" in r.getMessage()
                   for r in caplog.records)
        assert [d.device_type for d in sess.list_devices()] == ["CPU"]
        sess.close()
    finally:
        devices.forget_gpu_probe()


def test_entry_point_factories_are_loaded(isolated_registry, monkeypatch):
    import importlib.metadata as metadata

    from devsession import session_factory

    class FakeEntryPoint:
        name = "PLUGIN_TEST"
        value = "plugin:Factory"

        def load(self):
            return PrefixFactory("plugin://")

    monkeypatch.setattr(session_factory.SessionFactory, "_entry_points_loaded", False)
    monkeypatch.setattr(metadata, "entry_points",
                        lambda group=None: [FakeEntryPoint()] if group ==
                        session_factory.ENTRY_POINT_GROUP else [])
    assert "PLUGIN_TEST" in ds.registered_session_factories()
    assert ds.new_session(ds.SessionOptions(target="plugin://x"))[1] == "plugin://"


# --- property: exactly one factory, or a clear error ---------------------------------

TARGETS = st.sampled_from(["", "local", "grpc://127.0.0.1:1", "localhost:2222", "a://x",
                           "b://y", "ab://z", "http://h:1"])
DEVICES = st.sampled_from(["", "cpu", "cpu:0", "/device:CPU:0", "/job:localhost/device:CPU:0"])
PREFIXES = st.lists(st.sampled_from(["a://", "b://", "ab://", "a", "grpc://", "loc"]),
                    max_size=4)


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=TARGETS, device=DEVICES, prefixes=PREFIXES)
def test_property_exactly_one_or_clear_error(isolated_registry, target, device, prefixes):
    with SessionFactory._lock:
        for name in [n for n in SessionFactory._factories if n.startswith("P_")]:
            del SessionFactory._factories[name]
    for i, prefix in enumerate(prefixes):
        SessionFactory.register(f"P_{i}", PrefixFactory(prefix))
    options = ds.SessionOptions(target=target, device=device)
    accepting = [f"P_{i}" for i, p in enumerate(prefixes) if target.startswith(p)]
    if options.is_local:
        accepting.append("DIRECT_SESSION")
    if target.startswith("grpc://"):
        accepting.append("GRPC_SESSION")
    names = ds.registered_session_factories()
    if len(accepting) == 1:
        factory = SessionFactory.get_factory(options)
        assert factory is SessionFactory._factories[accepting[0]]
    elif not accepting:
        message = get_factory_error(ds.errors.NotFoundError, options)
        for name in names:
            assert f"{name}: declines" in message
    else:
        message = get_factory_error(ds.errors.InternalError, options)
        assert "{" + ", ".join(sorted(accepting)) + "}" in message


def test_taking_a_builtin_name_fails_at_once_and_breaks_nothing(isolated_registry):
    with pytest.raises(ds.errors.AlreadyExistsError, match="DIRECT_SESSION"):
        SessionFactory.register("DIRECT_SESSION", PrefixFactory("x://"))
    assert {"DIRECT_SESSION", "GRPC_SESSION"} <= set(ds.registered_session_factories())
