"""The steps of ``kgbench demo`` that read or build something, printing nothing: the
command shows what they return (:mod:`kgbench.cli.demo`).

The tour builds the bundled film KG into a store, picks what to show from it (names
shared by several entities, a film, a CVT next to it, a path), parses and grounds the
bundled questions, and generates two benchmarks: one from those questions and one from
seed questions sampled from the KG's people.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kgbench.demo import DEMO_KG, DEMO_QUESTIONS
from kgstore import Entity, Fact, Literal, Store, Subgraph, open_store

if TYPE_CHECKING:
    from extension.inputs.questions import ParsedQuestion
    from extension.inputs.seed_sampler import SeedSample
    from extension.outputs.sample_schema import BenchmarkSample
    from extension.run.generate import GenerateResult
    from kgstore.store import ProgressCallback
    from loaders.into_store import StoreLoad
    from loaders.pipeline import LoadReport

# The engine is imported inside the steps that run it (as in the commands), so that
# registering `kgbench demo` keeps `kgbench --help` and the other commands quick.

__all__ = ["DEMO_CYPHER", "DEMO_DOMAIN", "DEMO_DOMAIN_N", "DEMO_ENTITY_FACTS", "DEMO_PATHS",
           "DEMO_SEED", "DEMO_TEST_FRACTION", "SHARED_NAME_CANDIDATES", "DemoQuestion",
           "QuestionFiles", "write_question_files",
           "build_demo_store", "demo_questions", "example_samples", "featured_entity",
           "first_cvt_fact", "generate_demo_args", "generate_demo_benchmark",
           "generate_domain_args", "generate_domain_benchmark", "path_target",
           "shared_names"]

SHARED_NAME_CANDIDATES = ("Titanic", "Paris", "John Williams", "Casablanca", "Alien")
"""Names the demo KG gives to several entities, tried in this order."""
DEMO_CYPHER = (
    "MATCH (f:Entity)-[r:Fact]->(d:Entity) WHERE r.predicate = 'film.film.directed_by' "
    "RETURN d.name AS director, count(*) AS films ORDER BY films DESC, director LIMIT 5"
)
DEMO_SEED = 3
DEMO_TEST_FRACTION = 0.3
"""The demo benchmark's share of questions in the test split (a few of its questions
land in each split)."""
DEMO_DOMAIN = "people.person"
DEMO_DOMAIN_N = 30
DEMO_ENTITY_FACTS = 8
"""Facts shown per direction in the tour's entity step (``kgbench entity --limit``)."""
DEMO_PATHS = 4
"""Paths listed in the tour's paths step (``kgbench paths --limit``)."""


def generate_demo_args(store: str, questions: str, out_dir: str) -> list[str]:
    """The ``kgbench generate`` arguments equivalent to :func:`generate_demo_benchmark`
    (every option it sets, so the printed command reproduces its files)."""
    return ["generate", "--store", store, "--questions", questions, "--format", "jsonl",
            "--strict", "--out", out_dir, "--seed", str(DEMO_SEED), "--test-fraction",
            str(DEMO_TEST_FRACTION), "--force"]


def generate_domain_args(store: str, out_dir: str) -> list[str]:
    """The ``kgbench generate`` arguments equivalent to
    :func:`generate_domain_benchmark`."""
    return ["generate", "--store", store, "--domain", DEMO_DOMAIN, "--n", str(DEMO_DOMAIN_N),
            "--out", out_dir, "--seed", str(DEMO_SEED), "--force"]


def build_demo_store(location: str) -> StoreLoad:
    """Load the bundled demo KG into a fresh store at ``location`` (replacing one)."""
    from loaders.into_store import load_into_store
    from loaders.triples import load_triples

    def load(store: Store, progress: ProgressCallback | None) -> LoadReport:
        return load_triples(store, [DEMO_KG], names=None, strict=False, progress=progress)

    return load_into_store(location, [DEMO_KG], load, force=True)


