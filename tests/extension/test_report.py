"""The HTML report of a benchmark (extension.outputs.report) on real benchmark samples.

The samples are the demo KG's (:func:`tests.extension.test_export.demo_benchmark`) and
the stats are laid out as ``kgbench generate`` writes ``stats.json``. The report is
parsed with :mod:`html.parser`: balanced tags, the Table-5 numbers, one example per
label × complexity present, nothing external (no scripts, links or remote images) and
knowledge-graph text escaped even when an entity is called ``<script>…``.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections import Counter
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from extension.core.labels import COMPLEXITIES, LABELS
from extension.core.samples import Triple
from extension.outputs.export import SamplesFileError
from extension.outputs.figures import (
    DELETED_COLOUR,
    REPLACEMENT_COLOUR,
    draw_subgraph,
    hue_name,
    predicate_phrase,
)
from extension.outputs.report import (
    present_cells,
    render_report,
    summarize_samples,
    write_report,
)
from extension.outputs.sample_schema import BenchmarkSample
from tests.extension.test_export import demo_benchmark, write_benchmark

VOID = {"meta", "br", "hr", "img", "input", "link", "source", "wbr", "col", "area", "base"}
EVIL = "<script>alert('kg')</script>"


class Page(HTMLParser):
    """Parses a page, checking that every element is closed in order, and keeps the
    start tags with their attributes, the text, and the counts tables."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.tables: dict[str, dict[str, list[int]]] = {}
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self.doctype = False
        self.feed(text)
        self.close()
        if self.stack:
            self.problems.append(f"unclosed: {self.stack}")

    def handle_decl(self, decl: str) -> None:
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "table" and "counts" in (attributes.get("class") or ""):
            self._table = attributes["data-split"]
            self.tables[self._table or ""] = {}
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))   # <path … /> in the inline SVG

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            if self._row and self._row[0] != "label":
                self.tables[self._table][self._row[0]] = [
                    int(v.replace(",", "")) for v in self._row[1:]]
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def stats_of(samples: list[BenchmarkSample] | tuple[BenchmarkSample, ...]) -> dict[str, Any]:
    """``stats.json`` as ``kgbench generate`` lays it out, for these samples."""
    counts = Counter((s.split, s.label, s.complexity) for s in samples)
    questions = {s.source.qid: s.split for s in samples}
    return {
        "seed": 1, "verbalizer": "template", "questions": len(questions),
        "questions_by_split": dict(Counter(questions.values())), "samples": len(samples),
        "by_split": {split: {label: {c: counts.get((split, label, c), 0) for c in COMPLEXITIES}
                             for label in LABELS} for split in ("train", "test")},
        "failures_by_stage": {"irrelevant": 3, "contradictory": 1},
        "seconds": 1.9, "samples_per_s": 28.9,
        "stage_seconds": {"parse": 0.1, "extend": 1.2, "verbalize": 0.05},
    }


@pytest.fixture(scope="module")
def samples() -> tuple[BenchmarkSample, ...]:
    return demo_benchmark()


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory,
           samples: tuple[BenchmarkSample, ...]) -> tuple[Path, str]:
    """(benchmark directory, report text) of the demo benchmark; do not modify."""
    directory = tmp_path_factory.mktemp("report")
    path = write_report(directory, write_benchmark(directory, samples), stats_of(samples))
    assert path == directory / "report.html"
    return directory, path.read_text(encoding="utf-8")


def test_report_is_well_formed_html(report: tuple[Path, str]) -> None:
    directory, text = report
    page = Page(text)
    assert page.doctype
    assert page.problems == []
    assert ("meta", {"charset": "utf-8"}) in page.tags
    assert not list(directory.glob("*.part"))


def test_report_has_the_run_summary(report: tuple[Path, str],
                                    samples: tuple[BenchmarkSample, ...]) -> None:
    text = " ".join(Page(report[1]).text)
    stats = stats_of(samples)
    for expected in (f"questions {stats['questions']} (",
                     f"train {stats['questions_by_split']['train']}",
                     f"test {stats['questions_by_split']['test']}", f"samples {len(samples)}", "seed 1", "verbalizer template",
                     "samples / s 28.9", "failures 4"):
        assert expected in " ".join(text.split()), expected


