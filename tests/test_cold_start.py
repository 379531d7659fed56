"""What a fresh process compiles to run its first graph (the start-up benchmark's graph).

Not timed (benchmarks/startup.py measures the time): numba's compile events are counted
in a fresh process with empty caches, so a kernel that starts compiling signatures the
plan does not run, or more helper functions than it needs, shows up here; so does a run
that compiled less than its plan's kernels (caches that were not empty after all).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from devsession.benchmarks.startup import SCRIPTS

# Compiles for the graph's 4 CPU kernels and the numba helpers they call: two fused
# elementwise regions; Softmax (its serial row driver, row, exp-and-sum, max with its
# NaN probe, the float32 exp, a block sum); Sum (row driver, compensated slice sum, its
# block sum, the store).  The whole list prints on failure.
COMPILE_BUDGET = 13
# At least one compile per kernel of the plan: a cold process cannot run them without.
MIN_COLD_COMPILES = 4
# The module numba sees for the optimizer's generated elementwise programs.
GENERATED_ELEMENTWISE = "_devsession_generated_ew_"

LISTEN = '''
import json, sys
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        d = ev.data["dispatcher"]
        compiled.append([d.py_func.__module__, d.py_func.__qualname__, str(ev.data["args"])])
event.register("numba:compile", Listener())
'''


def test_first_run_compiles_only_what_its_plan_runs(tmp_path):
    script = LISTEN + SCRIPTS["devsession"] + "\nprint(json.dumps(compiled))\n"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), DEVSESSION_CACHE_DIR=str(tmp_path),
               DEVSESSION_KERNEL_COMPILE="eager")     # what the first run compiles itself
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    compiled = json.loads(done.stdout.strip().splitlines()[-1])
    listing = "\n".join(" ".join(c) for c in compiled)
    signatures = [(module, name, args) for module, name, args in compiled]
    assert len(signatures) == len(set(signatures)), f"compiled twice:\n{listing}"
    # float32 graph, small inputs: no float64 arrays, no parallel variants, and no numba
    # builtins (min/max on scalars compile a function per type).
    assert not any("float64, 1" in args for _, _, args in compiled), listing
    assert not any(name.endswith("parallel") for _, name, _ in compiled), listing
    assert not any(module.startswith("numba.") for module, _, _ in compiled), listing
    assert len(compiled) <= COMPILE_BUDGET, f"{len(compiled)} compiles:\n{listing}"
    # And the run was cold: numba fires no compile event for a function it loads from a
    # cache, so warm caches (or kernels that were never run) would list nothing here.
    # Each of the plan's CPU kernels compiled: both fused regions, Softmax and Sum.
    modules = [module for module, _, _ in compiled]
    cold = f"{len(compiled)} compiles (were the caches warm?):\n{listing}"
    assert len(compiled) >= MIN_COLD_COMPILES, cold
    assert sum(m.startswith(GENERATED_ELEMENTWISE) for m in modules) == 2, cold
    assert {"devsession.kernels.cpu.nn", "devsession.kernels.cpu.reduce"} <= set(modules), cold
