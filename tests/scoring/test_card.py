"""The model card's reader says what a directory is when it is not an exported model."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.card import read_card
from scoring.errors import ModelDirError


def test_a_checkpoint_given_instead_of_its_export_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ModelDirError) as caught:
        read_card(tmp_path)
    assert "looks like a Hugging Face checkpoint" in str(caught.value)
    assert caught.value.hint is not None
    assert f"kgbench model export {tmp_path} " in caught.value.hint
    assert f"--out {tmp_path}" not in caught.value.hint   # never suggest writing over it


def test_another_folder_gets_the_generic_fix(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(ModelDirError) as caught:
        read_card(tmp_path)
    assert "Hugging Face" not in str(caught.value)
    assert caught.value.hint is not None and "model export HF_DIR" in caught.value.hint
