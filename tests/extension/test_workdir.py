"""The work folder every resumable run keeps (extension.run.workdir): kept for the same
run, refused for another one (unfinished or finished), emptied under force."""

from __future__ import annotations

from pathlib import Path

import pytest

from extension.run.workdir import MANIFEST, chunk_name, differences, prepare_work_dir


class Refused(Exception):
    pass


def _prepare(out: Path, fingerprint: dict[str, object], *, force: bool = False) -> Path:
    def unfinished(previous: object) -> Exception:
        return Refused(f"unfinished: {differences(previous, fingerprint, {'n': '--n'}, unreadable='?')}")

    def finished(existing: list[Path]) -> Exception:
        return Refused("finished: " + ", ".join(p.name for p in existing))

    return prepare_work_dir(out, ".work-x", fingerprint, force=force,
                            outputs=[out / "result.jsonl", out / "run.json"], remedy="retry",
                            other_unfinished=unfinished, other_finished=finished)


def test_the_same_run_resumes_with_its_chunks(tmp_path: Path) -> None:
    work = _prepare(tmp_path / "out", {"n": 3, "seed": 1})
    (work / chunk_name(0, "stats.json")).write_text("{}")
    again = _prepare(tmp_path / "out", {"seed": 1, "n": 3})   # key order: the same run
    assert again == work and (work / "chunk-000000.stats.json").exists()
    assert (work / MANIFEST).read_text() == '{\n  "n": 3,\n  "seed": 1\n}\n'


def test_another_unfinished_run_is_refused_naming_what_differs(tmp_path: Path) -> None:
    _prepare(tmp_path / "out", {"n": 3, "seed": 1})
    with pytest.raises(Refused, match="unfinished: --n, seed"):
        _prepare(tmp_path / "out", {"n": 4, "seed": 2})


def test_a_finished_run_is_refused_and_force_replaces_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "result.jsonl").write_text("old\n")
    with pytest.raises(Refused, match="finished: result.jsonl"):
        _prepare(out, {"n": 3})
    work = _prepare(out, {"n": 3}, force=True)
    assert not (out / "result.jsonl").exists() and (work / MANIFEST).exists()
    (work / chunk_name(0, "stats.json")).write_text("{}")
    assert not any(_prepare(out, {"n": 5}, force=True).glob("chunk-*"))


def test_a_folder_without_its_manifest_is_taken_over(tmp_path: Path) -> None:
    # The run stopped before writing run.json, so before any chunk: nothing to protect.
    (tmp_path / "out" / ".work-x").mkdir(parents=True)
    work = _prepare(tmp_path / "out", {"n": 1})
    assert (work / MANIFEST).exists()
