"""Records TF 2.21's cluster protos of tests/data/cluster_protos_cases.py
(tests/data/cluster_protos.json) for tests/test_cluster_protos.py.  Run with TensorFlow's
Python: ``python tests/data/make_cluster_protos.py``."""

import json
import pathlib
import sys

import tensorflow.compat.v1 as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from cluster_protos_cases import CASES, errors  # noqa: E402

tf.disable_v2_behavior()

servers = []
recorded = {name: case(tf, servers) for name, case in CASES.items()}
recorded["errors"] = errors(tf)
pathlib.Path(__file__).with_name("cluster_protos.json").write_text(
    json.dumps(recorded, indent=1, sort_keys=True) + "\n")
