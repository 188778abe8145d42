"""``kalma score`` end to end: real files, the tiny exported NLI model through
onnxruntime, a real local HTTP server for G-Eval, and the CLI in a subprocess."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from kalma.errors import KalmaError
from kalma.geval import KGBENCH_GEVAL, geval_prompt, load_geval_prompts, parse_rating
from kalma.score import REPORT_KEYS, score_answers
from llm.endpoint import ChatEndpoint
from llm.prompt_file import PromptFileError
from tests.external import external_path
from tests.kalma.test_metrics import ENTRY_A, ENTRY_B, PAINTER, SPOUSE
from tests.kgbench.test_cli import assert_clean_error, run
from tests.llm.chat_server import FakeChatServer
from tests.scoring.models import Exported, exported, tiny_hf  # noqa: F401

ANSWERS = [
    {"id": "a", "output": "Ann was born in Rome [Q1, place of birth: Rome] [Q1, place of "
                          "birth: Milan]. Bob was born in Paris [Q2, place of birth: Paris]. "
                          "Stray [Q1 bracket."},
    {"id": "b", "sentences": [{"text": "Cy wrote and won.",
                               "citations": [["Q3", "occupation", "writer"],
                                             ["Q3", "award received", "nobel prize."]]}]},
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    entries = tmp_path / "entries.jsonl"
    entries.write_text(ENTRY_A.to_line() + ENTRY_B.to_line(), encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(a) + "\n" for a in ANSWERS), encoding="utf-8")
    return entries, answers


def test_scores_without_nli_match_the_hand_computed_numbers(files: tuple[Path, Path]) -> None:
    """The answers of tests/kalma/test_metrics.py, written as a file (the unclosed
    ``[Q1`` is the unparsed citation)."""
    report = score_answers(*files)
    doc = report.to_json()
    assert tuple(doc) == REPORT_KEYS
    assert doc["n_entries"] == 2 and doc["n_citations"] == 6
    assert doc["unparsed_citations"] == 1
    assert doc["correctness"] == pytest.approx(4 / 6)
    assert doc["precision_macro"] == pytest.approx(5 / 8)
    assert doc["f1_macro"] == pytest.approx(20 / 31)
    assert doc["alignment"] is doc["na_precision"] is doc["na_recall"] is None
    assert report.missing_answers == []


def test_missing_answers_are_reported_and_unknown_ids_refused(
        files: tuple[Path, Path], tmp_path: Path) -> None:
    entries, answers = files
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps(ANSWERS[0]) + "\n", encoding="utf-8")
    report = score_answers(entries, one)
    assert report.missing_answers == ["b"]
    assert any("1 of 2 entries have no answer" in line for line in report.notes)
    answers.write_text(answers.read_text() + json.dumps({"id": "zz", "output": "x."}) + "\n")
    with pytest.raises(KalmaError, match=r"answers\.jsonl:3: answer id 'zz' is not an entry"):
        score_answers(entries, answers)


@pytest.mark.slow   # the first tiny model of a session imports torch (~7 s)
def test_nli_metrics_through_the_tiny_model(files: tuple[Path, Path], tmp_path: Path,
                                            exported: Exported) -> None:  # noqa: F811
    entries, answers = files
    variant = tmp_path / "incompetence-2.jsonl"
    variant.write_text(ENTRY_A.with_absent([SPOUSE, PAINTER]).to_line(), encoding="utf-8")
    na_answers = tmp_path / "na.jsonl"
    na_answers.write_text(json.dumps({"id": "a", "output": "Ann married Bob [NA]. Ann was "
                                      "born in Rome [Q1, place of birth: Rome]."}) + "\n")
    model = exported("bert", "nli")
    stages: list[tuple[str, int, int]] = []
    report = score_answers(variant, na_answers, nli_dir=model, device="cpu",
                           progress=lambda *state: stages.append(state))
    doc = report.to_json()
    assert doc["alignment"] in (0.0, 1.0)   # one (sentence, citation) pair
    assert doc["na_precision"] in (0.0, 1.0) and doc["na_recall"] in (0.0, 0.5, 1.0)
    # 1 alignment pair + 1 [NA] sentence x 3 triples (Spouse, Painter, Rome), once each
    assert report.nli_pairs == 4 and stages[-1] == ("nli", 4, 4)
    assert report.runtime is not None and report.runtime["provider"] == "CPUExecutionProvider"
    full = score_answers(entries, answers, nli_dir=model, device="cpu").to_json()
    assert full["alignment"] is not None and 0.0 <= full["alignment"] <= 1.0
    assert full["na_precision"] is None and full["na_recall"] is None   # no [NA], no absent


# -- G-Eval ------------------------------------------------------------------------------


def rating(prompt: str) -> str:
    """Coherence 4, consistency 3 (in words around it), fluency a bare 5, relevance no
    score at all."""
    aspect = re.search(r"(\w+) score \(1 to 5\):$", prompt)
    assert aspect is not None
    return {"Coherence": "Coherence: 4", "Consistency": "I would say the score is 3.",
            "Fluency": "5", "Relevance": "The answer is relevant."}[aspect.group(1)]


@pytest.fixture
def llm_server() -> Iterator[FakeChatServer]:
    server = FakeChatServer()
    server.responder = rating
    yield server
    server.stop()


def test_geval_through_a_real_http_server(files: tuple[Path, Path], tmp_path: Path,
                                          llm_server: FakeChatServer) -> None:
    endpoint = ChatEndpoint(url=llm_server.url, model="judge", timeout_s=5.0, max_retries=0)
    cache = tmp_path / "cache"
    report = score_answers(*files, llm=endpoint, geval=True, llm_cache=cache)
    geval = report.to_json()["geval"]
    assert geval == {"model": "judge", "prompts": "kgbench", "answers": 2, "coherence": 4.0,
                     "consistency": 3.0,
                     "fluency": 5.0, "relevance": None,
                     "unparsed": {"coherence": 0, "consistency": 0, "fluency": 0,
                                  "relevance": 2}}
    assert len(llm_server.received) == 8
    prompts = [r.body["messages"][-1]["content"] for r in llm_server.received]
    consistency = [p for p in prompts if p.endswith("Consistency score (1 to 5):")]
    assert all("Knowledge:\n{name: Ann, place of birth: Rome" in p or "{name: Cy" in p
               for p in consistency)
    assert not any("Knowledge:" in p for p in prompts
                   if not p.endswith("Consistency score (1 to 5):"))
    assert all(p.startswith(KGBENCH_GEVAL[a]) for p, a in zip(
        prompts, [re.search(r"(\w+) score", p).group(1).lower() for p in prompts],  # type: ignore[union-attr]
        strict=True))
    assert any("Answer:\nAnn was born in Rome. Bob was born in Paris. Stray" in p
               for p in prompts)
    again = score_answers(*files, llm=endpoint, geval=True, llm_cache=cache)
    assert again.geval == report.geval and len(llm_server.received) == 8   # all cached


@pytest.mark.external
def test_geval_with_the_papers_instructions_from_the_users_copy(
        files: tuple[Path, Path], tmp_path: Path, llm_server: FakeChatServer) -> None:
    path = external_path("attribution", "biokalma", "prompt_gpteval_prompt.json")
    instructions = json.loads(path.read_text("utf-8"))
    proc = run("kalma", "score", files[0], "--answers", files[1], "--geval", "--llm-url",
               llm_server.url, "--llm-model", "judge", "--llm-cache", tmp_path / "cache",
               "--prompts", path, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["geval"]["prompts"] == str(path)
    sent = {re.search(r"(\w+) score \(1 to 5\):$", r.body["messages"][-1]["content"])
            .group(1).lower(): r.body["messages"][-1]["content"]   # type: ignore[union-attr]
            for r in llm_server.received}
    # The file's list is in the order coherence, consistency, fluency, relevance.
    for aspect, instruction in zip(("coherence", "consistency", "fluency", "relevance"),
                                   instructions, strict=True):
        assert sent[aspect].startswith(instruction + "\n\nQuestion:\n")


@pytest.mark.parametrize(("content", "says"), [
    ('["a", "b", "c"]', "3 instructions where G-Eval needs 4 (coherence, consistency, "
                        "fluency, relevance)"),
    ('{"coherence": "a", "fluency": "b"}', "no 'consistency' and no 'relevance' instruction"),
    ('{"coherence": "a", "consistency": "", "fluency": "b", "relevance": "c"}',
     "the consistency instruction is not a non-empty string"),
    ('"one string"', "not a G-Eval prompt file (no JSON list or object)"),
    ("{", "not JSON"),
])
def test_a_wrong_geval_file_is_one_line(tmp_path: Path, content: str, says: str) -> None:
    path = tmp_path / "geval.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(PromptFileError) as info:
        load_geval_prompts(path)
    assert str(info.value).startswith(f"{path}: {says}")
    assert "coherence, consistency, fluency, relevance" in str(info.value.hint)


def test_geval_prompts_in_an_object_and_the_cli_checks(files: tuple[Path, Path],
                                                       tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({a: f"Rate the {a}." for a in
                                ("relevance", "fluency", "consistency", "coherence")}))
    prompts = load_geval_prompts(path)
    item = type("I", (), {"question": "Q?", "answer": "A.", "knowledge": "K"})()
    assert geval_prompt("fluency", item, prompts).startswith("Rate the fluency.\n\nQuestion:")
    proc = run("kalma", "score", files[0], "--answers", files[1], "--prompts", path)
    assert proc.returncode == 2 and "--prompts is used by --geval only" in proc.stderr
    path.write_text('["a"]')
    proc = run("kalma", "score", files[0], "--answers", files[1], "--geval", "--llm-url",
               "http://127.0.0.1:9/v1", "--llm-model", "m", "--prompts", path)
    assert_clean_error(proc)
    assert "1 instructions where G-Eval needs 4" in proc.stderr


def test_parse_rating() -> None:
    assert parse_rating("- Coherence: 4.5", "coherence") == 4.5
    assert parse_rating("**3**", "fluency") == 3.0
    assert parse_rating("On a scale of 1 to 5, this earns 4", "fluency") is None
    assert parse_rating("Relevance: 9", "relevance") is None
    assert geval_prompt("fluency", type("I", (), {"question": "Q?", "answer": "A.",
                                                  "knowledge": "K"})()).endswith(
        "Question:\nQ?\n\nAnswer:\nA.\n\nFluency score (1 to 5):")


# -- the CLI -----------------------------------------------------------------------------


def test_cli_json_and_out_give_the_same_document(files: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    entries, answers = files
    folder = tmp_path / "entries"   # an entries directory (its --out lies outside it)
    folder.mkdir()
    (folder / "entries.jsonl").write_bytes(entries.read_bytes())
    target = tmp_path / "out" / "scores.json"
    proc = run("kalma", "score", folder, "--answers", answers, "--out", target, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc == json.loads(target.read_text(encoding="utf-8"))
    assert tuple(doc) == REPORT_KEYS and doc["alignment"] is None
    assert doc["precision_micro"] == pytest.approx(0.5)
    assert not target.with_name("scores.json.part").exists()
    table = run("kalma", "score", entries, "--answers", answers)
    assert table.returncode == 0, table.stderr
    assert "correctness" in table.stdout and "0.667" in table.stdout


def test_cli_bad_answers_file_is_one_line(files: tuple[Path, Path], tmp_path: Path) -> None:
    entries, _ = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "output": "ok."}\n{"id": "b", "output": [1]}\n')
    proc = run("kalma", "score", entries, "--answers", bad, "--json")
    assert_clean_error(proc)
    assert f"{bad}:2" in proc.stderr and '"output" must be a string' in proc.stderr
    assert proc.stdout == ""
