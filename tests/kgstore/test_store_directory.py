"""The store refuses a location that cannot be a store directory with its own errors
(:class:`StoreNotADirectoryError`), whoever opens it: not the ``NotADirectoryError``
of :mod:`pathlib`, which named neither the cause nor the remedy."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgstore import StoreError, StoreNotADirectoryError, open_store, remove_store, store_exists


@pytest.mark.parametrize("read_only", [False, True])
@pytest.mark.parametrize("create", [False, True])
def test_a_file_is_no_store(tmp_path: Path, create: bool, read_only: bool) -> None:
    afile = tmp_path / "afile"
    afile.write_text("data\n", encoding="utf-8")
    for location in (afile, afile / "below"):
        with pytest.raises(StoreNotADirectoryError, match="is a file, not a"):
            open_store(str(location), create=create and not read_only, read_only=read_only)
    assert afile.read_text(encoding="utf-8") == "data\n"


def test_store_exists_and_remove_store_on_a_file(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    with pytest.raises(StoreNotADirectoryError):
        store_exists(str(afile))
    with pytest.raises(StoreError):
        remove_store(str(afile))
    assert afile.exists()
