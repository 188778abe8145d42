"""``kgbench evaluate`` end to end: the real CLI (in a subprocess for the main paths, in
process through the same ``main()`` for the many bad-input cases, to keep them quick) on
the demo benchmark, with a real local OpenAI-compatible server for the LLM evaluator.
"""

from __future__ import annotations

import json
import re
import socket
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from extension.outputs.sample_schema import BenchmarkSample
from kgbench.cli import main
from scoring.evaluate.prompts import select_prompt
from scoring.evaluate.schemes import label_scheme
from tests.extension.test_export import write_benchmark
from tests.external import external_path
from tests.kgbench.test_cli import assert_clean_error, run
from tests.llm.chat_server import FakeChatServer
from tests.scoring import demo_bench
from tests.scoring.demo_bench import CAQA_NAMES, write_jsonl
from tests.scoring.models import Exported, exported, tiny_hf  # noqa: F401

samples = demo_bench.samples   # the fixtures of the demo benchmark this module scores
bench = demo_bench.bench

KEYS = ["protocol", "per_label", "per_complexity", "overall_micro_f1", "macro_f1",
        "confusion", "n", "unparsed"]


@pytest.fixture(scope="module")
def in_test_split(samples: tuple[BenchmarkSample, ...]) -> list[BenchmarkSample]:
    """The demo samples of the test split (named ``test_split`` before, it read as a test
    that asserts nothing)."""
    return [s for s in samples if s.split == "test"]


def in_process(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``kgbench ARGS`` run through :func:`main`."""
    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_predictions_print_table_6_and_the_same_document_as_json(
        bench: Path, tmp_path: Path, in_test_split: list[BenchmarkSample],
        capsys: pytest.CaptureFixture[str]) -> None:
    # Right everywhere but the first sample (unparsed) and the contradictory ones
    # (called Irrelevant).
    path = write_jsonl(tmp_path / "p.jsonl", [
        {"id": s.id, "label": None if i == 0 else
         "Irrelevant" if s.label == "contradictory" else CAQA_NAMES[s.label]}
        for i, s in enumerate(in_test_split)])
    out = tmp_path / "doc.json"
    proc = run("evaluate", bench, "--predictions", path, "--out", out, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert list(doc) == KEYS
    assert json.loads(out.read_text("utf-8")) == doc
    n = len(in_test_split)
    wrong = 1 + sum(s.label == "contradictory" for s in in_test_split[1:])
    assert doc["n"] == n and doc["unparsed"] == 1
    assert doc["overall_micro_f1"] == pytest.approx((n - wrong) / n)
    assert doc["confusion"][in_test_split[0].label]["unparsed"] == 1
    assert doc["per_label"]["contradictory"]["precision"] == 0.0   # never predicted

    code, stdout, stderr = in_process(capsys, "evaluate", bench, "--predictions", path,
                                      "--scheme", "caqa")
    assert code == 0, stderr
    lines = stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Evaluator"))
    assert lines[at].split() == ["Evaluator", "Sup.", "Par.", "Con.", "Irr.", "Overall", "S.",
                                 "C.", "I.", "U."]
    row = lines[at + 2].split()   # after the rule; 80 columns wide, nothing cut
    assert row[0] == "p.jsonl" and len(row) == 10
    assert row[5] == f"{doc['overall_micro_f1']:.3f}"
    assert row[1] == f"{doc['per_label']['supportive']['f1']:.3f}"
    unions = [s for s in in_test_split if s.complexity == "union"]
    assert row[9] == (f"{doc['per_complexity']['union']['micro_f1']:.3f}" if unions else "–")
    assert "unparsed" in stdout and "macro-F1" in stdout
    assert "Missing" in stdout   # the caqa scheme's names
    assert f"{n} samples (the test split)" in " ".join(stderr.split())


@pytest.fixture
def caqa_layout_prompts(tmp_path: Path) -> Path:
    """A prompt file in the layout of CAQA's prompts.json (our own wording)."""
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps([{
        "task_name": "attribution-no-definition",
        "prompt_template": "Say whether the reference supports the claim; answer Support, "
                           "Missing, Contradictory or Irrelevant.",
        "input_template": "Claim: {}\n\nReference: {}\n",
        "label_map": {name: name for name in CAQA_NAMES.values()}}]), encoding="utf-8")
    return path


