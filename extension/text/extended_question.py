"""The extended question q̃: the original question q with the constraint that the
extension rule (CAQA Table 4) added, attached to the right mention
(:func:`extended_question`), and the display names that wording needs
(:func:`question_names`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from extension.samples import StructuredSample
from extension.text.relation_phrases import PhraseTable, as_table, has_noun, type_noun


def extended_question(question: str, added: Sequence[Mapping[str, str]],
                      names: Mapping[str, str], phrases: Mapping[str, str] | None,
                      rule: str, *, subjects: Sequence[str] = ()) -> str:
    """The extended question q̃ of CAQA Table 4, composed from the original ``question``
    and the edges the rule ``added`` (``{source, predicate, target}``, one end a query
    variable such as ``?v1`` or ``?x``):

    * ``none`` -> ``question`` unchanged;
    * ``union`` -> q with the same-name ``subjects`` spelt out: "…, for each of the 2
      entities named John Williams?";
    * ``intersection_way1`` (``(e1, rn, ?v)`` prepended, ?v the old subject e0): e0's
      mention in q becomes a description of ?v — "who directed the godfather?" ->
      "who directed the film whose sequel is The Godfather Part II?"; when q does not
      spell e0's name, the description is appended ("…, where <e0> is the film whose
      …?");
    * ``intersection_way2`` (``(e1, rn, ?a)`` on the answer) -> "<q>, the person who is
      a citizen of United States of America?".

    ``names`` maps ids to display names and may map a variable to the name of the
    entity it stands for (way 1: ``?v1`` -> e0's name); ``phrases`` as in
    :func:`hop_sentence`. Raises :class:`ValueError` for an unknown rule."""
    if rule == "none":
        return question
    if rule == "union":
        if not subjects:
            return question
        name = names.get(subjects[0], subjects[0])
        return f"{_stem(question)}, for each of the {len(subjects)} entities named {name}?"
    if rule not in ("intersection_way1", "intersection_way2"):
        raise ValueError(f"unknown extension rule {rule!r}")
    table = as_table(phrases)
    text = question
    for edge in added:
        source, predicate, target = edge["source"], edge["predicate"], edge["target"]
        var_is_subject = source.startswith("?")
        var, other = (source, target) if var_is_subject else (target, source)
        description = _description(var_is_subject, predicate, names.get(other, other), table)
        if rule == "intersection_way2":
            text = f"{_stem(text)}, {description}?"
            continue
        old = names.get(var)
        span = _mention(text, old) if old else None
        if span is not None:
            start, end = span
            text = f"{text[:start]}{description}{text[end:]}"
        elif old:
            text = f"{_stem(text)}, where {old} is {description}?"
        else:
            text = f"{_stem(text)}, for {description}?"
    return text


def _stem(text: str) -> str:
    return text.strip().rstrip("?").rstrip()


def _description(var_is_subject: bool, predicate: str, other: str, table: PhraseTable) -> str:
    """A noun phrase for a variable by its one edge to ``other``."""
    phrase = table[predicate]
    noun = has_noun(phrase)
    if var_is_subject:
        kind = type_noun(predicate) or "one"
        if noun:
            return f"the {kind} whose {noun} is {other}"
        return f"the {kind} {'who' if kind == 'person' else 'that'} {phrase} {other}"
    inverse = table.inverse(predicate)
    if inverse:
        return f"the one that {inverse} {other}"
    if noun:
        return f"the {noun} of {other}"
    return f"the one that {other} {phrase}"


def _mention(text: str, name: str) -> tuple[int, int] | None:
    """Where ``name`` occurs in ``text`` as whole words (ignoring case), with a "the "
    before it included; tries the name without its own leading "The " too."""
    lowered = text.lower()
    candidates = [name.lower()]
    if candidates[0].startswith("the "):
        candidates.append(candidates[0][4:])
    for wanted in candidates:
        start = lowered.find(wanted) if wanted else -1
        while start >= 0:
            end = start + len(wanted)
            if (start == 0 or not lowered[start - 1].isalnum()) and \
                    (end == len(lowered) or not lowered[end].isalnum()):
                if lowered[:start].endswith("the ") and not wanted.startswith("the "):
                    start -= 4
                return start, end
            start = lowered.find(wanted, start + 1)
    return None


def question_names(sample: StructuredSample) -> dict[str, str]:
    """The display names :func:`extended_question` needs: the first subject (union) or
    the ends of the added edges, and for ``intersection_way1`` the prepended variable ->
    the name of the old subject it stands for. From the sample's triples, answers and
    query constants; an id without a name is left out (shown as the id)."""
    query = sample.query
    if query.rule == "none":
        return {}
    wanted: dict[str, list[str]] = {}   # entity id -> the keys to give its name
    if query.rule == "union":
        for s in query.subjects[:1]:
            wanted.setdefault(s, []).append(s)
    for edge in query.added:
        source, target = str(edge["source"]), str(edge["target"])
        other = target if source.startswith("?") else source
        wanted.setdefault(other, []).append(other)
    if query.rule == "intersection_way1" and query.extended and query.added:
        extended_ids = {n.get("id") for n in _json_nodes(query.extended[0])}
        old = [str(n["id"]) for n in _json_nodes(query.original)
               if n.get("kind") == "entity" and n.get("id") not in extended_ids]
        if old:
            for edge in query.added:
                source = str(edge["source"])
                var = source if source.startswith("?") else str(edge["target"])
                wanted.setdefault(old[0], []).append(var)
    names: dict[str, str] = {}

    def give(id: str, name: str | None) -> None:
        if name and id in wanted:
            for key in wanted.pop(id):
                names[key] = name

    for t in (*sample.original_subgraph, *sample.subgraph):
        if not wanted:
            return names
        give(t.s, t.s_name)
        give(t.o, t.o_name)
    for a in sample.answer_entities:
        if a.id:
            give(a.id, a.name)
    for graph in (*query.extended, query.original):
        for node in _json_nodes(graph):
            name = node.get("name")
            give(str(node.get("id")), name if isinstance(name, str) else None)
    return names


def _json_nodes(graph: object) -> list[dict[str, object]]:
    nodes = graph.get("nodes", []) if isinstance(graph, Mapping) else []
    return [n for n in nodes if isinstance(n, dict)]


__all__ = ["extended_question"]
