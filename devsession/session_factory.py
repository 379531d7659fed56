"""The session-factory registry: which session type serves a given ``SessionOptions``.

As TensorFlow's ``session_factory.cc``: a dict of named factories behind a lock, and
``get_factory`` asks every factory whether it accepts the options.  Exactly one must:
none is a ``NotFoundError`` and several an ``InternalError``, each keeping TF's message
prefix and adding, per factory (sorted by name), whether it accepted and why it
declined, with a did-you-mean hint where one helps.

A factory explains a refusal by returning a ``Verdict`` (falsy, with a reason) from
``accepts_options``; returning a plain bool works too.  Third-party factories register
themselves from the entry-point group ``devsession.session_factories`` (each entry
point names a ``SessionFactory`` subclass or instance; its name is the runtime type),
loaded once, the first time a factory is looked up.  The built-in factories register
themselves where they are defined (``direct_session.py``, ``distributed/factory.py``),
as TF's static registrars do; ``import devsession`` imports both, so they are always
there before any other factory could take their names.
"""

from __future__ import annotations

import abc
import dataclasses
import logging
import threading

from .errors import AlreadyExistsError, InternalError, NotFoundError, UnimplementedError
from .options import SessionOptions

__all__ = ["SessionFactory", "Verdict", "new_session", "reset", "registered_session_factories",
           "factory_verdicts"]

log = logging.getLogger("devsession")
ENTRY_POINT_GROUP = "devsession.session_factories"


@dataclasses.dataclass(frozen=True)
class Verdict:
    """A factory's answer to "do you accept these options?", with the reason."""

    accepted: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.accepted


class SessionFactory(abc.ABC):
    """Makes sessions for the options it accepts (TF's ``SessionFactory``)."""

    _factories: dict[str, "SessionFactory"] = {}
    _lock = threading.Lock()
    _entry_points_loaded = False

    @abc.abstractmethod
    def accepts_options(self, options: SessionOptions) -> "Verdict | bool":
        """Whether this factory serves ``options``; a falsy Verdict says why not."""

    @abc.abstractmethod
    def new_session(self, options: SessionOptions):
        """A new, not yet created, session for ``options``."""

    def reset(self, options: SessionOptions, containers=None) -> None:
        """Clear resource containers (all when ``containers`` is None) on the target."""
        raise UnimplementedError(f"Session factory {type(self).__name__} does not support reset.")

    # --- the registry -----------------------------------------------------------------

    @staticmethod
    def register(runtime_type: str, factory: "SessionFactory") -> None:
        """Add a factory under ``runtime_type``; ``AlreadyExistsError`` if the name is taken."""
        if not isinstance(factory, SessionFactory):
            raise TypeError(f"Factory for '{runtime_type}' must be a SessionFactory, "
                            f"not {type(factory).__name__}.")
        with SessionFactory._lock:
            existing = SessionFactory._factories.get(runtime_type)
            if existing is not None:
                raise AlreadyExistsError(
                    f"A session factory named '{runtime_type}' is already registered "
                    f"({type(existing).__name__}); cannot register {type(factory).__name__} "
                    f"under the same name.")
            SessionFactory._factories[runtime_type] = factory

    @staticmethod
    def unregister(runtime_type: str) -> None:
        """Remove a factory (for tests and plugins that unload)."""
        with SessionFactory._lock:
            SessionFactory._factories.pop(runtime_type, None)

    @staticmethod
    def get_factory(options: SessionOptions) -> "SessionFactory":
        """The one factory that accepts ``options``.

        Raises ``NotFoundError`` when none does and ``InternalError`` when several do;
        both messages list every registered factory's verdict.
        """
        verdicts = factory_verdicts(options)
        accepted = [name for name, (_, v) in verdicts.items() if v.accepted]
        if len(accepted) == 1:
            return verdicts[accepted[0]][0]
        listing = _describe(verdicts)
        if not accepted:
            raise NotFoundError(
                "No session factory registered for the given session options: "
                f"{_describe_options(options)} Registered factories are {{{', '.join(verdicts)}}}."
                f"\n{listing}")
        raise InternalError(
            "Multiple session factories registered for the given session options: "
            f"{_describe_options(options)} Candidate factories are "
            f"{{{', '.join(accepted)}}}. Unregister all but one of them, or make their "
            f"accepts_options() exclusive.\n{listing}")


def _load_entry_points() -> None:
    with SessionFactory._lock:
        if SessionFactory._entry_points_loaded:
            return
        SessionFactory._entry_points_loaded = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            target = ep.load()
            factory = target() if isinstance(target, type) else target
            SessionFactory.register(ep.name, factory)
        except AlreadyExistsError:
            log.debug("session factory %s from entry point already registered", ep.name)
        except Exception as e:  # a broken plugin must not break every session
            log.warning("Could not load session factory %r from %s: %s", ep.name, ep.value, e)


def _ensure_all() -> None:
    _load_entry_points()


def factory_verdicts(options: SessionOptions) -> dict:
    """{name: (factory, Verdict)} for every registered factory, sorted by name."""
    _ensure_all()
    with SessionFactory._lock:
        factories = sorted(SessionFactory._factories.items())
    out = {}
    for name, factory in factories:
        try:
            answer = factory.accepts_options(options)
        except Exception as e:  # a factory that crashes declines, and says why
            answer = Verdict(False, f"accepts_options raised {type(e).__name__}: {e}")
        if not isinstance(answer, Verdict):
            answer = Verdict(bool(answer), "" if answer else "declined (gave no reason)")
        out[name] = (factory, answer)
    return out


def _describe_options(options: SessionOptions) -> str:
    return (f"target: \"{options.target}\" device: \"{options.device}\" "
            f"allow_soft_placement: {options.allow_soft_placement}.")


def _describe(verdicts: dict) -> str:
    lines = []
    for name, (_, verdict) in verdicts.items():
        state = "accepts" if verdict.accepted else "declines"
        lines.append(f"  {name}: {state}{': ' + verdict.reason if verdict.reason else ''}")
    return "\n".join(lines)


def registered_session_factories() -> list[str]:
    """The names of the registered session factories, sorted."""
    _ensure_all()
    with SessionFactory._lock:
        return sorted(SessionFactory._factories)


def new_session(options: SessionOptions | None = None):
    """A new session from the one factory that accepts ``options``."""
    options = options or SessionOptions()
    return SessionFactory.get_factory(options).new_session(options)


def reset(options: SessionOptions | None = None, containers=None) -> None:
    """Clear resource containers (variables) on the target ``options`` names."""
    options = options or SessionOptions()
    if isinstance(containers, str):
        containers = [containers]
    SessionFactory.get_factory(options).reset(options, containers)
