"""Cluster tasks as ``devsession worker`` processes on this machine, for tests and
benchmarks: free loopback ports, start a task through the CLI and wait until it serves,
SIGKILL one, stop them all.  Nothing here is needed to run a real cluster.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading

__all__ = ["free_ports", "first_line", "WorkerProcesses"]

READY_TIMEOUT_S = 120


def free_ports(count: int) -> list[int]:
    """Ports free on 127.0.0.1 right now (bound to port 0, then released)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def first_line(proc: subprocess.Popen, timeout: float = READY_TIMEOUT_S) -> str:
    """The first line ``proc`` prints, or "" if it prints none within ``timeout``."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        return ""


class WorkerProcesses:
    """Tasks of ``spec``'s ``job`` running as ``devsession worker`` subprocesses."""

    def __init__(self, spec, job: str = "worker", token_file: str | None = None):
        self.spec = spec
        self.job = job
        self.token_file = token_file
        self.procs: dict[int, subprocess.Popen] = {}

    def start(self, task: int, via_env: bool = False) -> None:
        """Start ``task`` through the CLI (its cluster in ``DEVSESSION_CONFIG`` when
        ``via_env``) and wait until it serves; RuntimeError with its stderr if it does not."""
        cmd = [sys.executable, "-m", "devsession.cli", "worker"]
        env = dict(os.environ)
        if via_env:     # TF_CONFIG's shape
            env["DEVSESSION_CONFIG"] = json.dumps({"cluster": self.spec.as_dict(),
                                                   "task": {"type": self.job, "index": task}})
        else:
            cmd += ["--cluster", self.spec.to_string(), "--job", self.job, "--task", str(task)]
        if self.token_file:
            cmd += ["--token-file", self.token_file]
        errors = tempfile.TemporaryFile()   # a pipe nobody reads could fill and block it
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors, env=env, text=True)
        self.procs[task] = proc
        line = first_line(proc)             # "" at once if the worker died
        if "serving at" not in line:
            self.procs.pop(task)
            proc.kill()
            proc.wait(timeout=30)
            errors.seek(0)
            raise RuntimeError(f"worker {task} did not start: {line!r} "
                               f"{errors.read().decode(errors='replace')[-3000:]}")

    def kill(self, task: int) -> None:
        """SIGKILL ``task`` and reap it."""
        proc = self.procs.pop(task)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)

    def stop(self) -> None:
        """SIGTERM every task, SIGKILL those that do not exit within 10 s."""
        for proc in self.procs.values():
            proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        self.procs.clear()
