"""Export a generated benchmark to the formats attribution evaluators already read.

``kgbench generate`` writes ``DIR/samples.jsonl``, one
:class:`~extension.outputs.sample_schema.BenchmarkSample` per line. This module turns those
records into:

``caqa``
    The CSV of the CAQA repository (Hu et al. 2024, *Can LLMs Evaluate Complex
    Attribution in QA?*): columns ``query, answer, reference, label`` (read by
    its ``train.py``/``inference.py``) and then ``id``, the sample's id, so an
    evaluator's labels join back to the benchmark (``kgbench evaluate --predictions``);
    labels ``Support, Missing, Contradictory, Irrelevant`` — the four options its prompts offer (``prompts.json``). ``query`` is
    the (extended) question the answer answers, ``answer`` the answer statement alone
    (never the question again: the claim its prompts show is ``{query} {answer}``) and
    ``reference`` the citations, one per line as in CAQA's examples.
``attrscore``
    The same five columns with the three AttrScore labels (Yue et al. 2023,
    *Automatic Evaluation of Attribution by Large Language Models*):
    ``Attributable, Extrapolatory, Contradictory``. AttrScore §2 defines them (in our
    words): Attributable, the reference backs the claim completely; Extrapolatory, the
    reference holds too little to confirm the claim; Contradictory, the reference
    conflicts with the claim. Hence the default map: supportive → Attributable,
    contradictory → Contradictory, and both partially supportive (the reference lacks
    part of the support) and irrelevant (the reference says nothing about the claim) →
    Extrapolatory. Papers disagree on the last two — CAQA's own ``prompts.json`` reads
    AttrScore's Extrapolatory as *Irrelevant* — so the map is an option
    (:func:`resolve_label_map`).
``alce``
    A JSON list in the layout of ALCE's prompt files (Gao et al. 2023, *Enabling Large
    Language Models to Generate Text with Citations*, ``prompts/*_default.json``
    ``demos``): ``{"question", "answer", "docs": [{"title", "text"}]}``, one document per
    citation, the answer citing them with ALCE's ``[n]`` markers ("… Francis Ford
    Coppola [1][2]."), plus our ``id``, ``label``, ``complexity`` and ``split``.
``jsonl``
    A flat JSONL: ``id, question, question_extended, answer, citation, label,
    complexity, split`` (the text fields without the graph).

Every format takes a label map: each of our four labels goes to a label of the format,
or to ``"drop"`` (the sample is left out). Files are written to ``FILE.part`` and
renamed when complete (:mod:`extension.outputs.output_file`), so a failed export never leaves
a partial file under the real name.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from extension.core.labels import (
    DEFAULT_LABEL_MAPS,
    DROP,
    EXPORT_FORMATS,
    FORMAT_LABELS,
    LABELS,
    SPLIT_CHOICES,
    ExportFormat,
    Label,
    SplitChoice,
    label_key,
)
from extension.outputs.output_file import atomic_output, output_target
from extension.outputs.sample_schema import BenchmarkSample, CitationRecord

SAMPLES_FILE = "samples.jsonl"

CSV_COLUMNS = ("query", "answer", "reference", "label", "id")
"""The CAQA CSV header (also used for AttrScore), in this order: CAQA's four columns,
then the sample id (which a reader of the four ignores)."""
ALCE_FIELDS = ("question", "answer", "docs", "id", "label", "complexity", "split")
FLAT_FIELDS = ("id", "question", "question_extended", "answer", "citation", "label",
               "complexity", "split")


class ExportError(ValueError):
    """An export that cannot be done as asked: ``str(error)`` says what is wrong,
    ``hint`` (when set) what to do about it."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class SamplesFileError(ExportError):
    """A line of a samples file that is not a :class:`BenchmarkSample`: the message
    starts with ``FILE:LINE:`` and gives the reason."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: not a benchmark sample ({reason})",
                         "regenerate the benchmark with `kgbench generate`, or fix or "
                         "remove that line")
        self.path = path
        self.line = line
        self.reason = reason


# ----------------------------------------------------------------------------------
# Reading samples.jsonl
# ----------------------------------------------------------------------------------


def find_samples_file(directory: Path) -> Path:
    """``directory/samples.jsonl`` (``directory`` may also be that file itself, or a
    copy of it under another name whose first line is a benchmark sample).

    Raises :class:`ExportError` when there is no such file, saying how to create it:
    a folder without ``samples.jsonl``, or a file that is not one (an empty file, a
    CSV), is no benchmark to export, not an empty one."""
    hint = ("`kgbench generate --questions FILE --out DIR` writes DIR/samples.jsonl; "
            "pass that DIR")
    if not directory.exists():
        raise ExportError(f"{directory}: no such directory: nothing to export", hint)
    if directory.is_file() and (directory.name == SAMPLES_FILE or _starts_with_a_sample(directory)):
        return directory
    path = directory / SAMPLES_FILE
    if not path.is_file():
        raise ExportError(f"{directory} is not a benchmark directory (no {SAMPLES_FILE}): "
                          "give the --out of a kgbench generate run", hint)
    return path


def _starts_with_a_sample(path: Path) -> bool:
    """Whether the first non-blank line of ``path`` is a :class:`BenchmarkSample`."""
    try:
        with path.open("rb") as lines:
            for line in lines:
                if line.strip():
                    BenchmarkSample.model_validate_json(line)
                    return True
    except (OSError, ValidationError):
        return False
    return False


def _validation_reason(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False)
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"])
    reason = f"{where}: {first['msg']}" if where else str(first["msg"])
    if len(errors) > 1:
        reason += f"; and {len(errors) - 1} more problem(s)"
    return reason


def iter_benchmark_samples(path: Path) -> Iterator[BenchmarkSample]:
    """The samples of the JSONL file ``path``, each line validated as a
    :class:`BenchmarkSample` (blank lines are skipped).

    Streams the file. Raises :class:`SamplesFileError` (``path:line: reason``) at the
    first line that is not valid JSON, not UTF-8, or not a benchmark sample."""
    with path.open("rb") as lines:   # bytes: pydantic parses them directly, and reports bad UTF-8
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                yield BenchmarkSample.model_validate_json(line)
            except ValidationError as exc:
                raise SamplesFileError(path, number, _validation_reason(exc)) from None


# ----------------------------------------------------------------------------------
# Label maps
# ----------------------------------------------------------------------------------


def parse_label_map(pairs: Iterable[str], *, option: str = "--label-map",
                    example: str = f"partially_supportive=Contradictory or irrelevant={DROP}"
                    ) -> dict[str, str]:
    """``["partially_supportive=Contradictory", ...]`` -> ``{"partially_supportive":
    "Contradictory", ...}`` (the CLI's repeatable ``--label-map K=V``, or another
    ``option`` of that form; a later pair overrides an earlier one). Values are checked
    by :func:`resolve_label_map` (or the caller).

    Raises :class:`ExportError` for a pair without ``=`` or with an empty side, naming
    ``option`` and showing ``example``."""
    parsed: dict[str, str] = {}
    for pair in pairs:
        source, sep, target = pair.partition("=")
        if not sep or not source.strip() or not target.strip():
            raise ExportError(f"{option} {pair!r} is not LABEL=TARGET",
                              f"write it like {example}")
        parsed[source.strip()] = target.strip()
    return parsed


def resolve_label_map(fmt: ExportFormat, overrides: Mapping[str, str] | None = None
                      ) -> dict[Label, str | None]:
    """The label map of an export: :data:`DEFAULT_LABEL_MAPS` ``[fmt]`` with
    ``overrides`` applied; ``None`` marks a label whose samples are dropped.

    Keys of ``overrides`` are our labels (:data:`extension.core.samples.LABELS`), values a
    label of :data:`FORMAT_LABELS` ``[fmt]`` or :data:`DROP`; both are matched without
    regard to case, ``-`` or spaces, and the format's spelling is used. Raises
    :class:`ExportError` for an unknown label on either side."""
    if fmt not in EXPORT_FORMATS:
        raise ExportError(f"unknown export format {fmt!r}",
                          f"use one of {', '.join(EXPORT_FORMATS)}")
    targets = {label_key(t): t for t in FORMAT_LABELS[fmt]}
    resolved: dict[Label, str | None] = dict(DEFAULT_LABEL_MAPS[fmt])
    ours = {label_key(label): label for label in LABELS}
    for source, target in (overrides or {}).items():
        label = ours.get(label_key(source))
        if label is None:
            raise ExportError(f"--label-map: {source!r} is not a kgbench label",
                              f"the labels to map are {', '.join(LABELS)}")
        if label_key(target) == DROP:
            resolved[label] = None
        elif label_key(target) in targets:
            resolved[label] = targets[label_key(target)]
        else:
            raise ExportError(
                f"--label-map: {target!r} is not a {fmt} label",
                f"{fmt} labels are {', '.join(FORMAT_LABELS[fmt])}; map to {DROP} to "
                "leave those samples out")
    return resolved


# ----------------------------------------------------------------------------------
# Converters: one sample and its output label -> one record of the format
# ----------------------------------------------------------------------------------


def reference_lines(sample: BenchmarkSample) -> str:
    """The citations one per line, unnumbered, as the references of CAQA's examples
    (``CAQA-Benchmark_prompts.json``: "Reference: \nDudley is located in the West
    Midlands.\nWednesfield is …")."""
    return "\n".join(c.text for c in sample.citations)


def claim_reference_row(sample: BenchmarkSample, label: str) -> dict[str, str]:
    """The CAQA / AttrScore CSV row of ``sample``: ``{"query", "answer", "reference",
    "label"}`` (see the module docstring): the extended question q̃, the answer
    statement ã (which never quotes the question), the citations one per line
    (:func:`reference_lines`) and ``label`` as given."""
    return {"query": sample.question_extended, "answer": sample.answer,
            "reference": reference_lines(sample), "label": label}


def citation_title(citation: CitationRecord, index: int, cvt_nodes: Iterable[str] = ()) -> str:
    """The title of an ALCE document made of ``citation`` (the ``index``-th, from 1):
    the name of the entity the citation is about — the named, non-CVT entity in most of
    its triples, as subject or object (on a tie the first met, subjects before objects
    within a triple) — or ``"Citation k"`` when no end of its triples has a name. So
    "Jaws was directed by Steven Spielberg. Jurassic Park was directed by Steven
    Spielberg." is titled "Steven Spielberg"."""
    skip = set(cvt_nodes)
    ends: Counter[str] = Counter()
    names: dict[str, str] = {}
    for t in citation.triples:
        for node, name in ((t.s, t.s_name), (None if t.literal else t.o, t.o_name)):
            if node is not None and name and node not in skip:
                ends[node] += 1
                names.setdefault(node, name)
    if not ends:
        return f"Citation {index}"
    return names[ends.most_common(1)[0][0]]   # most_common keeps first-met order on ties


def cited_answer(answer: str, documents: int) -> str:
    """``answer`` citing documents 1 to ``documents`` as ALCE's answers do: the markers
    ``[1][2]`` before the sentence's final punctuation ("… Coppola [1][2]."), or at
    its end when it has none; unchanged when there is no document."""
    if documents < 1:
        return answer
    markers = "".join(f"[{k}]" for k in range(1, documents + 1))
    text = answer.rstrip()
    body = text.rstrip(".!?")
    return f"{body} {markers}{text[len(body):]}" if body else f"{text} {markers}"


def alce_record(sample: BenchmarkSample, label: str) -> dict[str, Any]:
    """The ALCE-style record of ``sample``: ``question`` (q̃), ``answer`` (ã citing
    every document, :func:`cited_answer`), ``docs`` (one ``{"title", "text"}`` per
    citation, titled by :func:`citation_title`) and our ``id``, ``label`` (as given),
    ``complexity`` and ``split``."""
    docs = [{"title": citation_title(c, k, sample.cvt_nodes), "text": c.text}
            for k, c in enumerate(sample.citations, 1)]
    return {"question": sample.question_extended,
            "answer": cited_answer(sample.answer, len(docs)), "docs": docs,
            "id": sample.id, "label": label, "complexity": sample.complexity,
            "split": sample.split}


def flat_record(sample: BenchmarkSample, label: str) -> dict[str, Any]:
    """The flat JSONL record of ``sample``: the fields of :data:`FLAT_FIELDS`, with
    ``question`` the original question q and ``label`` as given."""
    return {"id": sample.id, "question": sample.question,
            "question_extended": sample.question_extended, "answer": sample.answer,
            "citation": sample.citation, "label": label, "complexity": sample.complexity,
            "split": sample.split}


def export_record(sample: BenchmarkSample, fmt: ExportFormat, label: str) -> dict[str, Any]:
    """``sample`` as one record of ``fmt`` carrying the output ``label``."""
    if fmt in ("caqa", "attrscore"):
        return {**claim_reference_row(sample, label), "id": sample.id}
    if fmt == "alce":
        return alce_record(sample, label)
    return flat_record(sample, label)


# ----------------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What an export did: the samples read, those written per output label (in the
    format's label order), those left out by the label map (per our label) and by
    ``split``, and the label map used (``None``: dropped)."""

    format: ExportFormat
    source: Path
    output: Path
    split: SplitChoice
    label_map: Mapping[Label, str | None]
    read: int
    written: int
    by_label: Mapping[str, int]
    dropped: Mapping[Label, int] = field(default_factory=dict)
    other_split: int = 0

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON-ready dict (``kgbench export --json``)."""
        return {"format": self.format, "source": str(self.source), "output": str(self.output),
                "split": self.split,
                "label_map": {k: (DROP if v is None else v) for k, v in self.label_map.items()},
                "read": self.read, "written": self.written, "by_label": dict(self.by_label),
                "dropped": dict(self.dropped), "other_split": self.other_split}


class _RecordSink:
    """Writes records of one format to an open text file."""

    def __init__(self, fmt: ExportFormat, stream: IO[str]) -> None:
        self.fmt = fmt
        self.stream = stream
        self.count = 0
        self.csv: Any = None
        if fmt in ("caqa", "attrscore"):
            # QUOTE_MINIMAL with the default dialect: RFC 4180 quoting of commas,
            # quotes and newlines, which pandas and the csv module both read back.
            self.csv = csv.DictWriter(stream, fieldnames=CSV_COLUMNS)
            self.csv.writeheader()
        elif fmt == "alce":
            stream.write("[")

    def write(self, record: Mapping[str, Any]) -> None:
        if self.csv is not None:
            self.csv.writerow(record)
        elif self.fmt == "alce":
            # One record per line inside the list: streamable, diffable, still one JSON doc.
            self.stream.write(("\n" if self.count == 0 else ",\n")
                              + json.dumps(record, ensure_ascii=False))
        else:
            self.stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.count += 1

    def close(self) -> None:
        if self.fmt == "alce":
            self.stream.write("\n]\n" if self.count else "]\n")


def _check_output(output: Path, source: Path | None) -> None:
    output_target(output)   # a directory, a device, a FIFO: OutputPathError
    if source is not None and output.exists() and output.resolve() == source.resolve():
        raise ExportError(f"{output} is the samples file being exported",
                          "choose another --out; exporting over the benchmark would "
                          "replace it")


def export_samples(samples: Iterable[BenchmarkSample], output: Path, fmt: ExportFormat, *,
                   split: SplitChoice = "all",
                   label_map: Mapping[str, str] | None = None,
                   source: Path | None = None) -> ExportReport:
    """Write ``samples`` to ``output`` in ``fmt`` and report the counts.

    ``split`` keeps only that split's samples (``"all"`` keeps every one);
    ``label_map`` overrides the format's default map (:func:`resolve_label_map`; a label
    mapped to :data:`DROP` is left out). ``source`` names where the samples come from
    (for the report, and so that ``output`` cannot overwrite it). The file is written
    through :func:`~extension.outputs.output_file.atomic_output`: to ``output.part``, renamed
    when complete; on any error (including one raised while iterating ``samples``) the
    ``.part`` file is removed and ``output`` is untouched. Raises :class:`ExportError`
    for a bad format, split or label map, or an ``output`` that is the samples file;
    :class:`~extension.outputs.output_file.OutputPathError` for an ``output`` that is not a
    file (a directory, a device)."""
    resolved = resolve_label_map(fmt, label_map)
    if split not in SPLIT_CHOICES:
        raise ExportError(f"unknown split {split!r}", f"use one of {', '.join(SPLIT_CHOICES)}")
    _check_output(output, source)
    read = 0
    other_split = 0
    written: Counter[str] = Counter()
    dropped: Counter[Label] = Counter()
    # newline="": the csv module writes its own \r\n line ends; JSON has no raw newlines.
    with atomic_output(output, newline="") as stream:
        sink = _RecordSink(fmt, stream)
        for sample in samples:
            read += 1
            if split != "all" and sample.split != split:
                other_split += 1
                continue
            target = resolved[sample.label]
            if target is None:
                dropped[sample.label] += 1
                continue
            sink.write(export_record(sample, fmt, target))
            written[target] += 1
        sink.close()
    order = [t for t in FORMAT_LABELS[fmt] if t in set(resolved.values())]
    return ExportReport(
        format=fmt, source=source or Path("-"), output=output, split=split,
        label_map=resolved, read=read, written=sum(written.values()),
        by_label={t: written.get(t, 0) for t in order},
        dropped={label: dropped[label] for label in LABELS if dropped[label]},
        other_split=other_split)


def export_benchmark(directory: Path, output: Path, fmt: ExportFormat, *,
                     split: SplitChoice = "all",
                     label_map: Mapping[str, str] | None = None) -> ExportReport:
    """Export the benchmark ``kgbench generate`` wrote to ``directory`` (its
    ``samples.jsonl``, streamed and validated line by line) to ``output``; see
    :func:`export_samples`. Raises :class:`ExportError` when there is no samples file
    and :class:`SamplesFileError` at a bad line (then nothing is written)."""
    path = find_samples_file(directory)
    resolve_label_map(fmt, label_map)   # a bad option fails before the file is read
    return export_samples(iter_benchmark_samples(path), output, fmt, split=split,
                          label_map=label_map, source=path)

