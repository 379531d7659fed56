"""gRPC channels and servers configured once, deliberately, for every connection.

* Message size: ``wire.MAX_MESSAGE_BYTES`` each way (not gRPC's 4 MB default); tensors
  bigger than the inline size travel as streams of ``wire.CHUNK_BYTES`` pieces, so no
  message ever needs more.
* Keepalive: clients ping every ``KEEPALIVE_S`` during calls and give up on a peer that
  does not answer within ``KEEPALIVE_TIMEOUT_S``, so a step waiting on a machine that
  vanished (no TCP reset) fails instead of hanging; servers accept those pings.
* Servers refuse ``SO_REUSEPORT``, so two servers can never silently share a port.
* Raw bytes in and out: the services encode and decode their own messages (``wire``),
  so malformed requests become ``INVALID_ARGUMENT`` inside the handler instead of
  gRPC's generic deserialisation failure.

``ChannelPool`` keeps one channel per address (channels multiplex any number of calls)
and closes them all at once.  ``method_path`` names a method of a devsession service.
"""

from __future__ import annotations

import threading

import grpc

from .security import Security
from .wire import MAX_MESSAGE_BYTES
from ..timeouts import KEEPALIVE_S, KEEPALIVE_TIMEOUT_S

__all__ = ["channel_options",
           "server_options", "ChannelPool", "method_path"]



def channel_options(security: Security) -> list:
    return [
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.keepalive_time_ms", int(KEEPALIVE_S * 1000)),
        ("grpc.keepalive_timeout_ms", int(KEEPALIVE_TIMEOUT_S * 1000)),
        ("grpc.http2.max_pings_without_data", 0),
        ("grpc.initial_reconnect_backoff_ms", 200),
        ("grpc.max_reconnect_backoff_ms", 1000),
    ] + security.channel_options()


def server_options() -> list:
    return [
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.so_reuseport", 0),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", int(KEEPALIVE_S * 1000) // 2),
        ("grpc.http2.max_ping_strikes", 0),
    ]


def method_path(service: str, method: str) -> str:
    return f"/devsession.{service}/{method}"


def open_channel(address: str, security: Security) -> grpc.Channel:
    options = channel_options(security)
    if security.uses_tls:
        return grpc.secure_channel(address, security.channel_credentials(), options=options)
    return grpc.insecure_channel(address, options=options)


class ChannelPool:
    """One channel per address, made on first use; thread-safe."""

    def __init__(self, security: Security):
        self.security = security
        self._lock = threading.Lock()
        self._channels: dict[str, grpc.Channel] = {}
        self._closed = False

    def get(self, address: str) -> grpc.Channel:
        with self._lock:
            if self._closed:
                raise RuntimeError("The channel pool is closed.")
            channel = self._channels.get(address)
            if channel is None:
                channel = self._channels[address] = open_channel(address, self.security)
            return channel

    def close(self) -> None:
        with self._lock:
            self._closed = True
            channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            channel.close()
