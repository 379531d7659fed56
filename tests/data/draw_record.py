"""How the stateless samplers' recorders (tests/data/make_tf_stateless_*.py) write what TF
drew: each fetch's op type and name, and its dtype, shape and values (as float64 lists),
in the JSON tests/test_stateless_rates.py's ``_assert_as_tf`` reads."""

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def record_draws(v1, fetches: dict, record: dict) -> dict:
    """``record`` with the ``names`` and ``values`` of ``fetches`` run in a TF1 session
    (``v1``: ``tf.compat.v1``) on the default graph."""
    record["names"] = {k: [t.op.type, t.op.name] for k, t in fetches.items()}
    with v1.Session() as sess:
        record["values"] = {name: {"dtype": value.dtype.name, "shape": list(value.shape),
                                   "value": value.astype(np.float64).tolist()}
                            for name, value in sess.run(fetches).items()}
    return record


def write_json(record: dict, stem: str) -> None:
    """``tests/data/<stem>.json``, keys sorted."""
    with open(os.path.join(HERE, f"{stem}.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
