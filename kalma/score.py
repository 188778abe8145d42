"""The use case behind ``kgbench kalma score``: cited answers scored against KaLMA entries
(Li et al., §4.1-4.4).

Reads the entries and the answers, checks that every answer belongs to an entry, asks the
NLI model once for every distinct (premise, hypothesis) pair the metrics need
(alignment's sentence-citation pairs and [NA]'s sentence-knowledge pairs together,
deduplicated, in token-budget batches), and computes :mod:`kalma.metrics` from the
decisions. With ``geval``, an LLM rates the answers' text (:mod:`kalma.geval`).

Under ``--protocol kgbench`` an entry without an answer is scored as an empty answer
(its minimum knowledge set counts against recall); under ``--protocol released`` it is
skipped as the released scripts skip an empty answer; either way ``notes`` names it. An
answer whose id is no entry's is an error naming the answers file's line: scores of
answers to other entries would be silently wrong. Every report records its protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from kalma import released
from kalma.citations import ParsedAnswer, read_answers
from kalma.entry import KalmaEntry, entries_file, read_entries
from kalma.errors import KalmaError
from kalma.geval import GevalItem, GevalPrompts, GevalScores, geval_scores, knowledge_text
from kalma.metrics import (
    CitationScores,
    EntailmentTable,
    alignment,
    alignment_decisions,
    alignment_macro,
    alignment_pairs,
    citation_scores,
    entailed,
    na_decisions,
    na_pairs,
    na_scores,
)
from llm.cache import ResponseCache
from llm.client import ChatClient
from llm.endpoint import ChatEndpoint
from scoring.protocol import PROTOCOL_KEY, ProtocolName, json_safe

if TYPE_CHECKING:
    from scoring.runtime import NliScorer

__all__ = ["KalmaScoreReport", "REPORT_KEYS", "ScoreProgress", "needed_pairs",
           "score_answers"]

REPORT_KEYS = ("protocol", "correctness", "correctness_macro", "precision_micro",
               "recall_micro", "f1_micro", "precision_macro", "recall_macro", "f1_macro",
               "alignment", "alignment_macro", "na_precision", "na_recall", "n_entries",
               "n_scored", "n_citations", "unparsed_citations")
"""The keys of :meth:`KalmaScoreReport.to_json`, in order (plus ``geval`` when asked)."""

ScoreProgress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: stage ``"nli"`` (pairs) or ``"geval"`` (requests)."""


@dataclass
class KalmaScoreReport:
    """What ``kalma score`` measured, under ``protocol``. ``alignment``,
    ``na_precision`` and ``na_recall`` are ``None`` without an NLI model. Under
    ``kgbench`` every ratio is ``None`` where its denominator is empty (see
    :mod:`kalma.metrics`); under ``released`` it is NaN there (see
    :mod:`kalma.released`), written as JSON ``null``. ``n_scored``: the answers the
    citation metrics count (``released`` skips entries without an answer or without
    knowledge); ``unparsed_citations`` is kgbench's reading's count (``None`` under
    ``released``, whose reading has no such notion)."""

    citations: CitationScores
    alignment: float | None
    na_precision: float | None
    na_recall: float | None
    n_entries: int
    unparsed_citations: int | None
    alignment_macro: float | None = None
    protocol: ProtocolName = "kgbench"
    n_scored: int = 0
    geval: GevalScores | None = None
    missing_answers: list[str] = field(default_factory=list)
    nli_pairs: int = 0
    runtime: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        c = self.citations
        doc: dict[str, Any] = {
            PROTOCOL_KEY: self.protocol, "correctness": c.correctness,
            "correctness_macro": c.correctness_macro, "precision_micro": c.precision_micro,
            "recall_micro": c.recall_micro, "f1_micro": c.f1_micro,
            "precision_macro": c.precision_macro, "recall_macro": c.recall_macro,
            "f1_macro": c.f1_macro, "alignment": self.alignment,
            "alignment_macro": self.alignment_macro,
            "na_precision": self.na_precision, "na_recall": self.na_recall,
            "n_entries": self.n_entries, "n_scored": self.n_scored,
            "n_citations": c.citations, "unparsed_citations": self.unparsed_citations}
        if self.geval is not None:
            doc["geval"] = self.geval.to_json()
        return json_safe(doc)


