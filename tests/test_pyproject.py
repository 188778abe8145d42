"""``pyproject.toml`` installs without setuptools' deprecation warning: the licence is an
SPDX expression (a string), and the build requires a setuptools that reads one (77+;
older ones reject the string, newer ones warn three times per install about the old
``{ text = ... }`` table)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_the_licence_is_an_spdx_expression_and_the_build_can_read_it() -> None:
    doc = tomllib.loads(PYPROJECT.read_text("utf-8"))
    assert doc["project"]["license"] == "Apache-2.0"
    setuptools = [Requirement(r) for r in doc["build-system"]["requires"]
                  if Requirement(r).name == "setuptools"]
    assert len(setuptools) == 1
    spec = setuptools[0].specifier
    assert not spec.contains(Version("76.9")) and spec.contains(Version("77.0"))
