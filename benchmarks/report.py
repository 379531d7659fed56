"""What ``devsession bench`` shows and writes: a terminal table, JSON, and a PNG plot.

The report is one plain dict (``schema`` 1), written as JSON unchanged, so runs can be
diffed: the run's settings, the machine and library versions, the git commit, the
peers (with versions, or why they are missing), every workload's rows with all their
samples, and the goals judged (``goals.py``).

The table has one block per workload; for every row: where it ran, the time to its
first result (setup + first run: graph, session, plan and kernel compilation or cache
load), the steady-state median and its spread (interquartile range over the median),
throughput, speed relative to numpy in the same run, and the check against numpy.

The plot (``--plot F.png``) needs matplotlib, the ``plot`` extra; without it the
command says so before measuring anything.
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys

__all__ = ["format_table", "write_json", "write_plot", "check_plot_available",
           "environment", "git_commit"]


def _fmt_s(seconds) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _fmt_tp(value, unit: str) -> str:
    if value is None or unit == "s":
        return "-"
    if unit == "steps/s" and value >= 1e3:
        return f"{value / 1e3:.1f} k/s"
    return f"{value:.3g} {unit}"


def _check(row: dict) -> str:
    if row.get("error"):
        return "ERROR: " + row["error"][:60]
    if row.get("matches_numpy") is None:
        return "-"
    return "ok" if row["matches_numpy"] else "MISMATCH"


def format_table(report: dict) -> str:
    lines = [f"devsession bench: suite {report['suite']}, {report['repeats']} timed rounds "
             f"after warm-up (medians), commit {report['commit']}",
             f"machine: {report['machine']['summary']}",
             "peers: " + "; ".join(report["peers"]), ""]
    header = (f"  {'contender':<32}{'ran on':<16}{'first':>10}{'median':>11}{'iqr/med':>9}"
              f"{'throughput':>14}{'vs numpy':>10}  check")
    for w in report["workloads"]:
        took = f" [{w['elapsed_s']:.0f} s]" if w.get("elapsed_s") else ""
        lines.append(f"{w['name']}: {w['title']}{took}")
        if w["skipped"]:
            lines += [f"  skipped: {w['skipped']}", ""]
            continue
        lines.append(header)
        for row in w["rows"]:
            first = None
            if row.get("first_run_s") is not None:
                first = (row.get("setup_s") or 0.0) + row["first_run_s"]
            spread = "-" if row.get("spread") is None else f"{row['spread'] * 100:.0f}%"
            vs = "-" if row.get("vs_numpy") is None else f"{row['vs_numpy']:.2f}x"
            device = row.get("device") or "-"
            lines.append(f"  {row['contender']:<32.32}{device:<16.16}{_fmt_s(first):>10}"
                         f"{_fmt_s(row.get('steady_s')):>11}{spread:>9}"
                         f"{_fmt_tp(row.get('throughput'), row.get('unit', '')):>14}"
                         f"{vs:>10}  {_check(row)}")
            for note in row.get("notes", []):
                lines.append(f"      note: {note}")
        lines.append("")
    if report.get("goals"):
        lines.append("goals (ratios within this run):")
        for g in report["goals"]:
            mark = {True: "holds", False: "FAILS", None: "  -  "}[g["holds"]]
            lines.append(f"  [{mark}] {g['goal']}: {g['detail']}")
    lines.append(f"\ntook {report['elapsed_s']:.0f} s")
    return "\n".join(lines)


def write_json(report: dict, path: str) -> None:
    with open(path, "w") as f:
        json.dump(report, f, indent=1, default=_jsonable)
        f.write("\n")


def _jsonable(value):
    try:
        import numpy as np

        if isinstance(value, np.generic):
            return value.item()
    except ImportError:
        pass
    return str(value)


def check_plot_available() -> None:
    """Raise ValueError naming the ``plot`` extra when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ValueError("--plot needs matplotlib, which is not installed: "
                         "pip install 'devsession[plot]'") from None


def write_plot(report: dict, path: str) -> None:
    """One panel per measured workload: each contender's throughput (time for start-up)."""
    check_plot_available()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [w for w in report["workloads"] if not w["skipped"]
              and any(r.get("steady_s") for r in w["rows"])]
    cols = 2 if len(panels) > 1 else 1
    rows = max(1, math.ceil(len(panels) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(7 * cols, 2.6 * rows), squeeze=False)
    for ax, w in zip(axes.flat, panels):
        measured = [r for r in w["rows"] if r.get("steady_s")]
        by_time = w["unit"] == "s"
        values = [r["steady_s"] if by_time else r["throughput"] for r in measured]
        labels = [f"{r['contender']} [{r.get('device') or '-'}]"[:40] for r in measured]
        colors = ["tab:blue" if r["side"] == "ours" else "tab:gray" for r in measured]
        ys = range(len(measured))
        ax.barh(list(ys), values, color=colors)
        if min(values) > 0 and max(values) / min(values) > 30:
            ax.set_xscale("log")     # e.g. numpy's a + b next to a session step
        ax.set_yticks(list(ys), labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(f"{w['name']}: {w['title']}"[:80], fontsize=8)
        ax.set_xlabel("seconds (lower is better)" if by_time else
                      f"{w['unit']} (higher is better)", fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
        for y, v in zip(ys, values):
            ax.text(v, y, f" {v:.3g}", va="center", fontsize=6)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle(f"devsession bench ({report['suite']}, commit {report['commit']}): "
                 f"ours in blue, peers in gray", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def git_commit() -> str:
    """The checkout's commit (with "+dirty" when files differ), or "unknown"."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here,
                                capture_output=True, text=True, timeout=10)
        if commit.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=here, capture_output=True, text=True, timeout=10)
        return commit.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def environment() -> dict:
    import numpy as np

    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for name in ("numba", "devsession"):
        module = sys.modules.get(name)
        if module is not None:
            versions[name] = getattr(module, "__version__", "?")
    threads = None
    try:
        from devsession.kernels.cpu.numba_setup import num_threads

        threads = num_threads()
        versions["numba_threading_layer"] = _threading_layer()
    except Exception:
        pass
    summary = (f"{os.cpu_count()} cores, {platform.machine()}, Python "
               f"{versions['python']}, numpy {versions['numpy']}, numba "
               f"{versions.get('numba', '?')} ({threads} threads)")
    return {"summary": summary, "cpu_count": os.cpu_count(), "platform": platform.platform(),
            "versions": versions, "numba_threads": threads,
            "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
            "gomp_spincount": os.environ.get("GOMP_SPINCOUNT")}


def _threading_layer() -> str:
    import numba

    try:
        return numba.threading_layer()
    except ValueError:   # no parallel kernel has run yet
        return str(numba.config.THREADING_LAYER)
