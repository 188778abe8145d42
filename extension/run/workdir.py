"""The work folder of a resumable run (``kgbench generate``, ``kgbench kalma generate``,
``kgbench score``): where an unfinished run keeps its chunks, and how a rerun knows
whether it continues the same run.

``OUT/<work folder>/`` holds ``run.json``, the run's fingerprint (written first), and per
finished chunk its files (:func:`chunk_name`), each written to a ``.part`` file and
renamed, its stats file last: a chunk counts as done only once its stats file exists, so
a crash between two writes makes the chunk again. At the end the run renames its
finished files into ``OUT`` (its own run record last) and removes the folder. So a
rerun resumes where the run stopped when the folder's fingerprint is its own, and
refuses (saying what differs) when it is another run's, unless forced.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from extension.outputs.output_file import write_atomic
from kgstore.confined import make_dirs, remove_file, remove_tree

__all__ = ["MANIFEST", "chunk_name", "differences", "manifest_text", "prepare_work_dir",
           "read_json"]

MANIFEST = "run.json"
"""The fingerprint of the run a work folder belongs to."""


def manifest_text(fingerprint: Mapping[str, Any]) -> str:
    """A fingerprint as its ``run.json`` holds it (sorted keys: one text per run)."""
    return json.dumps(fingerprint, sort_keys=True, indent=2, default=str) + "\n"


def read_json(path: Path) -> Any:
    """The JSON document in ``path``, ``None`` when it is missing or unreadable."""
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def chunk_name(index: int, kind: str) -> str:
    """The file of chunk ``index`` holding ``kind`` (``samples.jsonl``, ``stats.json``)."""
    return f"chunk-{index:06d}.{kind}"


def differences(old: Any, new: Mapping[str, Any], names: Mapping[str, str], *,
                unreadable: str) -> str:
    """What differs between two fingerprints, in the command line's words (``names``
    maps a fingerprint key to them: ``--split``, ``the --nli model``)."""
    if not isinstance(old, Mapping):
        return unreadable
    changed = [names.get(key, key) for key in new if old.get(key) != new.get(key)]
    return ", ".join(changed) or "its format"


def prepare_work_dir(out_dir: Path, work_name: str, fingerprint: Mapping[str, Any], *,
                     force: bool, outputs: Sequence[Path], remedy: str,
                     other_unfinished: Callable[[Any], Exception],
                     other_finished: Callable[[list[Path]], Exception],
                     finished: Sequence[Path] | None = None) -> Path:
    """``out_dir/work_name`` for the run of ``fingerprint``, with its ``run.json``:

    * kept when it is this run's (a resume; no ``run.json``: the run stopped before
      writing it, so before any chunk, and there is nothing to keep or protect);
    * refused with ``other_unfinished(previous fingerprint or None)`` when it is
      another run's;
    * made anew when there is none, unless ``out_dir`` holds the files of a finished
      run (``finished``, by default ``outputs``): refused with
      ``other_finished(those files)``;
    * under ``force``, emptied, with every file of ``outputs`` removed.

    ``remedy`` ends the message of a write that fails (a full disk)."""
    work = out_dir / work_name
    manifest = work / MANIFEST
    wanted = manifest_text(fingerprint)
    if force:
        if work.exists():
            remove_tree(work)
        for path in outputs:
            remove_file(path)
    elif work.exists():
        previous = manifest.read_text("utf-8") if manifest.exists() else None
        if previous is not None and previous != wanted:
            raise other_unfinished(_loads(previous))
    else:
        existing = [p for p in (outputs if finished is None else finished) if p.exists()]
        if existing:
            raise other_finished(existing)
    make_dirs(work)
    write_atomic(manifest, wanted, remedy=remedy)
    return work


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None