@pytest.fixture
def llm_server(in_test_split: list[BenchmarkSample]) -> Iterator[FakeChatServer]:
    """Answers each sample's prompt in its own words: the gold label, in a different form
    per label, except an ambiguous reply for the first sample and an empty one for the
    second (both unparsed)."""
    replies = {"supportive": "Support. The reference states every fact.",
               "partially_supportive": "**Missing**",
               "contradictory": "The claim is Contradictory to the reference.",
               "irrelevant": "Response: irrelevant"}
    server = FakeChatServer()
    server.responder = sample_responder(in_test_split, lambda i, s: (
        "I hesitate between Support and Missing." if i == 0 else "" if i == 1
        else replies[s.label]))
    yield server
    server.stop()


def sample_responder(in_test_split: list[BenchmarkSample],
                     reply: Callable[[int, BenchmarkSample], str]) -> Callable[[str], str]:
    """A server's answer to each sample's prompt: ``reply(index, sample)`` for the
    sample whose claim and citations the prompt's input holds (in any of the prompts'
    layouts ``Claim: …`` then ``Reference: …`` or ``Reference:\n…``)."""
    by_input = {(f"{s.question_extended} {s.answer}", "\n".join(c.text for c in s.citations)):
                reply(i, s) for i, s in enumerate(in_test_split)}
    assert len(by_input) == len(in_test_split)

    def respond(prompt: str) -> str:
        # The last claim of the message: a few-shot prompt shows claims of its own first.
        found = re.search(r".*Claim: (.*?)\n\nReference:\s*(.*?)\n+### Response:$", prompt,
                          re.S)
        assert found is not None, prompt
        return by_input[found.group(1), found.group(2).strip()]

    return respond


