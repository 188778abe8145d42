"""Tab-separated triples (``head<TAB>relation<TAB>tail``) and names (``id<TAB>name``).

This is the layout of the knowledge-graph-completion benchmarks (FB15k-237's
``train/dev/test.tsv``, ``entity2text.txt``, ``FB15k_mid2name.txt``; WN18RR and
Wikidata5M use the same shape). FB15k-237 writes Freebase ids as paths, so they are
converted to the dotted form the Freebase dump uses (:func:`freebase_id`):
``/m/0abc`` -> ``m.0abc`` and ``/film/film/genre`` -> ``film.film.genre``. Ids that do
not start with ``/`` (``Q42``, WordNet offsets) are kept as they are.

Rules: blank lines (empty, or spaces only) are skipped; fields are trimmed of
surrounding spaces; a triples line needs exactly 3 non-empty fields, a names line an
id and a non-empty name (everything after the first tab, so names may contain tabs).
Anything else is a malformed line, counted (or raised under ``strict``) with a reason;
that includes a line of tabs and spaces only (``\t\t``): it has fields, all empty,
so it is a record that lost its values, not a blank line (:func:`_blank`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from kgstore.store import ProgressCallback
from loaders.errors import ParseReport
from loaders.sources import LineSyntaxError, iter_records

PROGRESS_EVERY = 50_000


class TsvSyntaxError(LineSyntaxError):
    """A TSV line has the wrong shape; ``reason`` says how."""


def freebase_id(text: str) -> str:
    """FB15k-237 path form to Freebase dump form: strip the leading ``/`` and turn the
    remaining ``/`` into ``.`` (``/m/0abc`` -> ``m.0abc``, ``/a/b/c`` -> ``a.b.c``).

    Compound relations through a mediator (``/people/person/spouse_s./people/marriage/
    type_of_union``) keep their ``.`` joint, giving ``people.person.spouse_s..people.
    marriage.type_of_union``: unambiguous and reversible. Text not starting with ``/``
    is returned unchanged.
    """
    if not text.startswith("/"):
        return text
    return text[1:].replace("/", ".")


def _blank(line: str) -> bool:
    """Whether ``line`` is blank (skipped): nothing but spaces and the line end. A
    line with a tab and nothing else is not blank; :class:`TsvSyntaxError` ("empty
    fields")."""
    if line.strip():
        return False
    if "\t" in line:
        raise TsvSyntaxError("empty fields: the line has only tabs and spaces")
    return True


def parse_triple_line(line: str) -> tuple[str, str, str] | None:
    """``head<TAB>relation<TAB>tail`` -> ``(head, relation, tail)`` in Freebase form;
    ``None`` for a blank line. Raises :class:`TsvSyntaxError` for another field count
    or an empty field."""
    if _blank(line):
        return None
    fields = line.split("\t")
    if len(fields) != 3:
        hint = " (is the file space-separated?)" if len(fields) == 1 and " " in line else ""
        raise TsvSyntaxError(f"expected 3 tab-separated fields (head, relation, tail), "
                             f"found {len(fields)}{hint}")
    head, relation, tail = (f.strip(" ") for f in fields)
    for name, value in (("head", head), ("relation", relation), ("tail", tail)):
        if not value:
            raise TsvSyntaxError(f"empty {name} field")
    return freebase_id(head), freebase_id(relation), freebase_id(tail)


def parse_name_line(line: str) -> tuple[str, str] | None:
    """``id<TAB>name`` -> ``(id in Freebase form, name)``; ``None`` for a blank line.
    Raises :class:`TsvSyntaxError` without a tab or with an empty id or name."""
    if _blank(line):
        return None
    id_, sep, name = line.partition("\t")
    if not sep:
        raise TsvSyntaxError("expected 'id<TAB>name', found no tab")
    id_, name = id_.strip(" "), name.strip(" \t")
    if not id_:
        raise TsvSyntaxError("empty id field")
    if not name:
        raise TsvSyntaxError("empty name field")
    return freebase_id(id_), name


def iter_tsv_triples(
    path: str | Path,
    *,
    strict: bool = False,
    report: ParseReport | None = None,
    progress: ProgressCallback | None = None,
) -> Iterator[tuple[str, str, str]]:
    """Stream ``(head, relation, tail)`` id triples (Freebase form) from a TSV file
    (plain or compressed, see :func:`loaders.sources.open_text`).

    ``report`` counts physical ``lines``, ``triples`` yielded and ``malformed`` lines
    (the first examples kept); under ``strict`` the first malformed line raises
    :class:`MalformedInputError` ``path:line: reason`` instead. ``progress("parsing
    NAME", bytes_read, file_size)`` is called every 50k lines and at the end.
    """
    yield from iter_records(path, parse_triple_line, strict=strict, report=report,
                            progress=progress, every=PROGRESS_EVERY)


def iter_names(
    path: str | Path,
    *,
    strict: bool = False,
    report: ParseReport | None = None,
    progress: ProgressCallback | None = None,
) -> Iterator[tuple[str, str]]:
    """Stream ``(id, name)`` pairs from an ``id<TAB>name`` file; counting, strictness
    and progress as for :func:`iter_tsv_triples` (``report.triples`` counts names)."""
    yield from iter_records(path, parse_name_line, strict=strict, report=report,
                            progress=progress, every=PROGRESS_EVERY)
