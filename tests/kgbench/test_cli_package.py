"""The shape of ``kgbench/cli/``: thin command modules over shared helpers, registered
in one ``app.py``, and use cases below it that print nothing.

Read from the source (no imports), so a late import inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "kgbench" / "cli"
SHARED = {"errors", "options", "output", "render", "evaluation_tables"}
COMMANDS = {"load", "explore", "cypher", "questions", "extend", "generate", "export", "demo", "store",
            "model", "evaluate", "score", "kalma", "conner", "serve"}
USE_CASES = [
    "loaders/into_store.py", "kgstore/lookup.py", "extension/inputs/parsed_file.py",
    "extension/inputs/question_parsing.py", "extension/inputs/question_grounding.py",
    "extension/run/extend_file.py", "extension/run/generate_inputs.py", "kgbench/demo/tour.py",
    "scoring/evaluate/run.py", "scoring/score/benchmark.py",
    "scoring/train.py", "extension/run/generate_job.py", "kalma/generate_job.py",
    "scoring/evaluate/choose.py",
    # the service: the second shell over the same use cases, never over the CLI (the job
    # child is a program of its own: its usage line is printed)
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "kgbench" / "service").rglob("*.py")
            if p.name != "child.py"),
]
LAYERS = {"kgstore": 0, "loaders": 1, "llm": 1, "extension": 2, "scoring": 3, "kalma": 4, "kgbench": 5}


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (``from a.b import c`` gives
    ``a.b`` and ``a.b.c``: ``c`` may be a submodule)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def cli_modules(path: Path) -> set[str]:
    """The ``kgbench.cli`` submodules ``path`` imports."""
    prefix = "kgbench.cli."
    return {name[len(prefix):].split(".")[0] for name in imported_modules(path)
            if name.startswith(prefix)}


def test_every_module_of_the_package_is_known() -> None:
    found = {p.stem for p in CLI.glob("*.py")}
    assert found == SHARED | COMMANDS | {"__init__", "__main__", "app"}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_modules_import_only_the_shared_modules(name: str) -> None:
    used = cli_modules(CLI / f"{name}.py")
    assert used <= SHARED, f"{name}.py imports {sorted(used - SHARED)}"


@pytest.mark.parametrize("name", sorted(SHARED))
def test_shared_modules_import_no_command_module(name: str) -> None:
    used = cli_modules(CLI / f"{name}.py")
    assert used <= SHARED - {name}, f"{name}.py imports {sorted(used - SHARED)}"


def test_only_the_entry_points_import_the_app() -> None:
    importers = {p.relative_to(ROOT).as_posix() for p in ROOT.glob("kgbench/**/*.py")
                 if "app" in cli_modules(p)}
    assert importers == {"kgbench/cli/__init__.py", "kgbench/cli/__main__.py"}
    assert COMMANDS <= cli_modules(CLI / "app.py")  # each command module registered there


@pytest.mark.parametrize("relative", USE_CASES)
def test_use_cases_print_nothing_and_leave_the_cli_alone(relative: str) -> None:
    path = ROOT / relative
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = {node.func.id for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert "print" not in calls
    imported = imported_modules(path)
    assert not {m for m in imported if m.split(".")[0] in ("rich", "typer")}
    assert not {m for m in imported if m.startswith("kgbench.cli")}
    # The layers below kgbench hold for every module: tests/test_layers.py.


@pytest.mark.parametrize("relative", sorted(p.relative_to(ROOT).as_posix()
                                            for p in ROOT.glob("llm/*.py")))
def test_the_llm_client_imports_no_other_kgbench_package(relative: str) -> None:
    """``llm`` sits below ``extension`` (its prompts and verbalizer use the client), so it
    must not reach back up or sideways into any other package of the project; only
    ``kgstore``, the layer below it, may serve it (the cache's confined writes)."""
    ours = set(LAYERS) | {"scoring"}
    imported = {m.split(".")[0] for m in imported_modules(ROOT / relative)}
    assert not (imported & ours) - {"llm", "kgstore"}, \
        f"{relative} imports {sorted(imported & ours)}"
