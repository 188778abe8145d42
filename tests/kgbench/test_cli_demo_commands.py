"""``kgbench demo`` prints, for every step that runs something, the command that does
the same: run as printed, each works, and the two generate commands write the demo's
benchmarks byte for byte (the demo once generated with a ``--test-fraction 0.3`` and a
``--seed`` its printed commands left out)."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.kgbench.test_cli import run


def printed_commands(stdout: str) -> list[list[str]]:
    """The ``$ kgbench …`` lines of the tour, split into argument lists (a line with
    ``&&`` gives one list per command)."""
    commands = []
    for line in stdout.splitlines():
        if line.startswith("$ kgbench "):
            for part in line[2:].split(" && "):
                args = shlex.split(part)
                assert args[0] == "kgbench"
                commands.append(args[1:])
    return commands


def test_demo_prints_commands_that_reproduce_its_steps(tmp_path: Path) -> None:
    store = tmp_path / "demo-store"
    proc = run("demo", "--store", store, cwd=tmp_path, env={"COLUMNS": "1000"})
    assert proc.returncode == 0, proc.stderr
    commands = printed_commands(proc.stdout)
    assert len(commands) >= 9
    generated = [c for c in commands if c[0] == "generate"]
    assert len(generated) == 2
    for args in commands:
        if args[0] == "generate":
            continue
        again = run(*args, cwd=tmp_path)
        assert again.returncode == 0, (args, again.stderr)
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
