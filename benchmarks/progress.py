"""A progress bar on stderr while the benchmark runs: tqdm, else rich, else one plain line.

Neither tqdm nor rich is a dependency (``pip install 'devsession[bench]'`` adds tqdm);
without them a single line is rewritten in place on a terminal, and on anything else
(a log file, CI) one line per workload is printed instead, so logs stay readable.
"""

from __future__ import annotations

import sys
import time

__all__ = ["make_progress", "Progress"]


class Progress:
    """Counts units of work per label; subclasses draw them."""

    def __init__(self, total: int, stream=None):
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self._per_label: dict[str, int] = {}
        self._start = time.perf_counter()

    def done_for(self, label: str) -> int:
        return self._per_label.get(label, 0)

    def advance(self, label: str, steps: int = 1) -> None:
        first = label not in self._per_label
        self._per_label[label] = self._per_label.get(label, 0) + steps
        self.done = min(self.total, self.done + steps)
        self._draw(label, first)

    def _draw(self, label: str, first: bool) -> None:
        if self.stream.isatty():
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] "
                              f"{self.done}/{self.total} {label:<24.24} "
                              f"{time.perf_counter() - self._start:5.0f}s")
            self.stream.flush()
        elif first:
            self.stream.write(f"bench: {label} ...\n")
            self.stream.flush()

    def close(self) -> None:
        if self.stream.isatty():
            self.stream.write("\r" + " " * 79 + "\r")
            self.stream.flush()


class _TqdmProgress(Progress):
    def __init__(self, total: int, tqdm):
        super().__init__(total)
        self._bar = tqdm(total=total, file=sys.stderr, unit="step", leave=False,
                         dynamic_ncols=True)

    def _draw(self, label: str, first: bool) -> None:
        self._bar.set_description(label, refresh=False)
        self._bar.n = self.done
        self._bar.refresh()

    def close(self) -> None:
        self._bar.close()


class _RichProgress(Progress):
    def __init__(self, total: int, rich_progress):
        super().__init__(total)
        from rich.console import Console

        self._bar = rich_progress.Progress(console=Console(stderr=True), transient=True)
        self._task = self._bar.add_task("bench", total=total)
        self._bar.start()

    def _draw(self, label: str, first: bool) -> None:
        self._bar.update(self._task, completed=self.done, description=label)

    def close(self) -> None:
        self._bar.stop()


def make_progress(total: int, enabled: bool = True) -> Progress:
    """The best progress bar available (plain when ``enabled`` is False or stderr is not a
    terminal: a bar library's escape codes only clutter a log)."""
    if enabled and sys.stderr.isatty():
        try:
            from tqdm import tqdm

            return _TqdmProgress(total, tqdm)
        except ImportError:
            pass
        try:
            import rich.progress

            return _RichProgress(total, rich.progress)
        except ImportError:
            pass
    return Progress(total)