def test_llm_evaluator_against_a_local_server(
        bench: Path, tmp_path: Path, in_test_split: list[BenchmarkSample],
        llm_server: FakeChatServer, caqa_layout_prompts: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "llm.jsonl"
    args = ["evaluate", bench, "--llm-url", llm_server.url, "--llm-model", "judge-1",
            "--prompts", caqa_layout_prompts, "--prompt", "caqa-zero-shot",
            "--llm-cache", tmp_path / "cache", "--save-predictions", saved, "--json"]
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    n = len(in_test_split)
    assert list(doc) == KEYS and doc["n"] == n
    assert doc["unparsed"] == 2                      # the ambiguous and the empty reply
    assert doc["overall_micro_f1"] == pytest.approx((n - 2) / n)
    for s in in_test_split[:2]:
        assert doc["confusion"][s.label]["unparsed"] >= 1
    assert sum(row["unparsed"] for row in doc["confusion"].values()) == 2
    # Every request: temperature 0, the model, our prompt layout with the instruction.
    assert len(llm_server.received) == n
    body = llm_server.received[0].body
    assert body["temperature"] == 0 and body["model"] == "judge-1"
    prompt = body["messages"][-1]["content"]
    assert prompt.startswith("### Instruction:\nSay whether the reference supports the claim;")
    assert prompt.endswith("### Response:")
    # The saved predictions keep the replies, and score to the same document.
    lines = [json.loads(line) for line in saved.read_text("utf-8").splitlines()]
    assert [r["id"] for r in lines] == [s.id for s in in_test_split]
    assert lines[0] == {"id": in_test_split[0].id, "label": None,
                        "reply": "I hesitate between Support and Missing.",
                        "protocol": "kgbench"}
    code, stdout, stderr = in_process(capsys, "evaluate", bench, "--predictions", saved,
                                      "--json")
    assert code == 0, stderr
    assert json.loads(stdout) == doc
    # A rerun is answered from the cache: no request reaches the server.
    code, stdout, stderr = in_process(capsys, *args)
    assert code == 0, stderr
    assert json.loads(stdout) == doc and len(llm_server.received) == n
    assert f"0 LLM requests sent (retries included), {n} replies from the cache" in \
        " ".join(stderr.split())


def test_the_released_protocol_reads_replies_and_drops_the_unparsed(
        bench: Path, tmp_path: Path, in_test_split: list[BenchmarkSample],
        llm_server: FakeChatServer, caqa_layout_prompts: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "llm.jsonl"
    proc = run("evaluate", bench, "--llm-url", llm_server.url, "--llm-model", "judge-1",
               "--prompts", caqa_layout_prompts, "--scheme", "caqa", "--protocol",
               "released", "--llm-cache", tmp_path / "cache", "--save-predictions", saved,
               "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    n = len(in_test_split)
    assert list(doc) == KEYS and doc["protocol"] == "released" and doc["n"] == n
    # The released reading takes the first option named ("I hesitate between Support
    # and Missing." is Support); only the empty reply is unparsed, and it leaves the
    # matrix: micro-F1 = right / (n - 1).
    assert doc["unparsed"] == 1
    right = (n - 2) + (in_test_split[0].label == "supportive")
    assert doc["overall_micro_f1"] == pytest.approx(right / (n - 1))
    first = json.loads(saved.read_text("utf-8").splitlines()[0])
    assert first["label"] == "Support" and first["protocol"] == "released"
    # The table says which protocol, and prints the released code's NaN where it is.
    code, stdout, stderr = in_process(capsys, "evaluate", bench, "--predictions", saved,
                                      "--scheme", "caqa", "--protocol", "released")
    assert code == 0, stderr
    assert "as the released code computes them" in " ".join(stdout.split())
    assert "protocol released" in " ".join(stderr.split())
    assert "were read into labels" not in stderr
    # Scored under the other protocol: the labels stay, and a note says how to re-read.
    code, stdout, stderr = in_process(capsys, "evaluate", bench, "--predictions", saved,
                                      "--scheme", "caqa")
    assert code == 0, stderr
    assert "were read into labels under the released protocol" in " ".join(stderr.split())


def test_kgbench_prompt_is_the_default_of_the_llm_evaluator(
        bench: Path, tmp_path: Path, in_test_split: list[BenchmarkSample]) -> None:
    ours = {"supportive": "Supportive.", "partially_supportive": "Partially supportive: one "
            "fact is not cited.", "contradictory": "contradictory",
            "irrelevant": "It is irrelevant."}
    server = FakeChatServer()
    server.responder = sample_responder(in_test_split, lambda i, s: ours[s.label])
    try:
        proc = run("evaluate", bench, "--llm-url", server.url, "--llm-model", "judge-1",
                   "--llm-cache", tmp_path / "cache", "--json")
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["overall_micro_f1"] == 1.0 and doc["unparsed"] == 0
        shipped = select_prompt("kgbench", label_scheme("ours"))
        sent = server.received[0].body["messages"][-1]["content"]
        assert sent.startswith(f"### Instruction:\n{shipped.instruction}\n\n### Input:\n")
    finally:
        server.stop()


@pytest.mark.external
def test_the_papers_own_prompt_file_end_to_end(
        bench: Path, tmp_path: Path, in_test_split: list[BenchmarkSample]) -> None:
    path = external_path("attribution", "caqa", "CAQA-Benchmark_prompts.json")
    few_shot = next(t for t in json.loads(path.read_text("utf-8"))
                    if t["task_name"] == "attribution-no-definition-w-examples")
    server = FakeChatServer()
    server.responder = sample_responder(in_test_split, lambda i, s: CAQA_NAMES[s.label])
    try:
        proc = run("evaluate", bench, "--llm-url", server.url, "--llm-model", "judge-1",
                   "--prompts", path, "--prompt", "caqa-few-shot", "--scheme", "caqa",
                   "--protocol", "released", "--llm-cache", tmp_path / "cache", "--json")
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["overall_micro_f1"] == 1.0 and doc["protocol"] == "released"
        sent = server.received[0].body["messages"][-1]["content"]
        assert sent.startswith("### Instruction:\n" + few_shot["prompt_template"] +
                               "\n\n### Input:\nClaim: ")
    finally:
        server.stop()


def test_an_llm_run_that_fails_midway_writes_nothing_and_resumes_from_the_cache(
        bench: Path, tmp_path: Path, in_test_split: list[BenchmarkSample],
        llm_server: FakeChatServer, caqa_layout_prompts: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    answer = llm_server.responder
    assert answer is not None
    asked: list[str] = []

    def fail_on_the_fifth(prompt: str) -> str:
        asked.append(prompt)
        if len(asked) == 5:
            raise ConnectionResetError   # the server drops the connection unanswered
        return answer(prompt)

    llm_server.responder = fail_on_the_fifth
    saved = tmp_path / "llm.jsonl"
    args = ["evaluate", bench, "--llm-url", llm_server.url, "--llm-model", "judge-1",
            "--prompts", caqa_layout_prompts, "--llm-cache", tmp_path / "cache",
            "--llm-retries", "0", "--llm-parallel", "1", "--save-predictions", saved, "--json"]
    message = _clean_error(*in_process(capsys, *args))
    assert "no answer from the LLM endpoint" in message
    assert "run the same command again to resume" in message
    assert not saved.exists() and not list(tmp_path.glob("*.part"))
    code, stdout, stderr = in_process(capsys, *args)
    assert code == 0, stderr
    n = len(in_test_split)
    # The rerun asked only what the cache lacked: the first run's answers (and any in
    # flight when it stopped) were not asked again.
    assert len(set(asked)) == n and len(asked) < 2 * n
    assert json.loads(stdout)["n"] == n and saved.exists()
    counts = re.search(r"(\d+) LLM requests sent \(retries included\), (\d+) replies from "
                       r"the cache", " ".join(stderr.split()))
    assert counts is not None
    sent, hits = map(int, counts.groups())
    assert sent + hits == n and hits >= 4


def test_llm_url_unreachable_is_one_line(bench: Path, tmp_path: Path) -> None:
    with socket.socket() as probe:   # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = run("evaluate", bench, "--llm-url", f"http://127.0.0.1:{port}/v1",
               "--llm-model", "m", "--scheme", "attrscore", "--llm-retries", "0",
               "--llm-cache", tmp_path / "cache")
    assert_clean_error(proc)
    error = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert len(error) == 1
    assert "no answer from the LLM endpoint" in error[0] and "connection refused" in error[0]
    assert f"127.0.0.1:{port}" in error[0]
    assert proc.stdout == ""


def _clean_error(code: int, stdout: str, stderr: str, expected: int = 1) -> str:
    assert code == expected, stderr
    assert stderr.startswith("Error: ") and "Traceback" not in stderr + stdout
    assert stdout == ""
    return " ".join(stderr.split())


def test_hostile_predictions_files(bench: Path, tmp_path: Path,
                                   in_test_split: list[BenchmarkSample],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    good = [json.dumps({"id": s.id, "label": s.label}) for s in in_test_split]

    def evaluate(lines: list[str] | bytes) -> str:
        path = tmp_path / "p.jsonl"
        if isinstance(lines, bytes):
            path.write_bytes(lines)
        else:
            path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return _clean_error(*in_process(capsys, "evaluate", bench, "--predictions", path))

    message = evaluate(good[:-6])
    assert re.search(rf"p\.jsonl: no prediction for 6 of {len(in_test_split)} samples of the test "
                     r"split \(first: .*, …\)", message)
    message = evaluate([*good[:3], json.dumps({"id": in_test_split[3].id, "label": "Yes"}),
                        *good[4:]])
    assert "p.jsonl:4: 'Yes' is not a label of the ours scheme" in message
    assert "hint: use one of supportive, partially_supportive" in message
    assert "p.jsonl:2: 'Extrapolatory' is an AttrScore label" in evaluate(
        [good[0], json.dumps({"id": in_test_split[1].id, "label": "Extrapolatory"})])
    assert "p.jsonl:3: not JSON" in evaluate([*good[:2], '{"id": "x", "label": '])
    assert "p.jsonl:1: not UTF-8 text: not a predictions file" in evaluate(
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    assert "p.jsonl:1: sample id 'ghost:supportive' is not in the benchmark" in evaluate(
        [json.dumps({"id": "ghost:supportive", "label": "supportive"})])


def test_hostile_benchmarks_and_options(bench: Path, tmp_path: Path,
                                        samples: tuple[BenchmarkSample, ...],
                                        in_test_split: list[BenchmarkSample],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": s.id, "label": s.label}
                                               for s in samples])
    train_only = tmp_path / "train-only"
    write_benchmark(train_only, [s.model_copy(update={"split": "train"}) for s in samples])
    message = _clean_error(*in_process(capsys, "evaluate", train_only, "--predictions", preds))
    assert "has no samples in the test split" in message and "--split train" in message
    message = _clean_error(*in_process(capsys, "evaluate", tmp_path, "--predictions", preds))
    assert "is not a benchmark directory (no samples.jsonl)" in message
    # Usage errors: exit 2.
    for args, fragment in [
        (["--predictions", preds, "--llm-url", "http://127.0.0.1:9/v1", "--llm-model", "m"],
         "give one evaluator: --predictions FILE, --model DIR, --llm-url URL or --baseline "
         "KIND (got --predictions and --llm-url)"),
        ([], "give one evaluator"),
        (["--predictions", preds, "--compare", preds], "--compare needs --blind-labels"),
        (["--predictions", preds, "--nli-map", "neutral=irrelevant"], "--nli-map needs --model"),
        (["--predictions", preds, "--scheme", "alce"], "unknown label scheme 'alce'"),
        (["--predictions", preds, "--split", "dev"], "unknown split 'dev'"),
        (["--llm-url", "http://127.0.0.1:9/v1"], "--llm-url needs --llm-model"),
        (["--predictions", preds, "-m", "irrelevant"], "--label-map 'irrelevant' is not "
                                                        "LABEL=TARGET"),
    ]:
        message = _clean_error(*in_process(capsys, "evaluate", bench, *args), expected=2)
        assert fragment in message, message
    message = _clean_error(*in_process(capsys, "evaluate", bench, "--predictions", preds,
                                       "--protocol", "paper"), expected=2)
    assert "unknown protocol 'paper'" in message and "kgbench, released" in message
    # The papers' prompts are not shipped: their names need the user's file.
    message = _clean_error(*in_process(capsys, "evaluate", bench, "--llm-url",
                                       "http://127.0.0.1:9/v1", "--llm-model", "m",
                                       "--prompt", "caqa-zero-shot"))
    assert "--prompt caqa-zero-shot is the paper's prompt, which kgbench does not ship" \
        in message and "--prompts" in message
    # A wrong prompt file: one line naming what it lacks.
    bad = tmp_path / "prompts.json"
    bad.write_text('[{"task_name": "attribution-no-definition", "prompt_template": "Judge.", '
                   '"input_template": "Claim: {}"}]', encoding="utf-8")
    message = _clean_error(*in_process(capsys, "evaluate", bench, "--llm-url",
                                       "http://127.0.0.1:9/v1", "--llm-model", "m",
                                       "--prompts", bad))
    assert f"{bad}: prompt 'attribution-no-definition': input_template needs two {{}} " \
           "slots" in message
    # An --out that is a directory is refused before anything runs.
    message = _clean_error(*in_process(capsys, "evaluate", bench, "--predictions", preds,
                                       "--out", tmp_path))
    assert "is a directory, not a file" in message


def test_blind_labels_and_sub_facts_on_the_command_line(
        bench: Path, tmp_path: Path, in_test_split: list[BenchmarkSample],
        capsys: pytest.CaptureFixture[str]) -> None:
    right = write_jsonl(tmp_path / "right.jsonl", [{"id": s.id, "label": s.label}
                                                   for s in in_test_split])
    lazy = write_jsonl(tmp_path / "lazy.jsonl", [{"id": s.id, "label": "supportive"}
                                                 for s in in_test_split])
    blind = write_jsonl(tmp_path / "blind.jsonl", [{"id": s.id, "label": s.label}
                                                   for s in in_test_split])
    partial = [s for s in in_test_split if s.label == "partially_supportive"]
    sub = write_jsonl(tmp_path / "sub.jsonl", [
        {"id": s.id, "sub_facts": [f.supported for f in s.sub_facts]} for s in partial])
    code, stdout, stderr = in_process(capsys, "evaluate", bench, "--predictions", right,
                                      "--blind-labels", blind, "--compare", lazy,
                                      "--sub-facts", sub, "--json")
    assert code == 0, stderr
    doc = json.loads(stdout)
    assert list(doc) == [*KEYS, "consistency", "fine_grained"]
    block = doc["consistency"]
    assert block["label_agreement"] == 1.0 and block["samples"] == len(in_test_split)
    assert block["pearson"] == pytest.approx(1.0)   # two evaluators, identical references
    assert doc["fine_grained"]["error_rate"] == 0.0 and doc["fine_grained"]["agreement"] == 1.0
    code, stdout, stderr = in_process(capsys, "evaluate", bench, "--predictions", right,
                                      "--blind-labels", blind, "--compare", lazy,
                                      "--sub-facts", sub)
    assert code == 0, stderr
    assert "Consistency with blind labels (CAQA §6.2)" in stdout
    assert "Sub-facts (CAQA §6.3, Table 7)" in stdout
    counts = Counter(s.label for s in in_test_split)
    assert f"{counts['supportive'] / len(in_test_split):.3f}" in stdout   # lazy's micro-F1


@pytest.mark.slow   # the first tiny model of a session imports torch (~7 s)
def test_an_exported_model_end_to_end(bench: Path, tmp_path: Path,
                                      in_test_split: list[BenchmarkSample],
                                      exported: Exported) -> None:  # noqa: F811
    # export (tiny BERT classifier) -> evaluate, in a real process: the runtime that ran
    # is in the document and said on stderr.
    proc = run("evaluate", bench, "--model", exported("bert", "classify"), "--device", "cpu",
               "--scheme", "caqa", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert list(doc) == [*KEYS, "runtime"]
    assert doc["runtime"]["provider"] == "CPUExecutionProvider"
    assert doc["n"] == len(in_test_split) and doc["unparsed"] == 0
    assert "ran on CPUExecutionProvider" in " ".join(proc.stderr.split())