def shared_names(store: Store, want: int = 2) -> list[tuple[str, list[Entity]]]:
    """The first ``want`` of :data:`SHARED_NAME_CANDIDATES` that name several entities,
    with those entities."""
    shared: list[tuple[str, list[Entity]]] = []
    for name in SHARED_NAME_CANDIDATES:
        matches = store.find_by_name(name)
        if len(matches) > 1:
            shared.append((name, matches))
        if len(shared) == want:
            break
    return shared


def featured_entity(store: Store, shared: list[tuple[str, list[Entity]]]) -> Entity | None:
    """The entity the tour looks at: a film among the namesakes, else any namesake,
    else a sampled entity; ``None`` for an empty store."""
    pool = [e for _, ms in shared for e in ms]
    featured = next((e for e in pool if "film.film" in e.types), None) or (
        pool[0] if pool else None)
    if featured is None:
        sample = store.sample_entities(1, seed=0)
        featured = sample[0] if sample else None
    return featured


def first_cvt_fact(store: Store, e: Entity) -> Fact | None:
    """A fact linking ``e`` to a CVT (the one with the smallest id), if any."""
    facts = store.facts_out(e.id, limit=200) + store.facts_in(e.id, limit=200)
    ends = {f.object if f.subject == e.id else f.subject for f in facts
            if isinstance(f.object, str)}
    found = store.entities(ends)
    cvts = sorted(i for i, x in found.items() if x.is_cvt)
    if not cvts:
        return None
    return next(f for f in facts if cvts[0] in (f.subject, f.object))


def cvt_centre(store: Store, featured: Entity) -> tuple[Entity, Fact | None]:
    """``featured`` with a fact to a CVT, else the first of 40 sampled entities that
    has one (``featured`` and ``None`` when none has)."""
    fact = first_cvt_fact(store, featured)
    if fact is None:
        for cand in store.sample_entities(40, seed=1):
            fact = first_cvt_fact(store, cand)
            if fact is not None:
                return cand, fact
    return featured, fact


def path_target(store: Store, sub: Subgraph, center: str) -> str | None:
    """Another film by the same director, else a named non-CVT entity two hops away
    (films and people first)."""
    for d in store.facts_out(center, predicate="film.film.directed_by", limit=5):
        if isinstance(d.object, str):
            films = store.facts_in(d.object, predicate="film.film.directed_by", limit=20)
            others = sorted(f.subject for f in films if f.subject != center)
            if others:
                return others[0]
    far = sorted(i for i, h in sub.hops.items()
                 if h == 2 and i in sub.entities and not sub.entities[i].is_cvt
                 and sub.entities[i].name and i != center)
    for prefer in ("film.film", "people.person"):
        for i in far:
            if prefer in sub.entities[i].types:
                return i
    return far[0] if far else None


@dataclass(frozen=True, slots=True)
class DemoQuestion:
    """One bundled question, parsed and (when supported) grounded: ``answers`` found
    in the store, the grounding ``outcome`` and the F1 against the gold answers."""

    parsed: ParsedQuestion
    answers: list[str | Literal]
    outcome: str | None
    f1: float | None

    @property
    def grounded(self) -> bool:
        return self.f1 is not None


def demo_questions(store: Store) -> list[DemoQuestion]:
    """The bundled questions parsed into query graphs, classified and grounded."""
    from extension.core.grounding import Grounder, score_answers
    from extension.inputs.questions import parse_question
    from loaders.kgqa import read_kgqa_jsonl

    grounder = Grounder(store)
    rows: list[DemoQuestion] = []
    for question in read_kgqa_jsonl(DEMO_QUESTIONS, strict=True):
        parsed = parse_question(question, cvt_types=store.cvt_types() or None)
        if parsed.query is None or parsed.shape == "unsupported":
            rows.append(DemoQuestion(parsed, [], None, None))
            continue
        grounding = grounder.ground(parsed.query)
        score = score_answers(grounding.answers, [(a.kind, a.value) for a in parsed.answers])
        rows.append(DemoQuestion(parsed, list(grounding.answers), grounding.outcome, score.f1))
    return rows


