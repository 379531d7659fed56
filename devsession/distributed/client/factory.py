"""The ``GRPC_SESSION`` factory: accepts ``grpc://host:port`` targets, and nothing else.

Deciding costs nothing: this module imports no gRPC, so looking up the factory for a
local session never loads it; ``client/session.py`` is imported when a cluster session
or a cluster reset is actually asked for.  Registered here, where it is defined
(``import devsession`` imports this module).
"""

from __future__ import annotations

from ...options import SessionOptions
from ...session_factory import SessionFactory, Verdict
from ..cluster_spec import SCHEME, target_address

__all__ = ["GrpcSessionFactory"]

class GrpcSessionFactory(SessionFactory):
    """Sessions on a cluster, through the master at the target's address."""

    def accepts_options(self, options: SessionOptions) -> Verdict:
        if not options.target.startswith(SCHEME):
            return Verdict(False, f"target \"{options.target}\" is not a cluster address "
                                  f"(grpc://host:port)")
        try:
            address = target_address(options.target)
        except ValueError as e:
            return Verdict(False, str(e))
        return Verdict(True, f"runs on the cluster whose master is at {address}")

    def new_session(self, options: SessionOptions):
        from .session import GrpcSession

        return GrpcSession(options)

    def reset(self, options: SessionOptions, containers=None) -> None:
        """Clear resource containers (variables) on every task of the target's cluster
        that the options' device filters keep."""
        from .session import master_client

        client = master_client(options)
        try:
            client.reset(containers, options.device_filters)
        finally:
            client.close()


SessionFactory.register("GRPC_SESSION", GrpcSessionFactory())