def needed_pairs(scored: list[tuple[KalmaEntry, ParsedAnswer | None]]) -> list[tuple[str, str]]:
    """Every distinct (premise, hypothesis) pair the NLI metrics ask, in first-seen
    order; pairs with an empty premise are decided without the model (no text entails
    nothing)."""
    pairs: dict[tuple[str, str], None] = {}
    for entry, answer in scored:
        if answer is not None:
            pairs.update(dict.fromkeys(alignment_pairs(answer, entry)))
        pairs.update(dict.fromkeys(na_pairs(answer, entry)))
    return [pair for pair in pairs if pair[0]]


def score_answers(entries_path: Path, answers_path: Path, *, nli_dir: Path | None = None,
                  device: Literal["auto", "cpu", "cuda"] = "auto",
                  batch_tokens: int = 16384, threads: int | None = None,
                  llm: ChatEndpoint | None = None, geval: bool = False,
                  llm_cache: Path = Path(".kgbench-llm-cache"), llm_parallel: int = 4,
                  geval_prompts: GevalPrompts | None = None,
                  question: Literal["general", "specific"] = "specific",
                  protocol: ProtocolName = "kgbench",
                  progress: ScoreProgress | None = None) -> KalmaScoreReport:
    """Score the answers of ``answers_path`` on the entries of ``entries_path`` (a file,
    or a directory holding ``entries.jsonl``). ``nli_dir``: an exported NLI model
    (``kgbench model export ... --task nli``) for alignment and [NA]; ``geval``: rate
    the text with ``llm`` (G-Eval, with ``geval_prompts``, default kgbench's own),
    against the entry's ``question`` (the paper's main experiments answer the specific
    one, §5). ``protocol``: kgbench's definitions (:mod:`kalma.metrics`) or the released
    scripts' (:mod:`kalma.released`, :mod:`kalma.geval_released`)."""
    if geval and llm is None:
        raise KalmaError("G-Eval needs an LLM endpoint", "add --llm-url URL --llm-model NAME")
    entries = list(read_entries(entries_path))
    if not entries:
        raise KalmaError(f"{entries_file(entries_path)}: no entries",
                         "give the entries the answers were written for")
    answers = read_answers(answers_path)
    known = {e.id for e in entries}
    for answer in sorted(answers.values(), key=lambda a: a.line):
        if answer.id not in known:
            raise KalmaError(f"{answers_path}:{answer.line}: answer id {answer.id!r} is not an "
                             f"entry of {entries_file(entries_path)}",
                             "give the entries file the answers were written for, or drop "
                             "the answers to other entries")
    scored = [(entry, answers.get(entry.id)) for entry in entries]
    missing = [entry.id for entry, answer in scored if answer is None]
    if protocol == "released":
        report, texts = _released_report(scored)
    else:
        report = KalmaScoreReport(
            citations=citation_scores(answers, entries), alignment=None, na_precision=None,
            na_recall=None, n_entries=len(entries),
            unparsed_citations=sum(a.unparsed for a in answers.values()),
            n_scored=len(entries))
    report.missing_answers = missing
    if missing:
        fate = ("skipped, as the released scripts skip an empty answer" if protocol == "released"
                else "scored as empty answers")
        report.notes.append(f"{len(missing):,} of {len(entries):,} entries have no answer "
                            f"({fate}), e.g. {missing[0]!r}")
    if nli_dir is not None:
        from scoring.runtime import NliScorer  # onnxruntime: only when a model is given

        scorer = NliScorer.open(nli_dir, device=device, threads=threads,
                                batch_tokens=batch_tokens)
        if protocol == "released":
            pairs = released.needed_pairs(texts)
        else:
            pairs = needed_pairs(scored)
        table = _decide(scorer, pairs, progress)
        if protocol == "released":
            _released_nli(report, texts, table)
        else:
            _kgbench_nli(report, scored, table)
        report.nli_pairs = len(pairs)
        report.runtime = scorer.runtime.to_json()
        if scorer.truncated_hypotheses:
            report.notes.append(f"{scorer.truncated_hypotheses:,} NLI hypotheses were longer "
                                "than the model's max length and cut")
    if geval:
        assert llm is not None
        _geval(report, scored, llm, llm_cache=llm_cache, llm_parallel=llm_parallel,
               prompts=geval_prompts, question=question, progress=progress)
    return report


