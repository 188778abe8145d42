"""Where the command line writes, and how.

Tables and results go to stdout (:data:`out`); progress, notes and errors to stderr
(:data:`err`), so ``--json`` leaves exactly one JSON document on stdout
(:func:`emit_json`). The progress display adapts the loaders' and the engine's
``progress(description, done, total)`` callbacks.

Names, ids, literals and paths come from the data, and the data may be hostile: an
entity named ``"\\x1b]0;pwned\\x07"`` would retitle the terminal, a ``\\x1b[2J`` clear
it, ``\\r`` or U+202E (right-to-left override) disguise what is shown, and U+200B
(zero width space) makes two different names look the same. :func:`visible` is the one
rule for showing such text: every control and format character is written as its
escape (the text ``\\x1b``, ``\\r``, ``\\u202e``, ``\\u200b``). Both consoles apply it
to every string they print (:class:`TerminalSafeConsole`), the few
:class:`~rich.text.Text` objects built from data apply it themselves, and
:func:`emit_json` writes the characters JSON leaves raw as ``\\u`` escapes, so the JSON
document stays exact.

:func:`visible` keeps newline and tab, which lay out tables and messages; a newline in
a name would then start a line of its own, and ``"Line1\\nError: fake"`` would print a
forged error line. So a value from the data or the user is shown through
:func:`one_line` (or :func:`field`, for markup) where it enters a table cell, a label
or a message: its newlines and tabs are escapes too, and it stays on its line.

Data is printed as it is, never read as rich's own codes: the consoles replace no
``:emoji:`` codes (``root:x:0`` from a passwd line stays that, not ``root❌0``), a value
inside markup goes through :func:`field` (its ``[`` escaped), and progress descriptions
are plain text (:func:`progress`).
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

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

from kgstore.models import json_ready

__all__ = ["ProgressReporter", "TerminalSafeConsole", "command_lines", "emit_json", "err",
           "field", "human_bytes", "note", "one_line", "out", "print_command", "progress",
           "show_warning", "task_label", "visible"]

_BIDI_AND_SEPARATORS = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_FORMAT = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
           "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
           "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
           "\U000e0020-\U000e007f")
"""Unicode's format characters (category Cf, as of Unicode 15): invisible, yet they
change what is shown (zero-width spaces and joiners, the byte-order mark, bidi
controls, tag characters)."""
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI_AND_SEPARATORS}{_FORMAT}]")
"""What a terminal may act on or not show: C0 controls but newline and tab (layout uses
them), DEL, C1 controls (``\\x9b`` is a one-byte CSI), the Unicode line and paragraph
separators, and the format characters (bidirectional marks, overrides and isolates,
zero-width characters)."""
_JSON_RAW = re.compile(f"[\x7f-\x9f{_BIDI_AND_SEPARATORS}]")
"""Of those, what ``json.dumps`` leaves raw (it escapes C0 itself)."""


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x0D:
        return "\\r"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every control and format character shown as its escape: ESC as
    the four characters ``\\x1b``, CR as ``\\r``, U+202E as ``\\u202e``, U+200B as
    ``\\u200b``. Newline and tab stay (the layout's own)."""
    return _CONTROL.sub(_escaped, text)


_LAYOUT_ESCAPES = str.maketrans({"\n": "\\n", "\t": "\\t"})


def one_line(text: str) -> str:
    """A value from the data or the user (a name, id, predicate, literal, argument) as
    it is shown inside a cell, label or message: :func:`visible`, with newline and tab
    written as ``\\n`` and ``\\t`` too, so the value stays on its line and cannot forge
    one."""
    return visible(text.translate(_LAYOUT_ESCAPES))


def field(text: str) -> str:
    """:func:`one_line` for a markup string (a table cell, a title, a console line):
    the value is also markup-escaped, so a ``[`` in it is shown, not read."""
    return escape(one_line(text))


class TerminalSafeConsole(Console):
    """A console that shows every string it prints through :func:`visible`, before
    markup is read (escapes contain no ``[``, so markup is unchanged). Create it with
    ``emoji=False``: rich would otherwise turn ``:x:`` in any value into an emoji."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(visible(text), **kwargs)


out = TerminalSafeConsole(highlight=False, emoji=False)
err = TerminalSafeConsole(stderr=True, highlight=False, emoji=False)


CONTINUATION = "    "
"""The indent of a command's continuation lines."""


_SPECIAL_IN_DOUBLE_QUOTES = re.compile(r'["$`\\!]')


def shell_word(arg: str) -> str:
    """``arg`` quoted for a POSIX shell as a person would: in double quotes when it
    holds a single quote and nothing double quotes would expand (a Cypher query's
    ``'film.film.directed_by'``), else as :func:`shlex.quote` does."""
    if "'" in arg and not _SPECIAL_IN_DOUBLE_QUOTES.search(arg):
        return f'"{arg}"'
    return shlex.quote(arg)


def _units(args: Sequence[str]) -> list[str]:
    """Shell-quoted words, an option kept with its value (``--store PATH``), so a
    line breaks between arguments and never between an option and what it takes."""
    words = [shell_word(a) for a in args]
    units: list[str] = []
    for i, word in enumerate(words):
        if units and units[-1].startswith("-") and " " not in units[-1] \
                and not args[i].startswith("-") and args[i - 1].startswith("--"):
            units[-1] += f" {word}"
        else:
            units.append(word)
    return units


