"""TensorFlow's op signatures, as ``tools/make_tf_op_signatures.py`` wrote them once from
TensorFlow's registry into ``tf_op_signatures.json``: what the exporter writes
(``tf_export.py``) and how a TF function body names an op's outputs
(``tf_function_import.py``: ``"node:output_arg:k"``).
"""

from __future__ import annotations

import functools
import json
import os

__all__ = ["SIGNATURES_FILE", "signature_table", "tf_signature"]

SIGNATURES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "tf_op_signatures.json")


@functools.lru_cache(maxsize=1)
def signature_table() -> dict:
    """The whole table: ``ops`` (by op type), ``missing``, ``tensorflow_version``,
    ``graph_def_version``."""
    with open(SIGNATURES_FILE) as f:
        return json.load(f)


def tf_signature(op_type: str) -> dict | None:
    """TF's signature of ``op_type`` (``inputs``, ``outputs``, ``attrs``: see
    ``tools/make_tf_op_signatures.py``), or None for an op TensorFlow lacks."""
    return signature_table()["ops"].get(op_type)
