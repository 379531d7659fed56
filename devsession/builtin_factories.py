"""Registers the built-in session factories (imported once, on first lookup)."""

from .direct_session import DirectSessionFactory
from .session_factory import SessionFactory

DIRECT_SESSION = "DIRECT_SESSION"

SessionFactory.register(DIRECT_SESSION, DirectSessionFactory())
