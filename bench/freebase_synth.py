"""Synthetic Freebase RDF dump lines for load benchmarks (``kgbench load freebase``).

:func:`generate` writes ``lines`` lines in the official dump format
(``<s>\\t<p>\\t<o>\\t.``) with a mix modelled on the real dump: a schema header (types,
properties, mediator hints), then one block per topic with names in several languages,
aliases, ``type.object.type`` / ``type.type.instance`` pairs, ``type.object.key``,
``common.notable_for`` chains with their multilingual ``display_name`` strings, entity
facts with their reverse property, CVT mediator nodes, dates, numbers, plain strings
and descriptions (some with ``\\"``, ``\\n`` and ``\\u`` escapes), its text drawn from a
large vocabulary so that it compresses like the real dump (about 9x with gzip). The
same seed gives the same bytes. ``.gz``/``.bz2``/``.zst`` names are compressed (gzip
in-process; bzip2/zstd through the command-line tools).

    python -m bench.freebase_synth /tmp/fb-5m.nt.gz --lines 5000000 --seed 1
"""

from __future__ import annotations

import argparse
import gzip
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

NS = "http://rdf.freebase.com/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"
LANGS = ("en", "fr", "de", "es", "it", "ja", "ru", "pt", "zh", "nl")
_ALPHABET = "0123456789bcdfghjklmnpqrstvwxyz_"
WORDS = ("the", "film", "river", "north", "king", "blue", "house", "song", "city", "war",
         "love", "night", "star", "black", "road", "island", "state", "park", "john",
         "mary", "school", "club", "united", "saint", "new", "old", "great", "little")
_ONSETS = ("", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t",
           "v", "w", "z", "br", "ch", "cl", "dr", "gr", "kr", "pl", "sh", "st", "th", "tr")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "ie", "ou", "y")
_CODAS = ("", "", "n", "r", "s", "l", "t", "m", "nd", "rt", "ck", "ng", "x")
VOCABULARY = 40_000
"""Pseudo-words for names and texts besides :data:`WORDS`. With the 28 words alone the
dump gzipped 13x; the real dump (names of millions of topics, long descriptions, ids)
gzips about 9x and has ~136 bytes a line; with this vocabulary, skewed towards its first
words, the synthetic dump measures 9.4x and 138 bytes a line."""
ENTITY_TYPES = ("film.film", "people.person", "location.location", "music.recording",
                "book.book", "organization.organization", "sports.sports_team",
                "music.album", "tv.tv_episode", "biology.organism")
FACT_PREDICATES = (
    ("film.film.directed_by", "film.director.film"),
    ("film.film.genre", "film.film_genre.films_in_this_genre"),
    ("people.person.place_of_birth", "location.location.people_born_here"),
    ("people.person.nationality", None),
    ("people.person.profession", None),
    ("location.location.containedby", "location.location.contains"),
    ("music.recording.artist", "music.artist.track"),
    ("book.written_work.author", "book.author.works_written"),
    ("common.topic.subject_of", None),
    ("user.someone.default_domain.favourite", None),
    ("base.schemastaging.context_name.pronunciation", None),
)
CVT_TYPES = (("film.performance", ("film.performance.actor", "film.performance.character")),
             ("people.marriage", ("people.marriage.spouse", "people.marriage.type_of_union")),
             ("location.geocode", ("location.geocode.latitude", "location.geocode.longitude")))
LITERAL_PREDICATES = (
    ("film.film.initial_release_date", "date"),
    ("people.person.date_of_birth", "date"),
    ("film.film.runtime_minutes", "int"),
    ("location.location.area", "float"),
    ("people.person.height_meters", "float"),
    ("music.recording.length", "float"),
    ("common.topic.official_website", None),
    ("book.book_edition.isbn", None),
)


def _vocabulary(rnd: random.Random, n: int) -> list[str]:
    """``n`` pronounceable pseudo-words of one to three syllables."""
    out = []
    for _ in range(n):
        out.append("".join(rnd.choice(_ONSETS) + rnd.choice(_VOWELS) + rnd.choice(_CODAS)
                           for _ in range(rnd.randint(1, 3))))
    return out


