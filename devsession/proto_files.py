"""Protobuf messages in files, in either of TF's two forms: binary or text format.

TF1 writes graphs and meta graphs both ways (``tf.train.write_graph(..., as_text=True)``
writes ``text_format``; ``Saver.save`` writes a binary ``.meta``) and reads either,
trying binary first and text second, as TF's ``read_meta_graph_file`` does.  A text file
almost never parses as binary, though not because its first byte is always an invalid
tag: read as wire format, each byte's low three bits are a wire type, and a text file's
bytes soon contradict themselves.  'n' (0x6e, of ``node``) is wire type 6, which does not
exist; ``meta_info_def {`` gets further ('m', 0x6d, is a valid fixed32 field that takes
"eta_"; 'i' a fixed64 one) until '{' (0x7b) opens a group (wire type 3) that only a
matching end-group byte ('|', 0x7c) would close, and the bytes inside it fail first.

Writing is atomic and durable (``atomic_files``: a temporary file in the same directory,
fsync'ed, then ``os.replace``), so a reader never sees half a graph.
"""

from __future__ import annotations

import os

from google.protobuf import message as _message
from google.protobuf import text_format

from .atomic_files import write_atomically
from .errors import DataLossError

__all__ = ["read_message", "write_message", "parse_message"]


def parse_message(data: bytes, message_class, source: str, error=DataLossError):
    """A ``message_class`` parsed from ``data`` (binary, else text format); raises
    ``error`` (``DataLossError`` unless given) naming ``source`` when it is neither."""
    message = message_class()
    try:
        message.ParseFromString(data)
        return message
    except (_message.DecodeError, ValueError, RuntimeError) as binary_error:
        reason = binary_error
    try:   # fields devsession's protos leave out (TF's stripped_op_list...) are skipped,
        # as the binary parser keeps them aside
        return text_format.Parse(data.decode("utf-8"), message_class(),
                                 allow_unknown_field=True)
    except (text_format.ParseError, UnicodeDecodeError) as text_error:
        name = message_class.DESCRIPTOR.name
        raise error(
            f"{source} is not a {name}: Cannot parse a {name} from its {len(data)} bytes "
            f"as binary ({reason}) nor as text format ({text_error}).") from None


def read_message(path, message_class, error=DataLossError):
    """The ``message_class`` in file ``path`` (binary or text format; a local path or a
    file:// URL).  File errors are ``ds.errors`` classes as TF's file system gives them
    (``NotFoundError`` when there is no such file, ``FailedPreconditionError`` for a
    directory...: ``io/local_files.py``); ``error`` (``DataLossError`` unless given) when
    the file holds something else."""
    # Imported here: devsession.io's __init__ imports train.graph_io, which imports this.
    from .io.local_files import local_path, open_local

    path = local_path(path)
    with open_local(path, "rb") as f:
        data = f.read()
    return parse_message(data, message_class, path, error)


def write_message(path, message, as_text: bool = False) -> str:
    """Write ``message`` to ``path`` atomically and durably (``atomic_files``; text format
    when ``as_text``); returns the path.  ``OSError``s pass through."""
    path = os.fspath(path)
    data = text_format.MessageToString(message).encode() if as_text \
        else message.SerializeToString()
    write_atomically(path, lambda f: f.write(data))
    return path
