"""``resolve_under`` on real files and symlinks: every path a request names stays under
the data directory, whatever an attacker writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kgbench.service.errors import ApiError
from kgbench.service.paths import resolve_under


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """DATA with benchmarks/demo/samples.jsonl, a secret beside DATA, and symlinks:
    one inside, one pointing out, one to a directory out."""
    data = tmp_path / "data"
    (data / "benchmarks" / "demo").mkdir(parents=True)
    (data / "benchmarks" / "demo" / "samples.jsonl").write_text("{}\n")
    (data / "odd %41 name.txt").write_text("x")
    (tmp_path / "secret.txt").write_text("secret")
    (tmp_path / "outside").mkdir()
    os.symlink(data / "benchmarks" / "demo", data / "inner-link")
    os.symlink(tmp_path / "secret.txt", data / "leak.txt")
    os.symlink(tmp_path / "outside", data / "benchmarks" / "escape")
    return data


def refused(root: Path, relative: str, **kwargs: object) -> ApiError:
    with pytest.raises(ApiError) as caught:
        resolve_under(root, relative, **kwargs)  # type: ignore[arg-type]
    return caught.value


def test_paths_inside_resolve(root: Path) -> None:
    sample = root / "benchmarks" / "demo" / "samples.jsonl"
    assert resolve_under(root, "benchmarks/demo/samples.jsonl") == sample
    assert resolve_under(root, "./benchmarks//demo/./samples.jsonl") == sample
    assert resolve_under(root, "benchmarks/demo", kind="dir") == sample.parent
    assert resolve_under(root, "inner-link/samples.jsonl") == sample   # a link that stays in
    new = resolve_under(root, "jobs/new/out", must_exist=False)
    assert new == root / "jobs" / "new" / "out" and not new.exists()


@pytest.mark.parametrize("hostile", [
    "../secret.txt", "benchmarks/../../secret.txt", "..", "benchmarks/demo/../../..",
    "/etc/passwd", str(Path("/tmp")), "~/secret.txt", "C:/Windows",
    "..\\secret.txt", "benchmarks\\demo", "bench\x00marks",
    "%2e%2e/secret.txt", "%2E%2E%2Fsecret.txt", "%252e%252e/secret.txt", "..%2fsecret.txt",
    "%2fetc%2fpasswd", "%5c..%5csecret.txt", "%00", "%ff%fe", "", "  ", "a" * 5000,
])
def test_hostile_paths_are_refused(root: Path, hostile: str) -> None:
    error = refused(root, hostile)
    assert error.status == 400 and "refused" in error.message
    assert "\n" not in error.message


def test_symlinks_pointing_out_are_refused(root: Path) -> None:
    for relative in ("leak.txt", "benchmarks/escape", "benchmarks/escape/anything"):
        error = refused(root, relative, kind="any")
        assert error.status == 400 and "outside" in error.message
    error = refused(root, "benchmarks/escape/new-file", must_exist=False)
    assert error.status == 400


def test_missing_and_wrong_kind(root: Path) -> None:
    assert refused(root, "benchmarks/none.jsonl").status == 404
    assert refused(root, "benchmarks/demo", kind="file").status == 400
    assert refused(root, "benchmarks/demo/samples.jsonl", kind="dir").status == 400
    # A literal '%' in a name is refused too: no percent-encoding is ever decoded here.
    assert refused(root, "odd %41 name.txt").status == 400


def test_root_itself_through_a_symlinked_root(root: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    os.symlink(root, alias)
    assert resolve_under(alias, "benchmarks/demo/samples.jsonl") == (
        root / "benchmarks" / "demo" / "samples.jsonl")
    assert refused(alias, "../secret.txt").status == 400