def _iri(local: str) -> str:
    return f"<{NS}{local}>"


def _line(s: str, p: str, o: str) -> str:
    return f"{_iri(s)}\t{_iri(p)}\t{o}\t.\n"


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)
        self.mids: list[str] = []
        self.vocab = list(WORDS) + _vocabulary(random.Random(seed ^ 0x5EED), VOCABULARY)

    def word(self) -> str:
        """A word; the earlier in the vocabulary (common English words first), the more
        often (squaring the uniform draw skews it)."""
        return self.vocab[int(len(self.vocab) * self.rnd.random() ** 2)]

    def mid(self) -> str:
        r = self.rnd
        prefix = "m.0" if r.random() < 0.8 else "g.11"
        return prefix + "".join(r.choice(_ALPHABET) for _ in range(r.randint(3, 7)))

    def words(self, lo: int, hi: int) -> str:
        return " ".join(self.word() for _ in range(self.rnd.randint(lo, hi))).title()

    def text(self) -> str:
        """A description: sometimes with escapes the dump uses."""
        r = self.rnd
        body = " ".join(self.word() for _ in range(r.randint(8, 40)))
        x = r.random()
        if x < 0.15:
            body += ' called \\"' + self.words(1, 2) + '\\"'
        if x < 0.05:
            body += "\\nSecond paragraph."
        if x < 0.01:
            body += " caf\\u00E9 na\\u00EFve"
        return body

    def literal(self, kind: str | None) -> str:
        r = self.rnd
        if kind == "date":
            y = r.randint(1800, 2015)
            if r.random() < 0.3:
                return f'"{y}"^^<{XSD}gYear>'
            return f'"{y}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"^^<{XSD}date>'
        if kind == "int":
            return f'"{r.randint(1, 300)}"^^<{XSD}int>'
        if kind == "float":
            return f'"{r.uniform(0, 10000):.3f}"^^<{XSD}float>'
        return f'"{self.words(1, 4)}"'

    def schema(self) -> Iterator[str]:
        for t, props in CVT_TYPES:
            yield _line(t, "type.object.type", _iri("type.type"))
            yield _line(t, "type.object.name", f'"{t.split(".")[-1].title()}"@en')
            yield _line(t, "freebase.type_hints.mediator", '"true"')
            for p in props:
                yield _line(p, "type.object.type", _iri("type.property"))
                yield _line(p, "type.object.name", f'"{p.split(".")[-1].title()}"@en')
                yield _line(p, "type.property.schema", _iri(t))
                yield _line(p, "type.property.expected_type", _iri("common.topic"))
        for pair in FACT_PREDICATES:
            for fp in pair:
                if fp:
                    yield _line(fp, "type.object.type", _iri("type.property"))
                    yield _line(fp, "type.object.name", f'"{fp.split(".")[-1].title()}"@en')
                    yield _line(fp, "type.property.unique", '"false"')
                    yield f"<{NS}{fp}>\t<http://www.w3.org/2000/01/rdf-schema#label>\t" \
                          f'"{fp.split(".")[-1].title()}"@en\t.\n'
        for t in ENTITY_TYPES:
            yield _line(t, "type.object.type", _iri("type.type"))
            yield _line(t, "type.object.name", f'"{t.split(".")[-1].title()}"@en')
            yield _line(t, "freebase.type_hints.mediator", '"false"')

    def topic(self) -> Iterator[str]:
        r = self.rnd
        m = self.mid()
        self.mids.append(m)
        if len(self.mids) > 5000:
            del self.mids[: 2500]
        name = self.words(1, 4)
        yield _line(m, "type.object.name", f'"{name}"@en')
        for lang in r.sample(LANGS[1:], r.randint(0, 4)):
            yield _line(m, "type.object.name", f'"{name} ({lang})"@{lang}')
        for _ in range(r.randint(0, 2)):
            lang = "en" if r.random() < 0.6 else r.choice(LANGS)
            yield _line(m, "common.topic.alias", f'"{self.words(1, 3)}"@{lang}')
        types = ["common.topic", *r.sample(ENTITY_TYPES, r.randint(1, 3))]
        for t in types:
            yield _line(m, "type.object.type", _iri(t))
            yield _line(t, "type.type.instance", _iri(m))
        for _ in range(r.randint(1, 3)):
            yield _line(m, "type.object.key", f'"/wikipedia/en_id/{r.randint(1, 10**8)}"')
        g = "g.1" + "".join(r.choice(_ALPHABET) for _ in range(9))
        yield _line(m, "common.topic.notable_for", _iri(g))
        yield _line(m, "common.topic.notable_types", _iri(types[1]))
        yield _line(g, "common.notable_for.object", _iri(types[1]))
        yield _line(g, "common.notable_for.predicate", '"/type/object/type"')
        for lang in r.sample(LANGS, r.randint(1, 6)):
            yield _line(g, "common.notable_for.display_name", f'"{types[1]} ({lang})"@{lang}')
        for lang in r.sample(LANGS, r.randint(0, 3)):
            yield _line(m, "common.topic.description", f'"{self.text()}"@{lang}')
        if r.random() < 0.3:
            yield _line(m, "common.topic.image", _iri(self.mid()))
        if r.random() < 0.2:
            yield _line(m, "common.topic.topic_equivalent_webpage",
                        f"<http://en.wikipedia.org/wiki/{name.replace(' ', '_')}>")
        for _ in range(r.randint(1, 8)):
            if not self.mids:
                break
            p, rev = r.choice(FACT_PREDICATES)
            other = r.choice(self.mids)
            yield _line(m, p, _iri(other))
            if rev:
                yield _line(other, rev, _iri(m))
        for _ in range(r.randint(0, 3)):
            p, kind = r.choice(LITERAL_PREDICATES)
            yield _line(m, p, self.literal(kind))
        if r.random() < 0.25:  # a CVT hanging off this topic
            cvt = "m.0" + "".join(r.choice(_ALPHABET) for _ in range(8))
            t, props = r.choice(CVT_TYPES)
            yield _line(cvt, "type.object.type", _iri(t))
            yield _line(t, "type.type.instance", _iri(cvt))
            yield _line(m, t.split(".")[0] + ".person." + t.split(".")[1], _iri(cvt))
            for prop in props:
                yield _line(cvt, prop, _iri(r.choice(self.mids)))
        if r.random() < 0.02:
            yield _line(m, "freebase.valuenotation.is_reviewed", _iri("type.object.name"))
        if r.random() < 0.02:
            yield _line(m, "dataworld.gardening_hint.last_referenced_by", _iri(self.mid()))


