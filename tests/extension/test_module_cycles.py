"""No import cycle among the modules of ``extension``, counting every import a module
names (type-checking and late imports too): a cycle ties the modules on it into one
unit that can be neither read nor moved alone (issue 33 broke samples ->
verbalize.question_check -> verbalize.extended_question -> samples).
"""

from __future__ import annotations

import networkx as nx

from tests.kgbench.test_cli_package import ROOT, imported_modules


def _module(path_parts: tuple[str, ...]) -> str:
    name = ".".join(path_parts).removesuffix(".py")
    return name.removesuffix(".__init__")


def test_the_extension_modules_import_each_other_without_a_cycle() -> None:
    paths = {_module(p.relative_to(ROOT).parts): p for p in (ROOT / "extension").rglob("*.py")}
    graph = nx.DiGraph()
    for name, path in paths.items():
        graph.add_node(name)
        for imported in imported_modules(path):
            # ``from a.b import c`` names the package a.b too: a package's own modules
            # importing through it is no cycle of modules
            if imported in paths and imported != name and not name.startswith(imported + "."):
                graph.add_edge(name, imported)
    assert list(nx.simple_cycles(graph)) == []