def test_report_tables_hold_the_stats_numbers(report: tuple[Path, str],
                                              samples: tuple[BenchmarkSample, ...]) -> None:
    tables = Page(report[1]).tables
    stats = stats_of(samples)
    assert set(tables) == {"train", "test", "total"}
    for split in ("train", "test"):
        for label in LABELS:
            row = [stats["by_split"][split][label][c] for c in COMPLEXITIES]
            assert tables[split][label] == [*row, sum(row)]
        assert tables[split]["total"][-1] == sum(s.split == split for s in samples)
    for label in LABELS:
        row = [sum(stats["by_split"][sp][label][c] for sp in ("train", "test"))
               for c in COMPLEXITIES]
        assert tables["total"][label] == [*row, sum(row)]
    assert tables["total"]["total"][-1] == len(samples)
    assert "disagree" not in report[1]


def test_one_example_per_present_cell(report: tuple[Path, str],
                                      samples: tuple[BenchmarkSample, ...]) -> None:
    page = Page(report[1])
    examples = [(a["data-label"], a["data-complexity"]) for tag, a in page.tags
                if tag == "article" and "example" in (a.get("class") or "")]
    present = {(s.label, s.complexity) for s in samples}
    assert sorted(examples) == sorted(present)
    assert len(examples) == len(present) == 16   # single questions have partial samples too
    # each example is drawn: one inline SVG per example, plus the five plots
    assert sum(tag == "svg" for tag, _ in page.tags) == len(examples) + 5


def test_examples_show_the_sample_text(report: tuple[Path, str],
                                       samples: tuple[BenchmarkSample, ...]) -> None:
    directory = report[0]
    summary = summarize_samples(directory / "samples.jsonl")
    text = " ".join(Page(report[1]).text)
    for sample in summary.examples.values():
        for expected in (sample.question, sample.question_extended, sample.answer,
                         *(c.text for c in sample.citations),
                         *(f"{'✓' if s.supported else '✗'} {s.text}" for s in sample.sub_facts)):
            assert expected in text
    assert set(summary.examples) == set(present_cells(summary))
    assert "✗ " in text and "✓ " in text   # partially supportive examples lack a sub-fact


def test_element_ids_are_unique_and_resolve(report: tuple[Path, str]) -> None:
    page = Page(report[1])
    ids = [a["id"] for _, a in page.tags if a.get("id")]
    assert len(ids) == len(set(ids)) > 100   # the figures' ids are prefixed per figure
    references = [value for _, a in page.tags for key in ("href", "xlink:href")
                  if (value := a.get(key) or "").startswith("#")]
    references += re.findall(r"url\(#([^)]+)\)", report[1])
    assert references
    assert {r.removeprefix("#") for r in references} <= set(ids)


def test_nothing_external(report: tuple[Path, str]) -> None:
    page = Page(report[1])
    names = {tag for tag, _ in page.tags}
    assert not names & {"script", "link", "iframe", "object", "embed", "img"}
    for _tag, attributes in page.tags:
        for key, value in attributes.items():
            if key in ("src", "href", "xlink:href") and value is not None:
                assert value.startswith(("#", "data:")), (key, value)
            assert not (key.startswith("on")), key   # no inline event handlers


def test_examples_are_chosen_deterministically(report: tuple[Path, str], tmp_path: Path,
                                               samples: tuple[BenchmarkSample, ...]) -> None:
    # the same samples in another order: same examples, same page
    again = write_report(tmp_path, write_benchmark(tmp_path, samples[::-1]), stats_of(samples))
    assert again.read_text(encoding="utf-8") == report[1]
    path = report[0] / "samples.jsonl"
    chosen = summarize_samples(path, examples_seed=0).examples
    others = [summarize_samples(path, examples_seed=seed).examples for seed in range(1, 6)]
    assert any(other != chosen for other in others)   # the seed does choose


