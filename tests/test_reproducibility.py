"""The test suite's randomness is reproducible: a test's inputs never depend on which
tests ran before it (no random generator shared at module level: a test draws from its
own, e.g. the ``rng`` fixture or ``kernel_cases.rng_for``), and property tests run the
same examples on every run with no example database (``conftest.py``'s profile)."""

from __future__ import annotations

import ast
import os

from hypothesis import settings

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATORS = {"default_rng", "RandomState", "Generator"}


def shared_generators(source: str) -> list[str]:
    """Module-level names bound to a random generator object in ``source``."""
    found = []
    for stmt in ast.parse(source).body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in GENERATORS:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                found += [ast.unparse(t) for t in targets]
    return found


def test_no_test_module_shares_a_random_generator():
    offenders = {}
    for folder, subfolders, files in os.walk(HERE):
        if folder == HERE:
            subfolders.remove("data")      # scripts that wrote test data once, under TF
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path) as f:
                    names = shared_generators(f.read())
                if names:
                    offenders[os.path.relpath(path, HERE)] = names
    assert not offenders, f"module-level random generators: {offenders}"


def test_the_finder_sees_a_shared_generator():
    assert shared_generators("import numpy as np\nRNG = np.random.default_rng(7)\n") == ["RNG"]
    assert shared_generators("r: object = numpy.random.RandomState(0)\n") == ["r"]
    assert shared_generators("X = np.random.default_rng(0).standard_normal(3)\n") == []


def test_property_tests_are_derandomised_without_a_database():
    assert settings.default.derandomize is True
    assert settings.default.database is None
