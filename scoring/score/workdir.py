"""Where an unfinished ``kgbench score`` run keeps its chunks, and how a rerun knows
whether it continues the same run.

``BENCH_DIR/.work-score/`` holds ``run.json`` (the run's fingerprint: the samples
file's SHA-256, the split, the chunk size, each model's card SHA-256 and the precision
it runs in) and, per finished chunk, ``chunk-NNNNNN.scores.jsonl`` then
``chunk-NNNNNN.stats.json``, each written to a ``.part`` file and renamed: a chunk
counts as done only once its stats file exists, so a crash between the two writes
scores the chunk again. The finished files are renamed into ``BENCH_DIR`` with
``score_run.json`` last, then the folder is removed; ``score_run.json`` keeps the
fingerprint, so rerunning a finished run does nothing and a different run (another
model, split or benchmark) is refused unless forced.

The device, threads and token budget are not in the fingerprint: they change how fast
the scores come, not what they are (the precision, which does change them, is); the
chunk size is, because batches are formed within a chunk.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from extension.outputs.output_file import write_atomic
from scoring.errors import ScoringError

__all__ = ["FINISHED_FILES", "FLAGGED_FILE", "RUN_FILE", "SCORES_FILE", "WORK_DIR", "chunk_path",
           "differences", "file_sha256", "finished_fingerprint", "manifest_text",
           "prepare_work_dir", "write_work_file"]

WORK_DIR = ".work-score"
SCORES_FILE = "scores.jsonl"
RUN_FILE = "score_run.json"
FLAGGED_FILE = "flagged.jsonl"
FINISHED_FILES = (SCORES_FILE, FLAGGED_FILE, RUN_FILE)
"""What a finished run leaves in the benchmark directory (besides its report section)."""
REMEDY = ("free space on that device, then rerun the same command (it resumes where it "
          "stopped)")

_FIELD_NAMES = {"samples_sha256": "the benchmark's samples.jsonl", "split": "--split",
                "chunk_size": "--chunk-size", "nli": "the --nli model", "lm": "the --lm model"}


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def manifest_text(fingerprint: Mapping[str, Any]) -> str:
    return json.dumps(fingerprint, sort_keys=True, indent=2) + "\n"


def differences(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> str:
    """What differs between two fingerprints, in the words of the command line
    ("the --nli model, --split")."""
    if not isinstance(old, Mapping):
        return "an unreadable or older record"
    changed = [_FIELD_NAMES.get(key, key) for key in new if old.get(key) != new.get(key)]
    return ", ".join(changed) or "its format"


def write_work_file(path: Path, text: str) -> None:
    write_atomic(path, text, remedy=REMEDY)


def chunk_path(work: Path, index: int, kind: str) -> Path:
    return work / f"chunk-{index:06d}.{kind}"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def finished_fingerprint(bench_dir: Path) -> Mapping[str, Any] | None:
    """The fingerprint of the finished run in ``bench_dir`` (``None`` when none has
    finished, or its ``score_run.json`` is unreadable)."""
    doc = _read_json(bench_dir / RUN_FILE)
    fingerprint = doc.get("fingerprint") if isinstance(doc, dict) else None
    return fingerprint if isinstance(fingerprint, dict) else None


def prepare_work_dir(bench_dir: Path, fingerprint: Mapping[str, Any], force: bool) -> Path:
    """``BENCH_DIR/.work-score`` for this run: kept when its ``run.json`` is this run's
    (resume), emptied under ``force`` (with the finished files of an earlier run),
    refused with a :class:`ScoringError` saying what differs otherwise."""
    work = bench_dir / WORK_DIR
    manifest = work / "run.json"
    wanted = manifest_text(fingerprint)
    if force:
        if work.exists():
            shutil.rmtree(work)
        for name in FINISHED_FILES:
            (bench_dir / name).unlink(missing_ok=True)
    elif work.exists():
        previous = manifest.read_text("utf-8") if manifest.exists() else None
        # No run.json: the run stopped before writing it, so before any chunk.
        if previous is not None and previous != wanted:
            raise ScoringError(
                f"{bench_dir} holds an unfinished scoring run with a different "
                f"{differences(_loads(previous), fingerprint)}",
                "rerun that command to resume it, or pass --force to start over")
    elif (bench_dir / SCORES_FILE).exists() or (bench_dir / RUN_FILE).exists():
        raise ScoringError(
            f"{bench_dir} already holds scores of another run (different "
            f"{differences(finished_fingerprint(bench_dir), fingerprint)})",
            "pass --force to replace them (scores.jsonl, score_run.json, flagged.jsonl)")
    work.mkdir(exist_ok=True)
    write_work_file(manifest, wanted)
    return work


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None
