"""Socket settings and TLS contexts of the direct path, from the same ``Security`` value
the gRPC side uses, so both paths check the same certificates and tokens.

* ``configure``: no Nagle delay (a step's small frames leave at once), bigger buffers
  (fewer wake-ups per large tensor), and TCP keepalive so a call waiting on a machine
  that vanished without a reset fails after about ``KEEPALIVE_S`` + 5 probes, like the
  gRPC channels' keepalive.
* ``local_name``: tasks on one machine also reach each other's direct path through an
  abstract Unix socket named after the TCP port, three times TCP loopback's bandwidth
  here (8.3 vs 2.4 GB/s for 8 MB); the same handshake (TLS, token, task) runs on it.
* ``server_tls_context`` / ``client_tls_context``: TLS 1.2+, the server presenting
  ``certificate``; clients verifying it against ``root_certificates`` (the host name, or
  ``target_name_override``, must match, as gRPC checks); with ``require_client_auth`` the
  server demands a client certificate signed by ``root_certificates``.  Python's ssl
  loads certificates from files only, so PEM bytes pass through a private temporary
  file that is removed at once.
"""

from __future__ import annotations

import os
import socket
import ssl
import sys
import tempfile

from ..timeouts import KEEPALIVE_S
from .security import Security

__all__ = ["configure", "server_tls_context", "client_tls_context", "BUFFER_BYTES",
           "local_name", "is_local_address", "LOCAL_SOCKETS"]

BUFFER_BYTES = 4 << 20
# Linux's abstract Unix sockets (no file; gone with their process; one namespace per
# network namespace, like TCP ports); DEVSESSION_LOCAL_SOCKETS=0 keeps to TCP.
LOCAL_SOCKETS = (sys.platform.startswith("linux") and hasattr(socket, "AF_UNIX") and
                 os.environ.get("DEVSESSION_LOCAL_SOCKETS", "1") != "0")


def local_name(port: int) -> str:
    """The abstract Unix socket beside TCP data port ``port`` of this machine."""
    return f"\0devsession-data:{port}"


def is_local_address(host: str) -> bool:
    """True if ``host`` is an address of this machine (so a peer listening there shares
    its abstract Unix sockets): a loopback address, or one a socket can bind."""
    host = host.strip("[]")
    if host == "localhost":
        return True
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((host, 0))
        return True
    except OSError:
        return False


def configure(sock: socket.socket) -> None:
    if sock.family == getattr(socket, "AF_UNIX", None):
        return                          # no TCP options; the default buffers are best
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
        try:
            sock.setsockopt(socket.SOL_SOCKET, option, BUFFER_BYTES)
        except OSError:
            pass
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", int(KEEPALIVE_S)), ("TCP_KEEPINTVL", 1),
                        ("TCP_KEEPCNT", 5)):
        if hasattr(socket, name):
            try:
                sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)
            except OSError:
                pass


def _load_chain(context: ssl.SSLContext, certificate: bytes, private_key: bytes) -> None:
    folder = tempfile.mkdtemp(prefix="devsession-tls-")
    try:
        paths = []
        for name, pem in (("cert.pem", certificate), ("key.pem", private_key)):
            path = os.path.join(folder, name)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(pem)
            paths.append(path)
        context.load_cert_chain(*paths)
    finally:
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
        os.rmdir(folder)


def server_tls_context(security: Security) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    _load_chain(context, security.certificate, security.private_key)
    if security.root_certificates is not None:
        context.load_verify_locations(cadata=security.root_certificates.decode())
    if security.require_client_auth:
        context.verify_mode = ssl.CERT_REQUIRED
    return context


def client_tls_context(security: Security) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if security.root_certificates is not None:
        context.load_verify_locations(cadata=security.root_certificates.decode())
    else:
        context.load_default_certs()
    if security.certificate is not None:
        _load_chain(context, security.certificate, security.private_key)
    return context
