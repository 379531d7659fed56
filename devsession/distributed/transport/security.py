"""Transport security for a cluster: TLS, mutual TLS, and a shared token.

``Security`` is one immutable value used on both sides of every connection:

* TLS: a server presents ``certificate`` + ``private_key``; clients (sessions, and
  workers talking to each other) verify it against ``root_certificates``.  With
  ``require_client_auth`` the server also demands a client certificate signed by
  ``root_certificates`` (mutual TLS), which clients present from the same
  ``certificate``/``private_key`` fields.
* Token: with ``token`` set, a server refuses every RPC whose ``authorization``
  metadata is not ``Bearer <token>`` (``UNAUTHENTICATED``), compared in constant time;
  clients send it on every call.

PEM values may be given as bytes, as PEM text, or as a path to a PEM file.  A session
takes its client settings from ``SessionOptions.config`` (keys ``token``,
``root_certificates``, ``certificate``, ``private_key``, ``target_name_override``);
a server from ``ds.Server(..., security=Security(...))`` or the worker command's flags.
A session whose config gives none uses the settings registered in its process for its
target's address (``remember``: a ``RayCluster`` registers the token it made for its
tasks, so the driver's sessions need not pass it).
"""

from __future__ import annotations

import dataclasses
import hmac
import ipaddress
import os

__all__ = ["Security", "token_interceptor", "is_loopback_host", "open_server_warning",
           "remember", "forget", "client_security"]

AUTH_KEY = "authorization"


def _pem(value) -> bytes | None:
    if value is None or value == b"" or value == "":
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        if value.lstrip().startswith("-----BEGIN"):
            return value.encode()
        with open(os.path.expanduser(value), "rb") as f:
            return f.read()
    raise TypeError(f"A PEM value must be bytes, PEM text or a file path, not "
                    f"{type(value).__name__}.")


@dataclasses.dataclass(frozen=True)
class Security:
    """How a server or client secures its connections (see the module docstring)."""

    token: str | None = None
    certificate: bytes | None = None
    private_key: bytes | None = None
    root_certificates: bytes | None = None
    require_client_auth: bool = False
    target_name_override: str | None = None

    def __post_init__(self):
        for name in ("certificate", "private_key", "root_certificates"):
            object.__setattr__(self, name, _pem(getattr(self, name)))
        if self.token is not None and not isinstance(self.token, str):
            raise TypeError("Security.token must be a string.")
        if self.token is not None:
            object.__setattr__(self, "token", self.token.strip() or None)
        if (self.certificate is None) != (self.private_key is None):
            raise ValueError("Security needs both certificate and private_key, or neither.")
        if self.require_client_auth and self.root_certificates is None:
            raise ValueError("require_client_auth needs root_certificates to check client "
                             "certificates against.")

    @classmethod
    def from_config(cls, config) -> "Security":
        """The client settings in a ``SessionOptions.config`` (a dict or its item tuple)."""
        values = dict(config or ())
        known = ("token", "certificate", "private_key", "root_certificates",
                 "target_name_override")
        return cls(**{k: values[k] for k in known if values.get(k) is not None})

    @property
    def uses_tls(self) -> bool:
        return self.certificate is not None or self.root_certificates is not None

    @property
    def is_open(self) -> bool:
        """Neither TLS nor a token: anyone who can connect can run anything."""
        return not self.uses_tls and not self.token

    def metadata(self) -> tuple:
        """What a client sends on every call."""
        return ((AUTH_KEY, f"Bearer {self.token}"),) if self.token else ()

    def server_credentials(self):
        import grpc

        if self.certificate is None:
            raise ValueError("A TLS server needs certificate and private_key.")
        return grpc.ssl_server_credentials(
            [(self.private_key, self.certificate)], root_certificates=self.root_certificates,
            require_client_auth=self.require_client_auth)

    def channel_credentials(self):
        import grpc

        return grpc.ssl_channel_credentials(
            root_certificates=self.root_certificates, private_key=self.private_key,
            certificate_chain=self.certificate)

    def channel_options(self) -> list:
        if self.uses_tls and self.target_name_override:
            return [("grpc.ssl_target_name_override", self.target_name_override)]
        return []


_REMEMBERED: dict = {}       # "host:port" -> Security, for sessions of this process


def remember(addresses, security: Security) -> None:
    """Sessions of this process that give no security settings use ``security`` for
    these addresses."""
    for address in addresses:
        _REMEMBERED[address] = security


def forget(addresses) -> None:
    for address in addresses:
        _REMEMBERED.pop(address, None)


def client_security(config, address: str) -> Security:
    """A session's settings: its config's, else those remembered for ``address``."""
    given = Security.from_config(config)
    if given.is_open and given.target_name_override is None:
        return _REMEMBERED.get(address, given)
    return given


def token_interceptor(token: str, origin: str):
    """A server interceptor refusing calls without ``Bearer <token>`` (UNAUTHENTICATED)."""
    import grpc

    from .status import ORIGIN_KEY

    expected = f"Bearer {token}".encode()

    def deny(request, context):
        context.set_trailing_metadata([(ORIGIN_KEY, origin)])
        context.abort(grpc.StatusCode.UNAUTHENTICATED,
                      f"{origin} requires the cluster's token: the call had none or a wrong "
                      f"one (give it with SessionOptions(config={{'token': ...}}) or the "
                      f"worker's --token-file).")

    def deny_stream(request_iterator, context):
        deny(None, context)

    denials = {
        (False, False): grpc.unary_unary_rpc_method_handler(deny),
        (True, False): grpc.stream_unary_rpc_method_handler(deny_stream),
        (False, True): grpc.unary_stream_rpc_method_handler(deny),
        (True, True): grpc.stream_stream_rpc_method_handler(deny_stream),
    }

    class TokenInterceptor(grpc.ServerInterceptor):
        def intercept_service(self, continuation, handler_call_details):
            given = b""
            for key, value in handler_call_details.invocation_metadata or ():
                if key == AUTH_KEY:
                    given = value.encode() if isinstance(value, str) else value
            if hmac.compare_digest(given, expected):
                return continuation(handler_call_details)
            handler = continuation(handler_call_details)
            if handler is None:
                return None
            return denials[(handler.request_streaming, handler.response_streaming)]

    return TokenInterceptor()


def is_loopback_host(host: str) -> bool:
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def open_server_warning(task: str, address: str, security: Security) -> str | None:
    """The warning to log for a server reachable beyond this machine without TLS or a
    token (None when it is loopback-only or secured)."""
    from ..cluster_spec import parse_address

    host, _ = parse_address(address)
    if not security.is_open or is_loopback_host(host):
        return None
    return (f"devsession: {task} serves {address} without TLS or a token: anyone who can "
            f"reach it can run code on this machine. Give the server a Security with a "
            f"certificate and/or a token (devsession worker --tls-cert/--token-file).")
