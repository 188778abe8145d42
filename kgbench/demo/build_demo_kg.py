"""Build the kgbench demo knowledge graph and its question set.

Run ``python -m kgbench.demo.build_demo_kg`` to (re)write, beside this file:

* ``data/films.nt.gz`` -- gzipped N-Triples in the exact layout of the official
  Freebase dump: one ``<subject>\\t<predicate>\\t<object>\\t.`` per line, all ids
  in the ``http://rdf.freebase.com/ns/`` namespace, real Freebase predicate and
  type ids (``film.film.directed_by``, ``people.person.spouse_s``...), CVT
  (mediator) nodes for performances, film cuts, marriages and education, and the
  schema lines real Freebase carries for them (``freebase.type_hints.mediator``,
  property and type names).
* ``data/questions.jsonl`` -- WebQSP-style questions whose answers are computed
  by evaluating their SPARQL patterns over the generated triples, so they are
  correct by construction.

The data are curated real-world facts held in the tables of :mod:`kgbench.demo.facts`;
:mod:`kgbench.demo.graph` turns them into triples and :mod:`kgbench.demo.question_set`
evaluates the questions over them.  Where a detail
was not certain (an exact release day, a birth place) it is left out rather
than guessed: a release date may therefore be a year (``xsd:gYear``), and some
people have no birth date or place.  ``film.film.initial_release_date`` holds
the release date as commonly cited, usually the first theatrical release in the
film's home country (not film-festival screenings).

Entity ids look like Freebase MIDs (``m.0kgb001``) but come from a made-up
private range (``m.0kgb`` + a base-36 counter): they are NOT real Freebase MIDs.

Output is deterministic: MIDs are allocated in table order, lines are grouped by
subject in a fixed order, and the gzip header carries ``mtime=0`` and no file
name, so two runs produce identical bytes.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from kgbench.demo import DEMO_DIR
from kgbench.demo.graph import build_graph, ntriples_lines
from kgbench.demo.question_set import QUESTIONS, question_record


def build(out_dir: Path) -> tuple[Path, Path]:
    """Write ``films.nt.gz`` and ``questions.jsonl`` into ``out_dir``; returns their paths.

    The gzip stream has ``mtime=0`` and an empty file name so its bytes depend
    only on the data.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    g = build_graph()
    kg_path, questions_path = out_dir / "films.nt.gz", out_dir / "questions.jsonl"
    payload = "".join(line + "\n" for line in ntriples_lines(g.triples)).encode("utf-8")
    with kg_path.open("wb") as raw, gzip.GzipFile(
        filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0
    ) as zipped:
        zipped.write(payload)
    records = [question_record(g, q) for q in QUESTIONS]
    questions_path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return kg_path, questions_path


def main() -> None:
    """Regenerate the shipped demo files in ``kgbench/demo/data``."""
    kg_path, questions_path = build(DEMO_DIR)
    print(f"wrote {kg_path} and {questions_path}")


if __name__ == "__main__":
    main()
