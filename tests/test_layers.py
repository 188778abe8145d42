"""The package layers hold for every module of the tree (README "Architecture",
ARCHITECTURE.md): ``kgbench → kalma → scoring → extension → loaders / llm → kgstore``, a
package imports only packages below it, and packages on one level do not import each
other. Read from the source, so a late or type-checking import counts too."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kgbench.test_cli_package import LAYERS, ROOT, imported_modules

MODULES = sorted(str(p.relative_to(ROOT)) for package in LAYERS
                 for p in (ROOT / package).rglob("*.py"))


def test_the_layers_name_every_package_of_the_tree() -> None:
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "bench"}
    assert packages == set(LAYERS)
    assert len(MODULES) > 250   # every module, not a list of a few


def not_below(path: Path, package: str) -> list[str]:
    """What the module at ``path`` of ``package`` imports from its own level or above."""
    level = LAYERS[package]
    return sorted(m for m in imported_modules(path)
                  if (top := m.split(".")[0]) in LAYERS and top != package
                  and LAYERS[top] >= level)


@pytest.mark.parametrize("relative", MODULES)
def test_a_module_imports_only_packages_below_its_own(relative: str) -> None:
    wrong = not_below(ROOT / relative, relative.split("/")[0])
    assert wrong == [], f"{relative} imports from its own level or above: {wrong}"


def test_the_check_sees_late_sideways_and_upward_imports(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import kgstore\nfrom typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from scoring.card import ModelCard\n"
                      "def f():\n    import llm.chat\n")
    assert not_below(module, "loaders") == ["llm.chat", "scoring.card",
                                            "scoring.card.ModelCard"]
