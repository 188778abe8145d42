"""kalma.generate: entries from the demo KG and a Wikidata-shaped store, byte-identical
for a seed whatever the chunking, resumed after an interruption, another config refused
without force, the §4.4 incompetence variants, the LM and LLM wiring, the report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from extension.inputs.domain_spec import DomainSpec
from extension.outputs.output_file import OutputPathError
from kalma.builder import BuildConfig
from kalma.entry import KalmaEntry, read_entries
from kalma.errors import KalmaError
from kalma.generate import WORK_DIR, generate_entries, incompetence_file, incompetence_variant
from kalma.report import render_report
from kalma.schema import entry_schema_text
from kalma.templates import qualifier_anchor
from tests.kalma.stores import demo_store, wikidata_store  # noqa: F401
from tests.llm.chat_server import FakeChatServer, endpoint, server  # noqa: F401
from tests.scoring.models import exported, tiny_hf  # noqa: F401

PEOPLE = DomainSpec("type", "people.person")
CONFIG = BuildConfig(domain=PEOPLE, n=6, seed=1)


class Stop(Exception):
    """Raised from the progress callback: the run is killed mid-way."""


def _files(out: Path, levels: tuple[int, ...] = (1, 2)) -> dict[str, bytes]:
    return {name: (out / name).read_bytes()
            for name in ("entries.jsonl", *(incompetence_file(k) for k in levels))}


def test_demo_entries_and_outputs(demo_store: str, tmp_path: Path) -> None:  # noqa: F811
    seen: list[tuple[int, int]] = []
    result = generate_entries(demo_store, CONFIG, tmp_path / "a", incompetence=[2, 1],
                              chunk_size=4, progress=lambda d, t: seen.append((d, t)))
    out = tmp_path / "a"
    entries = list(read_entries(out))
    assert result.entries == len(entries) == 6 and result.resumed_chunks == 0
    assert [e.id for e in entries] == [f"kalma-{i:05d}" for i in range(6)]
    assert all(len(e.entities) == 2 and len(e.minimum_knowledge_set) == 5 for e in entries)
    assert seen[0] == (0, 6) and seen[-1] == (6, 6)
    assert (out / "entry.schema.json").read_text("utf-8") == entry_schema_text()
    run = json.loads((out / "run.json").read_text("utf-8"))
    assert run["fingerprint"]["seed"] == 1 and run["fingerprint"]["incompetence"] == [1, 2]
    assert (run["method"], run["coherence"], run["entries"]) == ("template", "none", 6)
    assert run["incompetence"] == {"1": {"entries": 6, "left_out": 0},
                                   "2": {"entries": 6, "left_out": 0}}
    assert sum(run["relations"].values()) == 30 and result.relations == run["relations"]
    page = (out / "report.html").read_text("utf-8")
    assert entries[0].question_general.replace("'", "&#x27;") in page and "spouse" in page
    assert not (out / WORK_DIR).exists() and sorted(p.name for p in out.iterdir()) == [
        "entries.jsonl", "entry.schema.json", "incompetence-1.jsonl", "incompetence-2.jsonl",
        "report.html", "run.json"]
    # Same seed, other chunking: the same bytes. The finished run is reused as it is.
    generate_entries(demo_store, CONFIG, tmp_path / "b", incompetence=[1, 2], chunk_size=50)
    assert _files(tmp_path / "b") == _files(out)
    again = generate_entries(demo_store, CONFIG, out, incompetence=[1, 2], chunk_size=4)
    assert again.resumed_chunks == -1 and again.entries == 6


def test_incompetence_variants(demo_store: str, tmp_path: Path) -> None:  # noqa: F811
    generate_entries(demo_store, CONFIG, tmp_path, incompetence=[1, 2, 3, 5])
    full = {e.id: e for e in read_entries(tmp_path)}
    removed: dict[int, dict[str, set[tuple[str, str, str]]]] = {}
    others = 0
    for k in (1, 2, 3):
        variants = list(read_entries(tmp_path / incompetence_file(k)))
        assert [v.id for v in variants] == [i for i in full if incompetence_variant(full[i], k)]
        removed[k] = {}
        for v in variants:
            e = full[v.id]
            absent = {a.key() for a in v.absent_knowledge}
            assert v.incompetence == len(v.absent_knowledge) == len(absent) == k
            assert absent <= {m.key() for m in e.minimum_knowledge_set}
            assert not absent & v.retrieved_keys()
            # Gone with every other view of what it states: a marriage's start date
            # read from the other spouse, the spouse fact from the other side.
            stated = {a.statement() for a in v.absent_knowledge}
            assert [p for p in e.knowledge_pool
                    if p.key() not in absent and p.statement() not in stated
                    ] == list(v.knowledge_pool)
            assert not stated & {p.statement() for p in v.knowledge_pool}
            others += sum(p.key() not in absent and p.statement() in stated
                          for p in e.knowledge_pool)
            # Only what a reader would miss is removed: nothing the questions name
            # (the pair's link, a qualifier's anchor), and no value of a relation
            # whose other values stay (a qualifier is its own marriage's one value).
            mks = e.minimum_knowledge_set
            named = {mks[0].statement()} | {
                a.statement() for q in mks if (a := qualifier_anchor(q, e.knowledge_pool))}
            for gone in v.absent_knowledge:
                assert gone.statement() not in named, (v.id, gone.triple())
                assert qualifier_anchor(gone, e.knowledge_pool) is not None or not [
                    p for p in v.knowledge_pool
                    if (p.subject_id, p.relation) == (gone.subject_id, gone.relation)]
            assert v.minimum_knowledge_set == e.minimum_knowledge_set
            assert v == e.with_absent(v.absent_knowledge) == incompetence_variant(e, k)
            removed[k][v.id] = absent
    assert others > 0
    assert len(removed[1]) == len(full) and len(removed[3]) >= len(full) // 2
    # The variant lines are the variants' own to_line (written from the parsed JSON).
    assert (tmp_path / incompetence_file(2)).read_text("utf-8") == "".join(
        v.to_line() for v in (incompetence_variant(e, 2) for e in full.values()) if v)
    # One shuffle per entry: what K=1 removes, K=2 removes too.
    assert all(removed[1][i] <= removed[2][i] <= removed[3][i] for i in removed[3])
    assert len({frozenset(s) for s in removed[1].values()}) > 1   # not always the same triple
    # Five pieces of minimum knowledge: nothing would be left to cite at K=5.
    assert (tmp_path / incompetence_file(5)).read_text("utf-8") == ""
    run = json.loads((tmp_path / "run.json").read_text("utf-8"))
    assert run["incompetence"]["5"] == {"entries": 0, "left_out": 6}
    assert run["incompetence"]["3"]["left_out"] == len(full) - len(removed[3])
    assert incompetence_variant(next(iter(full.values())), 5) is None


def test_resume_after_interruptions(demo_store: str, tmp_path: Path) -> None:  # noqa: F811
    reference = tmp_path / "ref"
    generate_entries(demo_store, CONFIG, reference, incompetence=[1], chunk_size=2)
    out = tmp_path / "out"

    def stop_after(entries: int):  # type: ignore[no-untyped-def]
        def progress(done: int, total: int) -> None:
            if done >= entries:
                raise Stop
        return progress

    with pytest.raises(Stop):   # killed after two chunks
        generate_entries(demo_store, CONFIG, out, incompetence=[1], chunk_size=2,
                         progress=stop_after(4))
    work = out / WORK_DIR
    assert sorted(p.name for p in work.glob("chunk-*.stats.json")) == [
        "chunk-000000.stats.json", "chunk-000001.stats.json"]
    assert not (out / "entries.jsonl").exists()
    (work / "chunk-000001.entries.jsonl").unlink()   # a chunk's entries lost: built again
    with pytest.raises(Stop):   # every chunk done, killed before the final renames
        generate_entries(demo_store, CONFIG, out, incompetence=[1], chunk_size=2,
                         progress=stop_after(6))
    assert not (out / "run.json").exists()
    result = generate_entries(demo_store, CONFIG, out, incompetence=[1], chunk_size=2)
    assert result.resumed_chunks == 3 and result.entries == 6
    assert _files(out, (1,)) == _files(reference, (1,))


def test_another_run_is_refused_without_force(demo_store: str, tmp_path: Path) -> None:  # noqa: F811
    generate_entries(demo_store, CONFIG, tmp_path)
    before = (tmp_path / "entries.jsonl").read_bytes()
    other = BuildConfig(domain=PEOPLE, n=6, seed=2)
    with pytest.raises(KalmaError, match="already holds KaLMA entries of another run "
                       r"\(different --seed\)") as info:
        generate_entries(demo_store, other, tmp_path)
    assert "--force" in (info.value.hint or "")
    assert (tmp_path / "entries.jsonl").read_bytes() == before
    # An unfinished run is refused too, naming what differs.
    shutil.rmtree(tmp_path)
    with pytest.raises(Stop):
        generate_entries(demo_store, CONFIG, tmp_path, chunk_size=2,
                         progress=lambda d, t: (_ for _ in ()).throw(Stop) if d >= 2 else None)
    with pytest.raises(KalmaError, match="unfinished KaLMA run with a different --n"):
        generate_entries(demo_store, BuildConfig(domain=PEOPLE, n=4, seed=1), tmp_path, chunk_size=2)
    forced = generate_entries(demo_store, other, tmp_path, force=True, incompetence=[1])
    assert forced.entries == 6 and forced.resumed_chunks == 0
    assert (tmp_path / "entries.jsonl").read_bytes() != before


def test_wikidata_shaped_store(wikidata_store: str, tmp_path: Path) -> None:  # noqa: F811
    humans = DomainSpec("type", "Q5")
    result = generate_entries(wikidata_store, BuildConfig(domain=humans, n=5, seed=0),
                              tmp_path / "pairs", incompetence=[1])
    (entry,) = read_entries(tmp_path / "pairs")
    assert result.entries == 1 and result.requested == 5
    assert {e.id for e in entry.entities} == {"Q692", "Q262479"}
    assert entry.minimum_knowledge_set[0].predicate == "P26"
    with pytest.raises(KalmaError, match="no entry could be built"):
        generate_entries(wikidata_store, BuildConfig(domain=DomainSpec("type", "Q5"), n=2, seed=0,
                                                     iterations=5, pool_limit=1, single=True),
                         tmp_path / "none")
    assert not (tmp_path / "none" / WORK_DIR).exists()


def test_coherence_from_the_lm_and_text_from_the_llm(
        demo_store: str, tmp_path: Path, exported, server: FakeChatServer) -> None:  # noqa: F811
    config = BuildConfig(domain=PEOPLE, n=2, seed=1)
    lm_dir = exported("gpt2", "causal-lm")
    result = generate_entries(demo_store, BuildConfig(domain=PEOPLE, n=1, seed=1, iterations=2),
                              tmp_path / "lm", lm_dir=lm_dir)
    run = json.loads((tmp_path / "lm" / "run.json").read_text("utf-8"))
    assert result.coherence == "perplexity" and run["fingerprint"]["lm"]["card_sha256"]
    assert run["lm_runtime"]["provider"] == "CPUExecutionProvider"
    assert all(it["coherence"] is not None for e in read_entries(tmp_path / "lm")
               for it in e.generation["iterations"][1:])
    cache = tmp_path / "cache"
    result = generate_entries(demo_store, config, tmp_path / "llm", llm=endpoint(server),
                              llm_cache=cache)
    asked = len(server.received)
    assert result.method == "llm" and asked > 0 and any(cache.rglob("*.json"))
    # The replies are cached: another directory, the same requests, none sent.
    generate_entries(demo_store, config, tmp_path / "llm2", llm=endpoint(server), llm_cache=cache)
    assert len(server.received) == asked
    assert (tmp_path / "llm2" / "entries.jsonl").read_bytes() == \
        (tmp_path / "llm" / "entries.jsonl").read_bytes()


def test_report_escapes_text(demo_store: str, tmp_path: Path) -> None:  # noqa: F811
    generate_entries(demo_store, BuildConfig(domain=PEOPLE, n=1, seed=1), tmp_path)
    run = json.loads((tmp_path / "run.json").read_text("utf-8"))
    (entry,) = read_entries(tmp_path)
    hostile = KalmaEntry.from_json({**entry.to_json(), "question_general": "<script>x</script>?"}, "t")
    page = render_report({**run, "skips": {"<b>odd</b>": 1}}, [hostile], BuildConfig(
        domain=PEOPLE, n=1, seed=1))
    assert "<script>" not in page and "&lt;script&gt;x&lt;/script&gt;?" in page
    assert "&lt;b&gt;odd&lt;/b&gt;" in page and "<b>odd</b>" not in page


def test_an_out_that_is_a_file(demo_store: str, tmp_path: Path) -> None:  # noqa: F811
    taken = tmp_path / "file"
    taken.write_text("keep me", "utf-8")
    with pytest.raises(OutputPathError, match=f"--out {taken} is a file, not a directory"):
        generate_entries(demo_store, CONFIG, taken)
    assert taken.read_text("utf-8") == "keep me"