def _released_report(scored: list[tuple[KalmaEntry, ParsedAnswer | None]]
                     ) -> tuple[KalmaScoreReport, list[tuple[KalmaEntry, str | None]]]:
    """The citation numbers of the released scripts, and the answer texts they read
    (``None``: no answer; an empty text is an empty CSV cell, so no answer either)."""
    texts = [(entry, (released.answer_text(answer) or None) if answer is not None else None)
             for entry, answer in scored]
    r = released.citation_scores(texts)
    citations = CitationScores(
        correctness=r.correctness_micro, correctness_macro=r.correctness_macro,
        precision_micro=r.precision_micro, recall_micro=r.recall_micro,
        f1_micro=r.f1_micro, precision_macro=r.precision_macro,
        recall_macro=r.recall_macro, f1_macro=r.f1_macro, citations=r.citations)
    report = KalmaScoreReport(citations=citations, alignment=None, na_precision=None,
                              na_recall=None, n_entries=len(scored), unparsed_citations=None,
                              protocol="released", n_scored=r.answers)
    return report, texts


def _decide(scorer: NliScorer, pairs: list[tuple[str, str]],
            progress: ScoreProgress | None) -> EntailmentTable:
    """The NLI decision (:func:`entailed`) of every pair, in one batched run."""
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress("nli", done, len(pairs))

    if progress is not None:
        progress("nli", 0, len(pairs))
    results = scorer.score([p for p, _ in pairs], [h for _, h in pairs], progress=advance)
    return {pair: entailed(r) for pair, r in zip(pairs, results, strict=True)}


def _released_nli(report: KalmaScoreReport, texts: list[tuple[KalmaEntry, str | None]],
                  table: EntailmentTable) -> None:
    entails = released.table_entails(table)
    report.alignment, report.alignment_macro = released.alignment_scores(
        released.alignment_pairs(texts), entails)
    items = released.na_items(texts)
    report.na_precision, report.na_recall = released.na_scores(items, entails)
    if len(texts) > released.ALIGNMENT_ANSWERS:
        report.notes.append(f"alignment: the first {released.ALIGNMENT_ANSWERS} entries only, "
                            "as the released script reads")
    if not items:
        report.notes.append("no answer has an [NA] sentence: [NA] precision and recall are "
                            "NaN (null)")


def _kgbench_nli(report: KalmaScoreReport,
                 scored: list[tuple[KalmaEntry, ParsedAnswer | None]],
                 table: EntailmentTable) -> None:
    per_answer: list[list[bool]] = []
    na_hits: list[bool] = []
    absent_hits: list[bool] = []
    for entry, answer in scored:
        if answer is not None:
            per_answer.append(alignment_decisions(answer, entry, table))
        precision, recall = na_decisions(answer, entry, table)
        na_hits.extend(precision)
        absent_hits.extend(recall)
    report.alignment = alignment([d for decisions in per_answer for d in decisions])
    report.alignment_macro = alignment_macro(per_answer)
    report.na_precision, report.na_recall = na_scores(na_hits, absent_hits)
    if not na_hits:
        report.notes.append("no [NA] sentence in the answers: [NA] precision is null")
    if not absent_hits:
        report.notes.append("no entry has absent knowledge (use the incompetence-K.jsonl "
                            "entries of `kalma generate --incompetence`): [NA] recall is null")


def _geval(report: KalmaScoreReport, scored: list[tuple[KalmaEntry, ParsedAnswer | None]],
           llm: ChatEndpoint, *, llm_cache: Path, llm_parallel: int,
           prompts: GevalPrompts | None, question: Literal["general", "specific"],
           progress: ScoreProgress | None) -> None:
    if report.protocol == "released":
        from kalma.geval_released import RELEASED_GEVAL_ANSWERS, released_items

        items = released_items([(entry, released.answer_text(answer) if answer is not None
                                 else None)
                                for entry, answer in scored], question)
        if len(scored) > RELEASED_GEVAL_ANSWERS:
            report.notes.append(f"G-Eval: the first {RELEASED_GEVAL_ANSWERS} entries with "
                                "knowledge only, as the released script rates")
    else:
        items = [GevalItem(entry.question_specific if question == "specific"
                           else entry.question_general,
                           answer.text() if answer is not None else "", knowledge_text(entry))
                 for entry, answer in scored]
    client = ChatClient(llm, ResponseCache(llm_cache))
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress("geval", done, 4 * len(items))

    report.geval = geval_scores(items, client, parallel=llm_parallel, prompts=prompts,
                                protocol=report.protocol, progress=advance)
    stats = client.stats
    report.notes.append(f"G-Eval: {stats.requests:,} LLM requests sent, "
                        f"{stats.cache_hits:,} replies from the cache in {llm_cache}")
    unparsed = sum(report.geval.unparsed.values())
    if unparsed:
        fate = ("scored 3, as the released script does" if report.protocol == "released"
                else "left out of the means")
        report.notes.append(f"G-Eval: {unparsed:,} replies gave no score from 1 to 5 "
                            f"({fate})")
