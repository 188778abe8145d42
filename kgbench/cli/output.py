"""Where the command line writes, and how.

Tables and results go to stdout (:data:`out`); progress, notes and errors to stderr
(:data:`err`), so ``--json`` leaves exactly one JSON document on stdout
(:func:`emit_json`). The progress display adapts the loaders' and the engine's
``progress(description, done, total)`` callbacks.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from kgstore import to_jsonable

__all__ = ["ProgressReporter", "emit_json", "err", "human_bytes", "note", "out", "progress"]

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def emit_json(doc: Any) -> None:
    """``doc`` as one JSON document on stdout (records through :func:`to_jsonable`)."""
    sys.stdout.write(json.dumps(to_jsonable(doc), ensure_ascii=False, indent=2, default=str))
    sys.stdout.write("\n")
    sys.stdout.flush()


def note(message: str) -> None:
    """Informational line on stderr (keeps stdout clean for --json)."""
    err.print(f"[dim]{escape(message)}[/]", soft_wrap=True)


def human_bytes(n: float) -> str:
    """``1234567`` -> ``"1.2 MB"`` (powers of 1000)."""
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover


class CountColumn(ProgressColumn):
    """``done/total`` in the task's unit (bytes while parsing, steps while importing)."""

    def render(self, task: Task) -> Text:
        fmt = human_bytes if task.fields.get("unit") == "bytes" else (lambda n: f"{n:,.0f}")
        total = f"/{fmt(task.total)}" if task.total is not None else ""
        return Text(f"{fmt(task.completed)}{total}", style="progress.download")


class RateColumn(ProgressColumn):
    """Throughput of a task (bytes/s while parsing); blank for step counters."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if not speed or task.fields.get("unit") != "bytes":
            return Text("", style="progress.data.speed")
        return Text(f"{human_bytes(speed)}/s", style="progress.data.speed")


def progress() -> Progress:
    """A progress display on stderr: spinner, description, bar, count, rate, times."""
    return Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        CountColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=err,
        transient=False,
    )


class ProgressReporter:
    """Adapts the loaders' ``progress(description, done, total)`` callback to a rich
    progress display: one bar per phase (``"import: entities"`` and ``"import: facts"``
    are the same phase, the text before the first ``:``), earlier phases completed."""

    def __init__(self, display: Progress) -> None:
        self.progress = display
        self.tasks: dict[str, TaskID] = {}
        self.current: str | None = None

    @staticmethod
    def _key(description: str) -> str:
        # "parsing FILE | 1,234 lines, ..." : live stats after " | " keep one bar.
        description = description.partition(" | ")[0]
        head, sep, _ = description.partition(": ")
        return head if sep and len(head) <= 24 else description

    def __call__(self, description: str, done: int, total: int | None) -> None:
        key = self._key(description)
        if key != self.current:
            self.finish()
            self.current = key
        task = self.tasks.get(key)
        if task is None:
            unit = "bytes" if description.startswith(("parsing", "reading")) else "steps"
            task = self.progress.add_task(escape(description), total=total, unit=unit)
            self.tasks[key] = task
        self.progress.update(task, completed=done, total=total, description=escape(description))

    def finish(self) -> None:
        if self.current is None:
            return
        task_id = self.tasks[self.current]
        task = next(t for t in self.progress.tasks if t.id == task_id)
        total = task.total if task.total is not None else task.completed
        self.progress.update(task_id, total=total, completed=total)
