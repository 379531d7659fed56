"""TF1's version constants (``tf.VERSION``, ``tf.GRAPH_DEF_VERSION``...) as devsession
reports them.

``VERSION`` is devsession's own version, the same string as ``ds.__version__`` (TF keeps
``tf.VERSION == tf.__version__``; pretending to be TensorFlow 1.15 would make bug reports
and pinned requirements lie).  A TF1 script that gates on the version keeps working:
``VERSION.startswith("2.")`` is false, so it takes its TF1 branch, which is the API
devsession follows (TF 1.15's).  A script that insists on ``startswith("1.")`` is told the
truth: this is not TensorFlow.

``GRAPH_DEF_VERSION`` is the producer version devsession writes into a GraphDef for
TensorFlow (``tf_export.to_tf_graph_def``: ``tf_op_signatures.json``'s
``graph_def_version``, TF 2.21's), so a TF1 script
that stamps its own GraphDefs with it stamps what devsession's exports say.  devsession
has no C++ build: ``CXX11_ABI_FLAG`` and ``MONOLITHIC_BUILD`` are 0 and
``COMPILER_VERSION`` is the compiler of the running Python.
"""

from __future__ import annotations

import platform

__all__ = ["VERSION", "GIT_VERSION", "COMPILER_VERSION", "CXX11_ABI_FLAG",
           "MONOLITHIC_BUILD", "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER",
           "GRAPH_DEF_VERSION_MIN_PRODUCER"]

VERSION = "0.1.0"                     # ds.__version__ is this string
GIT_VERSION = f"v{VERSION}"
COMPILER_VERSION = platform.python_compiler()
CXX11_ABI_FLAG = 0
MONOLITHIC_BUILD = 0
GRAPH_DEF_VERSION = 2474              # tf_op_signatures.json's graph_def_version (a test checks)
GRAPH_DEF_VERSION_MIN_CONSUMER = 0    # TF's: every GraphDef consumer reads version 0 on
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
