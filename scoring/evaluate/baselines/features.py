"""Surface features of a sample: what a shortcut can read without understanding it.

CAQA §6 finds that evaluators lean on keyword co-occurrence between the answer and the
citations rather than on what the citations say. Each feature set here measures one
such surface property of (answer statement ã, citations C) (CAQA §3.1), and a
benchmark whose labels these features predict well rewards the shortcut instead of
attribution:

``overlap``
    word overlap between ã and C (lower-cased words, a short list of function words
    left out): the share of ã's words found in C, of C's words found in ã, their
    Jaccard index, and the smallest and largest share of one citation's words found in
    ã (one off-topic citation shows in the smallest);
``length``
    words in ã, words in C, the number of citations and their mean length in words;
``embed``
    cosines of sentence embeddings (an exported ``--task embed`` model,
    :class:`scoring.runtime.Embedder`): ã against all of C as one passage, and the
    largest, smallest and mean cosine of ã against each citation.

Pure functions over the texts (the embeddings come in as arrays), one row per sample.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from scoring.evaluate.benchmark import EvalSample

__all__ = ["FEATURE_NAMES", "FUNCTION_WORDS", "FeatureKind", "citations_of",
           "embedding_features", "length_features", "overlap_features", "words"]

FeatureKind = Literal["overlap", "length", "embed"]
FEATURE_NAMES: dict[FeatureKind, tuple[str, ...]] = {
    "overlap": ("answer_words_in_citations", "citation_words_in_answer", "jaccard",
                "min_citation_words_in_answer", "max_citation_words_in_answer"),
    "length": ("answer_words", "citation_words", "citations", "mean_citation_words"),
    "embed": ("cosine_answer_citations", "max_cosine_answer_citation",
              "min_cosine_answer_citation", "mean_cosine_answer_citation"),
}

FUNCTION_WORDS = frozenset(
    "a an the of in on at to for by with from into as and or but not no is are was were "
    "be been being has have had do does did it its this that these those which who whom "
    "whose what when where than then there their his her he she they them also".split())
"""Words whose co-occurrence says nothing about the facts (articles, prepositions,
auxiliaries, pronouns); left out of the overlap, kept in the lengths."""
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The lower-cased words (runs of letters and digits) of ``text``."""
    return _WORD.findall(text.lower())


def _content(text: str) -> set[str]:
    return {w for w in words(text) if w not in FUNCTION_WORDS}


def citations_of(sample: EvalSample) -> list[str]:
    """The sample's citation texts (its CAQA reference: one citation per line)."""
    return [line for line in sample.reference.split("\n") if line.strip()]


def _share(part: set[str], whole: set[str]) -> float:
    return len(part & whole) / len(part) if part else 0.0


def overlap_features(samples: Sequence[EvalSample]) -> np.ndarray:
    """``[n, 5]``: the ``overlap`` features (module docstring) of each sample."""
    rows = []
    for sample in samples:
        answer = _content(sample.hypothesis)
        cited = [_content(text) for text in citations_of(sample)]
        union = set().union(*cited)
        per_citation = [_share(c, answer) for c in cited] or [0.0]
        rows.append((_share(answer, union), _share(union, answer),
                     len(answer & union) / len(answer | union) if answer | union else 0.0,
                     min(per_citation), max(per_citation)))
    return np.array(rows, dtype=np.float64).reshape(len(samples), 5)


def length_features(samples: Sequence[EvalSample]) -> np.ndarray:
    """``[n, 4]``: the ``length`` features (module docstring) of each sample."""
    rows = []
    for sample in samples:
        lengths = [len(words(text)) for text in citations_of(sample)]
        rows.append((len(words(sample.hypothesis)), sum(lengths), len(lengths),
                     sum(lengths) / len(lengths) if lengths else 0.0))
    return np.array(rows, dtype=np.float64).reshape(len(samples), 4)


def embedding_features(samples: Sequence[EvalSample],
                       embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """``[n, 4]``: the ``embed`` features (module docstring) of each sample.
    ``embed(texts)`` gives unit vectors (one row per text); each distinct text is
    embedded once."""
    texts: dict[str, int] = {}
    for sample in samples:
        for text in (sample.hypothesis, sample.premise, *citations_of(sample)):
            texts.setdefault(text, len(texts))
    vectors = embed(list(texts)) if texts else np.zeros((0, 1))
    vectors = np.asarray(vectors, dtype=np.float64)
    rows = []
    for sample in samples:
        answer = vectors[texts[sample.hypothesis]]
        cosines = [float(vectors[texts[c]] @ answer) for c in citations_of(sample)] or [0.0]
        rows.append((float(vectors[texts[sample.premise]] @ answer), max(cosines),
                     min(cosines), sum(cosines) / len(cosines)))
    return np.array(rows, dtype=np.float64).reshape(len(samples), 4)