def test_the_showcase_is_the_best_rated_sample_of_a_cell(
        tmp_path: Path, samples: tuple[BenchmarkSample, ...]) -> None:
    """Issue 34, item 7: readers judge a benchmark by its report; each cell shows its
    best-rated text (placeholders and doubled words rate low), the seed only breaking
    ties. Every sample of the most populous cell but the one the seed would pick last
    gets a broken question: that one must be shown."""
    cells = Counter((s.label, s.complexity) for s in samples)
    cell = max(cells, key=lambda c: (cells[c], c))
    members = [s for s in samples if (s.label, s.complexity) == cell]
    assert len(members) > 1
    keep = max(members, key=lambda s: hashlib.blake2b(f"0:{s.id}".encode(),
                                                      digest_size=8).digest())
    broken = tuple(s.model_copy(update={"question_extended": "Which entity has the the one?"})
                   if (s.label, s.complexity) == cell and s.id != keep.id else s
                   for s in samples)
    path = write_benchmark(tmp_path, broken)
    assert summarize_samples(path).examples[cell].id == keep.id


def test_kg_text_is_escaped(tmp_path: Path, samples: tuple[BenchmarkSample, ...]) -> None:
    sample = samples[0]
    evil_triples = tuple(t.model_copy(update={"s_name": EVIL}) for t in sample.subgraph)
    evil = sample.model_copy(update={
        "subgraph": evil_triples, "original_subgraph": evil_triples,
        "question": f"who is {EVIL}?", "answer": f"{EVIL} & co.",
        "citations": tuple(c.model_copy(update={"text": f"{EVIL} {c.text}"})
                           for c in sample.citations)})
    path = write_report(tmp_path, write_benchmark(tmp_path, [evil]), {"seed": 0})
    text = path.read_text(encoding="utf-8")
    page = Page(text)
    assert page.problems == []
    assert "script" not in {tag for tag, _ in page.tags}
    assert EVIL not in text
    parsed_text = "".join(page.text)
    assert f"who is {EVIL}?" in parsed_text and f"{EVIL} & co." in parsed_text
    # the entity name is on a node of the drawing, as text
    assert "&lt;script&gt;alert(" in text.split("<svg", 2)[-1]


def test_stats_that_disagree_with_the_file_are_flagged(report: tuple[Path, str],
                                                       samples: tuple[BenchmarkSample, ...]
                                                       ) -> None:
    stats = stats_of(samples)
    stats["by_split"]["train"]["supportive"]["intersection"] += 7
    # without the examples: only the tables and plots matter here
    summary = replace(summarize_samples(report[0] / "samples.jsonl"), examples={})
    text = render_report(summary, stats)
    assert "stats.json and the samples file disagree (train, supportive, intersection" in text


def test_an_empty_benchmark_and_missing_stats(tmp_path: Path) -> None:
    (tmp_path / "samples.jsonl").write_text("", encoding="utf-8")
    text = write_report(tmp_path, tmp_path / "samples.jsonl", {}).read_text("utf-8")
    page = Page(text)
    assert page.problems == []
    assert page.tables["total"]["total"] == [0, 0, 0, 0, 0]
    assert "no samples" in text and "no failures" in text and "no stage times" in text


def test_bad_line_is_reported_with_its_number(tmp_path: Path,
                                              samples: tuple[BenchmarkSample, ...]) -> None:
    path = write_benchmark(tmp_path, samples[:2])
    lines = path.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[1])
    bad["complexity"] = "star"
    path.write_text(f"{lines[0]}\n{json.dumps(bad)}\n", encoding="utf-8")
    with pytest.raises(SamplesFileError, match=r"samples\.jsonl:2: .*'star'"):
        write_report(tmp_path, path, {})
    path.write_text(f"{lines[0]}\n[1, 2]\n", encoding="utf-8")
    with pytest.raises(SamplesFileError, match=r"samples\.jsonl:2: .*not a JSON object"):
        write_report(tmp_path, path, {})
    assert not (tmp_path / "report.html").exists()
    assert not list(tmp_path.glob("*.part"))


