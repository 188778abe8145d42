"""Where an unfinished ``kgbench score`` run keeps its chunks, and how a rerun knows
whether it continues the same run (the work folder of
:mod:`extension.run.workdir`, as ``kgbench generate`` and ``kalma generate`` keep theirs).

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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from extension.outputs.output_file import write_atomic
from extension.run.workdir import chunk_name, prepare_work_dir, read_json
from extension.run.workdir import differences as fingerprint_differences
from scoring.errors import ScoringError

__all__ = ["FINISHED_FILES", "FLAGGED_FILE", "RUN_FILE", "SCORES_FILE", "WORK_DIR", "chunk_path",
           "differences", "file_sha256", "finished_fingerprint", "prepare_score_dir",
           "write_work_file"]

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


def differences(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> str:
    """What differs between two fingerprints, in the words of the command line
    ("the --nli model, --split")."""
    return fingerprint_differences(old, new, _FIELD_NAMES,
                                   unreadable="an unreadable or older record")


def write_work_file(path: Path, text: str) -> None:
    write_atomic(path, text, remedy=REMEDY)


def chunk_path(work: Path, index: int, kind: str) -> Path:
    return work / chunk_name(index, kind)


def finished_fingerprint(bench_dir: Path) -> Mapping[str, Any] | None:
    """The fingerprint of the finished run in ``bench_dir`` (``None`` when none has
    finished, or its ``score_run.json`` is unreadable)."""
    doc = read_json(bench_dir / RUN_FILE)
    fingerprint = doc.get("fingerprint") if isinstance(doc, dict) else None
    return fingerprint if isinstance(fingerprint, dict) else None


def prepare_score_dir(bench_dir: Path, fingerprint: Mapping[str, Any], force: bool) -> Path:
    """``BENCH_DIR/.work-score`` for this run: kept when its ``run.json`` is this run's
    (resume), emptied under ``force`` (with the finished files of an earlier run),
    refused with a :class:`ScoringError` saying what differs otherwise."""
    def other_unfinished(previous: Any) -> ScoringError:
        return ScoringError(
            f"{bench_dir} holds an unfinished scoring run with a different "
            f"{differences(previous, fingerprint)}",
            "rerun that command to resume it, or pass --force to start over")

    def other_finished(existing: list[Path]) -> ScoringError:
        return ScoringError(
            f"{bench_dir} already holds scores of another run (different "
            f"{differences(finished_fingerprint(bench_dir), fingerprint)})",
            "pass --force to replace them (scores.jsonl, score_run.json, flagged.jsonl)")

    return prepare_work_dir(bench_dir, WORK_DIR, fingerprint, force=force,
                            outputs=[bench_dir / n for n in FINISHED_FILES], remedy=REMEDY,
                            finished=[bench_dir / SCORES_FILE, bench_dir / RUN_FILE],
                            other_unfinished=other_unfinished, other_finished=other_finished)
