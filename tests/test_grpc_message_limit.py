"""Tensors far larger than one gRPC message move in chunks: the claim behind "no 2 GB
limit", proven with little memory.

``test_grpc_processes.py`` moves a tensor over 2 GB (protobuf's limit) between worker
processes, but only where 8 GB are free.  Here every server and channel gets a message
limit of 2 MiB instead of 64 MiB, and tensors of 24 MiB (twelve times the limit) are
fed by the client, moved worker to worker and fetched back: each must travel as a
stream of 1 MiB pieces.  The control case proves the lowered limit is really enforced:
the same tensor sent as one message is refused.  The servers offer no direct data path
(``data_port=None``) and the client uses none, so every tensor goes through gRPC.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.distributed import create_local_cluster
from devsession.distributed.transport import channels, wire

LIMIT = 2 << 20                  # above the 1 MiB chunks and inline messages, below...
N = 3 << 20                      # ...3M float64 = 24 MiB: twelve messages' worth
W = "/job:worker/task:{}"


@pytest.fixture
def small_limit_cluster(monkeypatch):
    """Two in-process workers whose servers and channels allow 2 MiB per message."""
    monkeypatch.setattr(channels, "MAX_MESSAGE_BYTES", LIMIT)
    assert ("grpc.max_receive_message_length", LIMIT) in channels.server_options()
    servers = create_local_cluster(2, data_port=None)
    yield servers
    for server in servers:
        server.stop(grace=0)


def grpc_only_session(server, graph):
    options = ds.SessionOptions(target=server.target, config={"local_master": False,
                                                              "direct_path": False})
    return ds.Session(options=options, graph=graph)


def big_graph():
    g = ds.Graph()
    with g.as_default():
        fed = ds.placeholder(ds.float64, (N,), name="fed")
        with ds.device(W.format(1)):
            made = ds.random_uniform((N,), dtype=ds.float64, seed=7, name="made")
            doubled = ds.multiply(fed, 2.0, name="doubled")          # the feed, on task 1
            made_sum = ds.reduce_sum(made, name="made_sum_on_1")
        moved_sum = ds.reduce_sum(made, name="made_sum_on_0")        # task 1 -> task 0
    return g, fed, made, doubled, made_sum, moved_sum


def test_tensors_twelve_times_the_message_limit_stream_in_chunks(small_limit_cluster):
    assert N * 8 > 10 * LIMIT and wire.CHUNK_BYTES < LIMIT and wire.INLINE_BYTES < LIMIT
    g, fed, made, doubled, made_sum, moved_sum = big_graph()
    x = np.random.default_rng(0).random(N)
    with grpc_only_session(small_limit_cluster[0], g) as sess:
        got_made, got_doubled, on_1, on_0 = sess.run([made, doubled, made_sum, moved_sum],
                                                     {fed: x})
    np.testing.assert_array_equal(got_doubled, x * 2)            # fed in, fetched back
    assert got_made.shape == (N,) and 0 <= got_made.min() and got_made.max() < 1
    np.testing.assert_allclose([on_1, on_0], got_made.sum(), rtol=1e-12)


def test_the_lowered_limit_is_enforced(small_limit_cluster, monkeypatch):
    """The control: sent as one message (inline), the same tensor is refused."""
    monkeypatch.setattr(wire, "INLINE_BYTES", 64 << 20)
    g, fed, made, doubled, made_sum, moved_sum = big_graph()
    with grpc_only_session(small_limit_cluster[0], g) as sess:
        with pytest.raises(ds.errors.ResourceExhaustedError,
                           match=rf"larger than max \(\d+ vs\. {LIMIT}\)"):
            sess.run(moved_sum)