def test_contradictory_drawing_marks_the_edit(samples: tuple[BenchmarkSample, ...]) -> None:
    sample = next(s for s in samples if s.label == "contradictory" and s.edit.replacement
                  and s.edit.replacement.name)
    svg = draw_subgraph(sample, name="t")
    assert svg.startswith("<svg")
    assert sample.edit.replacement is not None and sample.edit.replacement.name
    assert sample.edit.replacement.name.split()[0] in svg
    assert REPLACEMENT_COLOUR.lower() in svg.lower()       # the replacement's colour
    assert DELETED_COLOUR.lower() in svg.lower()           # the replaced triple, dashed
    assert "stroke-dasharray" in svg
    supportive = next(s for s in samples if s.label == "supportive")
    assert DELETED_COLOUR.lower() not in draw_subgraph(supportive, name="u").lower()


def test_cvt_nodes_are_unlabelled(samples: tuple[BenchmarkSample, ...]) -> None:
    sample = next(s for s in samples if s.cvt_nodes and s.label == "supportive")
    cvt = sample.cvt_nodes[0]
    svg = draw_subgraph(sample, name="c")
    assert f">{cvt}<" not in svg
    named = next(t for t in sample.subgraph if t.s == cvt or t.o == cvt)
    assert predicate_phrase(named.p) in svg


def test_predicate_phrases() -> None:
    assert predicate_phrase("film.film.directed_by") == "directed by"
    assert predicate_phrase("http://www.wikidata.org/prop/direct/P19") == "P19"
    assert predicate_phrase("http://xmlns.com/foaf/0.1/#knows") == "knows"
    assert predicate_phrase("P31") == "P31"


def test_a_dollar_in_a_name_is_not_mathtext(samples: tuple[BenchmarkSample, ...]) -> None:
    sample = samples[0]
    odd = tuple(Triple(**{**t.model_dump(), "s_name": "Ke$ha $\\frac$ Band"})
                for t in sample.subgraph)
    svg = draw_subgraph(sample.model_copy(update={"subgraph": odd, "original_subgraph": odd}))
    assert "Ke$ha $\\frac$" in svg


# -- issue 19: failure reasons, missing labels, CAQA shares, readable drawings ----------


def _uses(svg: str, group: str) -> list[tuple[float, float, str]]:
    """``(x, y, fill)`` of the markers drawn in the SVG groups whose id contains
    ``group`` (``PathCollection``: the nodes; ``legend``: the legend)."""
    found = []
    blocks = (re.findall(rf'<g id="[^"]*{group}[^"]*">(.*?)</g>\s*</g>', svg, re.S)
              if group != "legend" else [svg[svg.index("legend_1"):]])   # the SVG's last group
    for block in blocks:
        for x, y, fill in re.findall(
                r'<use [^>]*x="([\d.-]+)" y="([\d.-]+)" style="fill: (#[0-9a-f]+)', block):
            found.append((float(x), float(y), fill))
    return found


def _texts(svg: str) -> list[tuple[float, float, float, str]]:
    """``(x, y, font size, text)`` of every text element of the SVG."""
    return [(float(x), float(y), float(size), html.unescape(text))
            for size, x, y, text in re.findall(
                r'<text style="font-size: ([\d.]+)px[^"]*" x="([\d.-]+)" y="([\d.-]+)"'
                r'[^>]*>([^<]*)</text>', svg)]


def _with_other_entity(samples: tuple[BenchmarkSample, ...]) -> BenchmarkSample:
    """A sample whose drawing has a node that is neither subject, answer nor CVT."""
    for s in samples:
        ends = {t.s for t in s.subgraph} | {t.o for t in s.subgraph if not t.literal}
        answers = {a.id for a in s.answer_entities}
        replacement = s.edit.replacement.id if s.edit.replacement else None
        if ends - answers - set(s.query.subjects) - set(s.cvt_nodes) - {replacement}:
            return s
    raise AssertionError("no demo sample with another entity")


def test_names_are_drawn_beside_their_nodes_not_over_them(
        samples: tuple[BenchmarkSample, ...]) -> None:
    sample = _with_other_entity(samples)
    svg = draw_subgraph(sample, name="n")
    nodes = _uses(svg, "PathCollection")
    names = {t.s_name for t in sample.subgraph} | {t.o_name for t in sample.subgraph}
    drawn = [t for t in _texts(svg) if t[3] in names]
    assert nodes and drawn
    for x, y, _, text in drawn:
        # no name's anchor lies on a node (a node is 20 points across)
        assert min(((x - nx_) ** 2 + (y - ny) ** 2) ** 0.5 for nx_, ny, _ in nodes) > 10, text


