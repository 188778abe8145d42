"""Recognising a full disk in the errors of Python, Arrow and DuckDB, without root:
``/dev/full`` answers every write with ``ENOSPC`` (issue 18, item 11; the whole
commands on a real full tmpfs are in tests/kgbench/test_cli_disk_full.py)."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kgstore.diskspace import disk_full_error, is_disk_full, written_path
from kgstore.errors import DiskFullError, StoreError
from kgstore.staging import StageWriter

DEV_FULL = Path("/dev/full")
pytestmark = pytest.mark.skipif(not DEV_FULL.exists(), reason="needs /dev/full (Linux)")


def _raised(action: object) -> BaseException:
    try:
        action()  # type: ignore[operator]
    except BaseException as exc:  # noqa: BLE001 - the error is what is tested
        return exc
    raise AssertionError("no error")


def _full_file(tmp_path: Path, name: str) -> Path:
    """A file name whose writes land on /dev/full. Never /dev/full itself: a writer
    that removes what it failed to write (DuckDB does) would delete the device node."""
    link = tmp_path / name
    os.symlink(DEV_FULL, link)
    return link


def test_python_arrow_and_duckdb_errors_are_recognised(tmp_path: Path) -> None:
    python = _raised(lambda: _full_file(tmp_path, "a").write_bytes(b"x" * 65536))
    arrow = _raised(lambda: pq.write_table(pa.table({"a": list(range(100_000))}),
                                           _full_file(tmp_path, "b")))
    target = _full_file(tmp_path, "c.parquet")
    engine = _raised(lambda: duckdb.connect().execute(
        "COPY (SELECT range AS a FROM range(100000)) TO ? (FORMAT parquet)", [str(target)]))
    assert DEV_FULL.exists()
    for exc in (python, arrow, engine):
        assert is_disk_full(exc), exc
        error = disk_full_error(exc, "/some/where", "do this")
        assert isinstance(error, DiskFullError) and isinstance(error, StoreError)
        assert str(error).startswith("no space left on device while writing ")
        assert str(error).endswith("; do this")
    assert written_path(engine) == str(target)  # DuckDB names the file
    assert disk_full_error(python, "/some/where", "x").path == "/some/where"


def test_other_errors_are_not_a_full_disk(tmp_path: Path) -> None:
    missing = _raised(lambda: (tmp_path / "no" / "file").write_text("x"))
    assert not is_disk_full(missing, tmp_path)
    assert disk_full_error(ValueError("bad value"), tmp_path) is None
    # An engine IO error without an errno counts only on a nearly full device.
    engine_io = RuntimeError("IO exception: Cannot read from file: x fileDescriptor: 3")
    assert not is_disk_full(engine_io, tmp_path)


def test_full_disk_chained_under_another_error_is_found(tmp_path: Path) -> None:
    """The old staging code wrapped the ENOSPC of a chunk write as a corrupt input."""
    try:
        try:
            _full_file(tmp_path, "chunk").write_bytes(b"x" * 65536)
        except OSError as exc:
            raise ValueError("the file is truncated or corrupt") from exc
    except ValueError as wrapped:
        assert is_disk_full(wrapped)


def test_stage_writer_reports_the_part_it_could_not_write(tmp_path: Path) -> None:
    writer = StageWriter(tmp_path / "stage", batch_rows=10)
    part = _full_file(tmp_path / "stage" / "facts", "part-00000.parquet")
    with pytest.raises(DiskFullError) as info:
        for i in range(10):
            writer.add_fact(f"e{i}", "p", f"e{i + 1}")
    assert info.value.path == str(part)
    assert "choose another --store" in str(info.value)
    assert not (tmp_path / "stage" / "manifest.json").exists()  # not marked complete