def command_lines(args: Sequence[str], width: int, *, prompt: str = "$ ",
                  comment: str | None = None) -> list[str]:
    """``args`` (a command and its arguments, unquoted) as the lines a user copies into
    a POSIX shell: quoted, broken between arguments with `` \\`` continuations so
    no line is wider than ``width`` (an argument wider than that alone stays whole on
    a line of its own: the terminal folds it, copy and paste keeps it one). ``comment``
    (``# ...``) ends the last line when it fits there, else has a line of its own."""
    lines: list[str] = []
    line = prompt
    room = width - len(CONTINUATION) - 2
    # an option and its value that do not fit a line together go on lines of their own
    units = [part for unit in _units(args)
             for part in (unit.split(" ", 1) if len(unit) > room and unit.startswith("-")
                          else [unit])]
    for index, unit in enumerate(units):
        start = line in (prompt, CONTINUATION)
        more = 2 if index < len(units) - 1 else 0   # room for " \\" unless it is the last
        if not start and len(line) + 1 + len(unit) + more > width:
            lines.append(line + " \\")
            line = CONTINUATION
            start = True
        line += unit if start else f" {unit}"
    if comment:
        tail = f"   # {comment}"
        if len(line) + len(tail) <= width:
            line += tail
        else:
            lines.append(line)
            line = f"{' ' * len(prompt)}# {comment}"
    lines.append(line)
    return lines


def print_command(args: Sequence[str], *, prompt: str = "$ ", comment: str | None = None,
                  style: str = "dim", console: Console | None = None) -> None:
    """Print a command to copy (:func:`command_lines` at the console's width), each line
    through :func:`visible` and never wrapped by rich, so a paste runs it as shown."""
    target = console or out
    for line in command_lines(args, target.width, prompt=prompt, comment=comment):
        target.print(Text(visible(line), style=style), soft_wrap=True)


def emit_json(doc: Any) -> None:
    """``doc`` as one JSON document on stdout (records through :func:`~kgstore.models.json_ready`);
    control characters are ``\\u`` escapes, as JSON allows (the values are unchanged).
    NaN and Infinity, which JSON has no words for (``json.dumps`` writes them bare,
    and strict parsers refuse the document), are written as null."""
    text = json.dumps(json_ready(doc), ensure_ascii=False, indent=2, allow_nan=False)
    sys.stdout.write(_JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text))
    sys.stdout.write("\n")
    sys.stdout.flush()


def show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 file: TextIO | None = None, line: str | None = None) -> None:
    """:func:`warnings.showwarning` through :func:`visible`: a library's warning may
    quote the data (matplotlib names the glyphs of a label it cannot draw)."""
    text = warnings.formatwarning(message, category, filename, lineno, line)
    (file or sys.stderr).write(visible(text))


def task_label(text: str) -> str:
    """A progress task's description (plain text rich does not pass through the
    console; it names files): :func:`one_line`."""
    return one_line(text)


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
    """Throughput of a task in its unit (bytes/s while parsing, rows/s while copying,
    pairs/s while scoring); blank for step counters and tasks without a unit."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        unit = task.fields.get("unit")
        if not speed or unit in (None, "steps"):
            return Text("", style="progress.data.speed")
        rate = f"{human_bytes(speed)}/s" if unit == "bytes" else f"{speed:,.0f} {unit}/s"
        return Text(rate, style="progress.data.speed")


@contextmanager
def progress() -> Iterator[Progress]:
    """A progress display on stderr: spinner, description, bar, count, rate, times.
    It stays on screen when the work is done; when an error stops the work it goes,
    so the error's one line is all that is left to read."""
    display = Progress(
        SpinnerColumn(),
        # Plain text, never markup: a description names files (":x:", "[b]" as they are).
        TextColumn("{task.description}", style="progress.description", markup=False),
        BarColumn(),
        CountColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=err,
        transient=False,
    )
    display.start()
    try:
        yield display
    except BaseException:
        # A terminal clears the bar; a pipe or a file is not sent it at all.
        display.live.transient = True
        if err.is_terminal:
            display.stop()
        else:
            with err.capture():
                display.stop()
        raise
    display.stop()


class ProgressReporter:
    """Adapts the loaders' ``progress(description, done, total)`` callback to a rich
    progress display: one bar per phase (``"import: entities"`` and ``"import: facts"``
    are the same phase, the text before the first ``:``), earlier phases completed."""

    def __init__(self, display: Progress, *, row_phases: tuple[str, ...] = ()) -> None:
        self.progress = display
        self.row_phases = row_phases
        """Descriptions starting with one of these count rows (shown with rows/s)."""
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
            unit = ("bytes" if description.startswith(("parsing", "reading"))
                    else "rows" if description.startswith(self.row_phases) else "steps")
            task = self.progress.add_task(task_label(description), total=total, unit=unit)
            self.tasks[key] = task
        self.progress.update(task, completed=done, total=total,
                             description=task_label(description))

    def finish(self) -> None:
        if self.current is None:
            return
        task_id = self.tasks[self.current]
        task = next(t for t in self.progress.tasks if t.id == task_id)
        total = task.total if task.total is not None else task.completed
        self.progress.update(task_id, total=total, completed=total)