def test_edge_labels_are_large_enough(samples: tuple[BenchmarkSample, ...]) -> None:
    sample = next(s for s in samples if s.complexity == "concatenation")
    svg = draw_subgraph(sample, name="e")
    phrases = {predicate_phrase(t.p) for t in sample.original_subgraph}
    sizes = [size for _, _, size, text in _texts(svg)
             if text.removeprefix("✗ ") in phrases or " / " in text]
    assert sizes and min(sizes) >= 9


def test_the_legend_shows_every_colour_drawn(samples: tuple[BenchmarkSample, ...]) -> None:
    for sample in (_with_other_entity(samples),
                   next(s for s in samples if s.label == "contradictory")):
        svg = draw_subgraph(sample, name="l")
        node_fills = {fill for _, _, fill in _uses(svg, "PathCollection")}
        legend_fills = {fill for _, _, fill in _uses(svg, "legend")}
        assert node_fills == legend_fills, sample.id
    assert "other entity" in draw_subgraph(_with_other_entity(samples), name="o")


def test_edges_are_named_by_the_stores_predicate_labels(
        samples: tuple[BenchmarkSample, ...], tmp_path: Path) -> None:
    """A Wikidata store names its predicates P19, P57 …; the drawing shows their
    labels (as the store has them), not the ids."""
    sample = next(s for s in samples if s.complexity == "concatenation")
    as_pids = {t.p: f"P{100 + i}" for i, t in enumerate(sample.original_subgraph)}
    labels = {pid: f"label of {pid}" for pid in as_pids.values()}

    def renamed(triples: tuple[Triple, ...]) -> tuple[Triple, ...]:
        return tuple(t.model_copy(update={"p": as_pids[t.p]}) for t in triples)

    wikidata = sample.model_copy(update={
        "subgraph": renamed(sample.subgraph),
        "original_subgraph": renamed(sample.original_subgraph)})
    svg = draw_subgraph(wikidata, name="w", predicate_labels=labels)
    texts = " ".join(t[3] for t in _texts(svg))
    for pid in {t.p for t in wikidata.subgraph}:
        assert labels[pid] in texts
        assert not re.search(rf"(?<![\w ]){pid}\b", texts.replace(labels[pid], ""))
    path = write_report(tmp_path, write_benchmark(tmp_path, [wikidata]), stats_of([wikidata]),
                        predicate_labels=labels)
    assert all(labels[p] in path.read_text("utf-8") for p in {t.p for t in wikidata.subgraph})


def test_failures_are_shown_by_reason(report: tuple[Path, str],
                                      samples: tuple[BenchmarkSample, ...]) -> None:
    """The reasons, grouped by kind with a count and an example each: on WebQSP ×
    FB15k-237 most questions fail with unknown_predicate, which the stage hides."""
    from extension.outputs.failure_kinds import group_failures

    failures = [{"qid": f"WebQTest-{i}", "stage": "ground_original",
                 "reason": f"unknown_predicate: predicates not in the store: x.y.z{i}"}
                for i in range(5)] + [
        {"qid": "q9", "stage": "contradictory",
         "reason": "no non-answer entity shares a type with m.0abc"},
        {"qid": "q10", "stage": "contradictory",
         "reason": "no non-answer entity shares a type with m.0xyz"}]
    stats = {**stats_of(samples), "failures_by_kind": [k.to_json() for k in group_failures(failures)]}
    summary = replace(summarize_samples(report[0] / "samples.jsonl"), examples={})
    page = Page(render_report(summary, stats))
    rows = {(a.get("data-stage"), a.get("data-kind")) for tag, a in page.tags
            if tag == "tr" and a.get("data-kind")}
    assert rows == {("ground_original", "unknown_predicate"),
                    ("contradictory", "no non-answer entity shares a type with …")}
    text = " ".join(" ".join(page.text).split())
    assert ("ground_original 5 unknown_predicate a predicate of the question's query is not "
            "in the store most often: x.y.z0 1, x.y.z1 1") in text
    assert "What to do: the store lacks these predicates" in text
    assert "WebQTest-0 unknown_predicate: predicates not in the store: x.y.z0" in text
    assert "q9 no non-answer entity shares a type with m.0abc" in text