def iter_lines(lines: int, seed: int) -> Iterator[str]:
    """Exactly ``lines`` dump lines (schema header first), deterministic by ``seed``."""
    gen = _Gen(seed)
    n = 0
    for line in gen.schema():
        if n >= lines:
            return
        yield line
        n += 1
    while True:
        for line in gen.topic():
            if n >= lines:
                return
            yield line
            n += 1


def generate(path: str | Path, lines: int, seed: int = 0) -> Path:
    """Write ``lines`` synthetic dump lines to ``path`` (compressed by its suffix)."""
    p = Path(path)
    suffix = p.suffix.lower()
    raw = p.with_name(p.name[: -len(suffix)]) if suffix in (".bz2", ".zst") else p
    with open(raw, "wb") as fh:
        # mtime=0 and no file name in the gzip header: the same seed, the same bytes.
        out = gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0) \
            if suffix == ".gz" else fh
        buf: list[str] = []
        for line in iter_lines(lines, seed):
            buf.append(line)
            if len(buf) >= 100_000:
                out.write("".join(buf).encode("utf-8"))
                buf.clear()
        out.write("".join(buf).encode("utf-8"))
        if out is not fh:
            out.close()
    if suffix == ".bz2":
        subprocess.run(["bzip2", "-f", str(raw)], check=True)
    elif suffix == ".zst":
        subprocess.run(["zstd", "-q", "-f", "--rm", str(raw), "-o", str(p)], check=True)
    return p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--lines", type=int, default=5_000_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    generate(args.path, args.lines, args.seed)


if __name__ == "__main__":
    main()
