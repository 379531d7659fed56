"""Registers the built-in session factories (imported once, on first lookup)."""

from .direct_session import DirectSessionFactory
from .distributed.factory import GrpcSessionFactory  # imports no grpc until a session is made
from .session_factory import SessionFactory

DIRECT_SESSION = "DIRECT_SESSION"
GRPC_SESSION = "GRPC_SESSION"

SessionFactory.register(DIRECT_SESSION, DirectSessionFactory())
SessionFactory.register(GRPC_SESSION, GrpcSessionFactory())