def test_a_prose_reason_reads_as_text(report: tuple[Path, str],
                                      samples: tuple[BenchmarkSample, ...]) -> None:
    """issue 38: a contradictory reason showed as monospace cut inside a word; it is
    text, whole up to its details, with the predicates it names."""
    from extension.outputs.failure_kinds import group_failures

    reason = ("no slot of the answer holds one value, so a replacement would not contradict "
              "it: education.education.institution on an n-ary fact the question does not pin")
    kinds = group_failures([{"qid": "q1", "stage": "contradictory", "reason": reason}])
    stats = {**stats_of(samples), "failures_by_kind": [k.to_json() for k in kinds]}
    summary = replace(summarize_samples(report[0] / "samples.jsonl"), examples={})
    text = render_report(summary, stats)
    row = text[text.index('<tr data-stage="contradictory"'):]
    row = row[:row.index("</tr>")]
    assert ('<span class="prose">no slot of the answer holds one value, so a replacement '
            "would not contradict it</span>") in row
    assert "<code>education.education.institution</code> 1" in row
    assert "What to do: the question&#x27;s subgraph allows no contradictory edit" in row


def test_the_caption_names_the_colour_drawn(report: tuple[Path, str]) -> None:
    """issue 38: the caption said "dashed red" for the orange-red removed triples."""
    assert hue_name(DELETED_COLOUR) == "orange-red"
    assert hue_name(REPLACEMENT_COLOUR) == "orange"
    assert (hue_name("#ff0000"), hue_name("#0072B2"), hue_name("#999999")) == \
        ("red", "blue", "grey")
    captions = re.findall(r"<figcaption>([^<]*dashed[^<]*)</figcaption>", report[1])
    assert captions and all("dashed orange-red:" in c for c in captions)
    assert "dashed red" not in report[1]


def test_a_label_without_samples_is_flagged_in_red(report: tuple[Path, str],
                                                   samples: tuple[BenchmarkSample, ...],
                                                   tmp_path: Path) -> None:
    kept = [s for s in samples if s.label != "contradictory"]
    text = write_report(tmp_path, write_benchmark(tmp_path, kept), stats_of(kept)
                        ).read_text("utf-8")
    page = Page(text)
    zero_rows = [a for tag, a in page.tags if tag == "tr" and "zero" in (a.get("class") or "")]
    assert {a["data-label"] for a in zero_rows} == {"contradictory"}
    alert = [a for tag, a in page.tags if tag == "p" and "alert" in (a.get("class") or "")]
    assert [a["data-labels"] for a in alert] == ["contradictory"]
    assert re.search(r"tr\.zero[^{]*\{[^}]*color:#b00020", text)
    assert "alert" not in report[1].split("</style>")[1]   # all four labels: no alert


def test_shares_are_shown_beside_caqa_table5(report: tuple[Path, str],
                                             samples: tuple[BenchmarkSample, ...]) -> None:
    from extension.outputs.caqa_table5 import CAQA_TABLE5_SAMPLES, CAQA_TABLE5_TOTALS

    page = Page(report[1])
    rows = {(a["data-group"], a["data-name"]): a["data-flagged"] for tag, a in page.tags
            if tag == "tr" and a.get("data-group")}
    assert set(rows) == {("label", lb) for lb in LABELS} | {
        ("complexity", c) for c in COMPLEXITIES}
    text = " ".join(" ".join(page.text).split())
    for label in LABELS:
        ours = 100 * sum(s.label == label for s in samples) / len(samples)
        caqa = 100 * CAQA_TABLE5_TOTALS["label"][label] / CAQA_TABLE5_SAMPLES
        assert f"label {label} {sum(s.label == label for s in samples)} {ours:.1f}% " \
               f"{caqa:.1f}% {ours - caqa:+.1f}" in text
        assert rows[("label", label)] == str(abs(ours - caqa) > 5).lower()
