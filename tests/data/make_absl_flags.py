"""Records absl-py's flags on the cases of tests/data/absl_flags_cases.py
(tests/data/absl_flags.json) for tests/test_tf1_flags_more.py.  Run with the Python
that has absl (TensorFlow's): ``python tests/data/make_absl_flags.py``."""

import json
import pathlib
import sys
import tempfile

import absl
from absl import flags

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from absl_flags_cases import CASES, HELPERS, run_case, run_helper  # noqa: E402

with tempfile.TemporaryDirectory() as folder:
    recorded = {"absl": getattr(absl, "__version__", None) or "absl-py",
                "cases": {name: run_case(flags, case, folder) for name, case in CASES.items()},
                "helpers": {name: run_helper(flags, name) for name in HELPERS}}
pathlib.Path(__file__).with_name("absl_flags.json").write_text(
    json.dumps(recorded, indent=1, sort_keys=True) + "\n")