DEMO_QUESTIONS_DIR = "demo-questions"
"""Beside the demo store: the tour's parsed and grounded questions."""


@dataclass(frozen=True, slots=True)
class QuestionFiles:
    """Where the tour's question step writes: what ``kgbench questions parse QUESTIONS
    --out PARSED`` and ``kgbench questions ground PARSED --out GROUNDED`` write (each
    with its summary, ``coverage.json`` and ``grounding.json``, beside it)."""

    parsed: Path
    grounded: Path

    @classmethod
    def under(cls, directory: Path) -> QuestionFiles:
        folder = directory / DEMO_QUESTIONS_DIR
        return cls(folder / "parsed.jsonl", folder / "grounded.jsonl")


def write_question_files(store: Store, location: str, files: QuestionFiles,
                         questions: Path = DEMO_QUESTIONS) -> None:
    """Parse ``questions`` and ground them in ``store`` (at ``location``) into
    ``files``, as the two commands do (the store's CVT types, its classes)."""
    from extension.inputs.question_grounding import ground_parsed_file
    from extension.inputs.question_parsing import parse_questions_file

    files.parsed.parent.mkdir(parents=True, exist_ok=True)
    parse_questions_file(questions, None, files.parsed, cvt_types=store.cvt_types())
    ground_parsed_file(store, files.parsed, files.grounded, store_name=location)


def generate_demo_benchmark(store_location: str, out_dir: Path,
                            questions: Path = DEMO_QUESTIONS) -> GenerateResult:
    """A benchmark from the bundled questions ``questions`` (seed :data:`DEMO_SEED`,
    test fraction :data:`DEMO_TEST_FRACTION`), replacing ``out_dir``: what
    :func:`generate_demo_args` asks of ``kgbench generate``, read the way it reads
    them, so that the two write the same files."""
    from extension.run.generate import GenerateConfig, generate
    from extension.run.generate_inputs import check_store, dataset_questions

    config = GenerateConfig(seed=DEMO_SEED, test_fraction=DEMO_TEST_FRACTION)
    with open_store(store_location, read_only=True) as s:
        check_store(s, store_location)
    read = dataset_questions(questions, "jsonl", strict=True)
    return generate(store_location, read.items, out_dir, config, source=read.source,
                    force=True)


def generate_domain_benchmark(store_location: str, out_dir: Path
                              ) -> tuple[SeedSample, GenerateResult]:
    """A benchmark with no dataset: :data:`DEMO_DOMAIN_N` seed questions sampled from
    :data:`DEMO_DOMAIN` (seed :data:`DEMO_SEED`), replacing ``out_dir``: what
    :func:`generate_domain_args` asks of ``kgbench generate``, with the same
    ``seed_questions.jsonl``."""
    from extension.outputs.output_file import write_atomic
    from extension.run.generate import GenerateConfig, generate
    from extension.run.generate_inputs import domain_questions

    with open_store(store_location, read_only=True) as s:
        drawn = domain_questions(s, DEMO_DOMAIN, DEMO_DOMAIN_N, seed=DEMO_SEED)
    result = generate(store_location, drawn.items, out_dir,
                      GenerateConfig(seed=DEMO_SEED), source=drawn.source, force=True)
    write_atomic(out_dir / "seed_questions.jsonl", drawn.seed_lines)
    return drawn.sampled, result


def example_samples(out_dir: Path) -> dict[str, BenchmarkSample]:
    """The first multi-citation sample of each label in ``out_dir/samples.jsonl`` (as
    a reader of the benchmark sees them)."""
    from extension.core.labels import LABELS
    from extension.outputs.sample_schema import BenchmarkSample

    shown: dict[str, BenchmarkSample] = {}
    with (out_dir / "samples.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            sample = BenchmarkSample.model_validate_json(line)
            if sample.complexity != "single":   # multi-citation samples show more
                shown.setdefault(sample.label, sample)
            if len(shown) == len(LABELS):
                break
    return shown
