"""``kgbench demo`` prints, for every step that runs something, the command that does
the same: run as printed, each works, and the two generate commands write the demo's
benchmarks byte for byte (the demo once generated with a ``--test-fraction 0.3`` and a
``--seed`` its printed commands left out). On an 80-column terminal the commands are
broken between arguments only, with ``\\`` continuations, so a copy and paste runs
them (rich once wrapped them inside a path); the files the question step names are
there (it once printed ``--out parsed.jsonl`` and wrote nothing)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from kgbench.cli.output import command_lines
from tests.kgbench.test_cli import run

WIDTH = 80


def printed_commands(stdout: str) -> list[list[str]]:
    """The ``$ kgbench …`` commands of the tour (with their continuation lines),
    split into argument lists; every line fits ``WIDTH`` unless it holds one argument
    alone."""
    commands = []
    lines = stdout.splitlines()
    for at, line in enumerate(lines):
        if not line.startswith("$ kgbench "):
            continue
        block = [line]
        while block[-1].endswith(" \\"):
            block.append(lines[at + len(block)])
        for part in block:
            words = shlex.split(part.removeprefix("$ ").removesuffix(" \\"))
            assert len(part) <= WIDTH or len(words) == 1, part
        args = shlex.split(" ".join(b.removeprefix("$ ").removesuffix(" \\") for b in block))
        assert args[0] == "kgbench"
        commands.append(args[1:])
    return commands


def test_command_lines_break_between_arguments() -> None:
    args = ["kgbench", "generate", "--store", "./my store", "--questions",
            "/a/long/path/to/the/questions/file.jsonl", "--seed", "3", "--force"]
    lines = command_lines(args, 40)
    assert lines == ["$ kgbench generate \\", "    --store './my store' --questions \\",
                     "    /a/long/path/to/the/questions/file.jsonl \\",
                     "    --seed 3 --force"]
    joined = " ".join(x.removeprefix("$ ").removesuffix(" \\") for x in lines)
    assert shlex.split(joined) == args
    cypher = ["kgbench", "cypher", "MATCH (e) WHERE e.id = 'm.1' RETURN e"]
    assert command_lines(cypher, 200) == [
        "$ kgbench cypher \"MATCH (e) WHERE e.id = 'm.1' RETURN e\""]
    assert command_lines(["kgbench", "serve"], 30, prompt="  ", comment="web UI") == [
        "  kgbench serve   # web UI"]
    assert command_lines(["kgbench", "serve", "--data", "d"], 24, prompt="  ",
                         comment="web UI and API") == [
        "  kgbench serve --data d", "  # web UI and API"]


@pytest.mark.slow
def test_demo_prints_commands_that_reproduce_its_steps(tmp_path: Path) -> None:
    store = tmp_path / "demo-store"
    proc = run("demo", "--store", store, cwd=tmp_path, env={"COLUMNS": str(WIDTH)})
    assert proc.returncode == 0, proc.stderr
    commands = printed_commands(proc.stdout)
    assert len(commands) >= 10
    # the question step's files are there, as its commands would write them
    parse = next(c for c in commands if c[:2] == ["questions", "parse"])
    ground = next(c for c in commands if c[:2] == ["questions", "ground"])
    parsed = tmp_path / parse[parse.index("--out") + 1]
    grounded = tmp_path / ground[ground.index("--out") + 1]
    assert ground[2] == parse[parse.index("--out") + 1]
    assert len(parsed.read_text("utf-8").splitlines()) == 15
    assert (parsed.parent / "coverage.json").is_file()
    assert json.loads((grounded.parent / "grounding.json").read_text("utf-8"))["questions"] == 15
    made = {p: p.read_bytes() for p in (parsed, grounded)}
    generated = [c for c in commands if c[0] == "generate"]
    assert len(generated) == 2
    for args in commands:
        if args[0] == "generate":
            continue
        again = run(*args, cwd=tmp_path)
        assert again.returncode == 0, (args, again.stderr)
    assert {p: p.read_bytes() for p in made} == made   # the commands write the same
    for number, args in enumerate(generated):
        at = args.index("--out")
        demo_out = Path(args[at + 1])
        if not demo_out.is_absolute():
            demo_out = tmp_path / demo_out
        mine = tmp_path / f"again-{number}"
        again = run(*args[:at + 1], mine, *args[at + 2:], cwd=tmp_path)
        assert again.returncode == 0, (args, again.stderr)
        for name in ("samples.jsonl", "stats.json"):
            assert (mine / name).read_bytes() == (demo_out / name).read_bytes(), (args, name)
