"""A small built-in corpus in the style of the benchmark's citations and answer
statements, from which the tiny test models' tokenizers are trained offline and on
which exports check parity. Deterministic: the same sentences in the same order."""

from __future__ import annotations

from itertools import product

__all__ = ["PARITY_PAIRS", "corpus"]

_PEOPLE = ("Marie Curie", "Alan Turing", "Ada Lovelace", "Niels Bohr", "Lise Meitner",
           "Emmy Noether", "Srinivasa Ramanujan", "Rosalind Franklin")
_PLACES = ("Warsaw", "London", "Copenhagen", "Vienna", "Paris", "Cambridge", "Madras",
           "Berlin")
_COUNTRIES = ("Poland", "the United Kingdom", "Denmark", "Austria", "France", "India",
              "Germany")
_AWARDS = ("the Nobel Prize in Physics", "the Copley Medal", "the Royal Medal",
           "the Max Planck Medal")
_YEARS = ("1867", "1903", "1912", "1922", "1936", "1950")

_CITATIONS = (
    "{person} was born in {place}, a city in {country}, in {year}.",
    "According to the record, {person} received {award} in {year}.",
    "{person} worked at a university in {place} for many years.",
    "In {year}, {person} moved from {country} to {place}.",
    "{place} is the largest city of {country} and its capital since {year}.",
)
_ANSWERS = (
    "{person} was born in {place}.",
    "{person} won {award}.",
    "{person} did not win {award}.",
    "{person} lived in {country} in {year}.",
    "The capital of {country} is {place}.",
)


def corpus() -> list[str]:
    """A few hundred citation and answer sentences, plus digits and punctuation."""
    sentences = []
    for i, (person, place) in enumerate(product(_PEOPLE, _PLACES)):
        fill = {"person": person, "place": place, "country": _COUNTRIES[i % len(_COUNTRIES)],
                "award": _AWARDS[i % len(_AWARDS)], "year": _YEARS[i % len(_YEARS)]}
        sentences.append(_CITATIONS[i % len(_CITATIONS)].format(**fill))
        sentences.append(_ANSWERS[(i * 3) % len(_ANSWERS)].format(**fill))
        sentences.append(_CITATIONS[(i + 2) % len(_CITATIONS)].format(**fill))
    sentences.append("0 1 2 3 4 5 6 7 8 9 . , ; : ! ? ' \" ( ) - [ ] Q: A: [1] [2]")
    return sentences


PARITY_PAIRS: tuple[tuple[str, str], ...] = (
    ("Marie Curie was born in Warsaw, a city in Poland, in 1867. According to the record, "
     "Marie Curie received the Nobel Prize in Physics in 1903. She worked at a university "
     "in Paris for many years, and in 1912 she moved from Poland to Paris.",
     "Marie Curie was born in Warsaw."),
    ("Alan Turing worked at a university in Cambridge.", "Alan Turing won the Copley Medal."),
    ("Copenhagen is the largest city of Denmark.", "The capital of Denmark is Copenhagen."),
    ("In 1936, Lise Meitner moved from Austria to Berlin. According to the record, Lise "
     "Meitner received the Max Planck Medal in 1950.", "Lise Meitner lived in Germany in 1936."),
    ("Emmy Noether.", "Emmy Noether did not win the Royal Medal."),
    ("According to the record, Ramanujan received the Royal Medal in 1922 in Madras, a "
     "city in India.", "Srinivasa Ramanujan was born in Madras."),
)
"""(premise, hypothesis) pairs of different lengths on which an export is compared with
PyTorch (a causal LM reads each ``premise + " " + hypothesis``)."""
