"""``kgbench model export`` and ``kgbench model info``: the real CLI on a tiny real
checkpoint (built once per session by tests/scoring's fixture).

One export runs in a subprocess (it imports torch: a few seconds), the others in
process through the same ``main()``; ``model info`` and the errors found before torch
is needed run in subprocesses, which stay quick.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kgbench.cli import main
from scoring.card import CARD_FILE, MODEL_FILE, TOKENIZER_FILE, read_card
from tests.kgbench.test_cli import assert_clean_error, run, run_process
from tests.scoring.models import (  # noqa: F401  (fixtures)
    Exported,
    TinyHf,
    exported,
    python_path_without_torch,
    tiny_hf,
)


@pytest.mark.slow   # a subprocess that imports torch: ~7 s of CPU
def test_export_then_info(tiny_hf: TinyHf, tmp_path: Path) -> None:  # noqa: F811
    source, out = tiny_hf("bert", "nli"), tmp_path / "nli"
    proc = run("model", "export", source, "--task", "nli", "--out", out, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)      # stdout is exactly one JSON document
    assert doc["out"] == str(out)
    assert doc["card"] == read_card(out).model_dump(mode="json")
    assert [s["stage"] for s in doc["parity"]] == ["fp32"]
    assert 0 < doc["parity"][0]["max_abs_diff"] <= doc["parity"][0]["tolerance"]
    assert "parity fp32: max |diff|" in proc.stderr and "Traceback" not in proc.stderr
    assert {p.name for p in out.iterdir()} == {MODEL_FILE, TOKENIZER_FILE, CARD_FILE}

    info = run("model", "info", out)
    assert info.returncode == 0, info.stderr
    rows = {line.split(None, 1)[0]: line for line in info.stdout.splitlines() if line.strip()}
    assert "nli" in rows["task"] and "0: entailment, 1: neutral, 2: contradiction" in rows["labels"]
    assert "input_ids, attention_mask, token_type_ids" in rows["inputs"]
    info_doc = json.loads(run("model", "info", out, "--json").stdout)
    assert info_doc["card"] == doc["card"]
    assert set(info_doc["files"]) == {MODEL_FILE, TOKENIZER_FILE}


def test_export_table_options_and_label_map(tiny_hf: TinyHf, tmp_path: Path,  # noqa: F811
                                            capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # In process (the same main() as the console script): no second torch import.
    monkeypatch.setenv("COLUMNS", "200")
    source = tiny_hf("bert", "nli", labels=["LABEL_0", "LABEL_1", "LABEL_2"])
    out = tmp_path / "nli"
    with pytest.raises(SystemExit) as info:
        main(["model", "export", str(source), "--task", "nli", "--out", str(out),
              "--label-map", "LABEL_0=contradiction", "-m", "LABEL_1=entailment",
              "-m", "LABEL_2=neutral", "--max-length", "64", "--fp16", "--optimize"])
    assert info.value.code == 0
    printed = " ".join(capsys.readouterr().out.split())
    for expected in ("labels 0: LABEL_0 = contradiction, 1: LABEL_1 = entailment, 2: LABEL_2 = "
                     "neutral", "max length 64", "precision fp16", "optimized yes",
                     "parity fp32 ", "; optimized ", "; fp16 ", f"wrote: {out}"):
        assert expected in printed, expected
    card = read_card(out)
    assert card.nli_roles == {"entailment": 1, "neutral": 2, "contradiction": 0}
    assert (card.precision, card.optimized, card.max_length) == ("fp16", True, 64)


def test_export_int8(tiny_hf: TinyHf, tmp_path: Path,  # noqa: F811
                     capsys: pytest.CaptureFixture[str],
                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    out = tmp_path / "nli"
    with pytest.raises(SystemExit) as info:
        main(["model", "export", str(tiny_hf("deberta-v2", "nli")), "--task", "nli",
              "--out", str(out), "--int8"])
    assert info.value.code == 0
    captured = capsys.readouterr()
    printed = " ".join(captured.out.split())
    for expected in ("precision int8", "parity fp32 ", "; int8 ", ", labels kept",
                     f"wrote: {out}"):
        assert expected in printed, expected
    assert "MatMuls quantized" in " ".join(captured.err.split())
    assert read_card(out).precision == "int8"


@pytest.mark.parametrize(("args", "code", "message"), [
    (["/etc"], 1, "Error: /etc: no config.json, so it is not a Hugging Face checkpoint"),
    (["{nli}", "--label-map", "entailment"], 2, "--label-map 'entailment': expected NAME=ROLE"),
    (["{gpt2}"], 1, "not a sequence classifier: it has no weights for --task nli"),
    (["{nli}", "--fp16", "--int8"], 2, "--fp16 and --int8 are two different precisions: "
                                       "choose one"),
])
def test_bad_input_in_process(tiny_hf: TinyHf, tmp_path: Path,  # noqa: F811
                              capsys: pytest.CaptureFixture[str], args: list[str], code: int,
                              message: str) -> None:
    paths = {"{nli}": str(tiny_hf("bert", "nli")), "{gpt2}": str(tiny_hf("gpt2", "causal-lm"))}
    with pytest.raises(SystemExit) as info:
        main(["model", "export", *(paths.get(a, a) for a in args), "--task", "nli",
              "--out", str(tmp_path / "out")])
    stderr = " ".join(capsys.readouterr().err.split())
    assert info.value.code == code
    assert stderr.startswith("Error:")   # the one line, nothing before it
    assert message in stderr and "Traceback" not in stderr
    assert not (tmp_path / "out").exists()


def test_unknown_task_is_a_usage_error(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["model", "export", str(tmp_path), "--task", "summarize", "--out",
              str(tmp_path / "out")])
    stderr = " ".join(capsys.readouterr().err.split())
    assert info.value.code == 2
    assert stderr.startswith("Error: unknown task 'summarize'")
    assert "nli, classify, rerank" in stderr and "Traceback" not in stderr


def test_without_the_export_extra(tmp_path: Path) -> None:
    """torch not importable (a module named torch that fails to import, first on the
    path): one line naming the extra to install."""
    (tmp_path / "hf").mkdir()
    proc = run_process("model", "export", tmp_path / "hf", "--task", "nli", "--out", tmp_path / "out",
                       env={"PYTHONPATH": python_path_without_torch(tmp_path)})
    assert_clean_error(proc)
    assert "exporting a model needs torch" in proc.stderr
    assert "pip install 'kgbench[export]'" in proc.stderr


def test_help_teaches_with_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["model", "export", "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Example: kgbench model export" in text
    assert "pip install 'kgbench[export]'" in text


def test_help_and_info_do_not_import_torch(exported: Exported) -> None:  # noqa: F811
    """torch, transformers and the export code load only when an export runs: `kgbench
    --help` stays quick and `model info` works without the export extra."""
    code = textwrap.dedent(f"""
        import sys
        from typer.testing import CliRunner
        from kgbench.cli.app import app
        for args in (["--help"], ["model", "info", {str(exported("bert", "nli"))!r}]):
            result = CliRunner().invoke(app, args)
            assert result.exit_code == 0, result.output
        print(",".join(m for m in ("torch", "transformers", "onnx", "scoring.export")
                       if m in sys.modules))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_info_on_a_directory_that_is_not_a_model(tmp_path: Path) -> None:
    proc = run("model", "info", tmp_path)
    assert_clean_error(proc)
    assert "no kgbench-model.json in it" in proc.stderr
