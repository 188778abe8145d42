"""The project ships only sentences its authors wrote: no sentence of 50 or more
characters from the papers (``shared/papers/*.txt``) or from the papers' prompt files
(``shared/data/external/attribution/``) is in a tracked file.

The shared folder is the one beside the clone (CI: ``../shared``), found as
``$KGBENCH_EXTERNAL_DATA/../..``; the test skips when it is not there. What counts:

* A sentence: the sources' text split at ``.``, ``!`` or ``?`` followed by a space, and
  at line breaks; every string of a JSON prompt file is text (the data sets beside
  them, BioKaLMA's question graphs and ALCE's human evaluation, are data, not prose).
  Kept when it has 50 characters or more.
* Found: a tracked text file holds the sentence's first or its last 50 characters, both
  compared without regard to case and with every run of white space (and an escaped
  ``\\n``) as one space, after joining string literals continued on the next line — so
  a quote wrapped over docstring lines or split into concatenated strings is found,
  and so is one cut at either end.
* Excepted: citations. The sentences of a paper's reference list (its bibliography:
  authors, titles, venues) and of its title line may appear where kgbench cites a
  paper.

Matching is by sets: every 50-character window of a file that starts at a word is
looked up, so the scan takes about a second for the whole project.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

import pytest

from tests.external import shared_path

ROOT = Path(__file__).resolve().parent.parent
KEY = 50
"""Characters of a sentence compared: its first and its last ``KEY``."""
DATA_NOT_PROMPTS = ("question_graph.json", "human_eval_utility_completed.json")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")
_REFERENCES = re.compile(r"^\W*(?:\d+\s+)?references\s*$", re.IGNORECASE)
_APPENDIX = re.compile(r"^(?:#+\s|appendix\b)", re.IGNORECASE)
_CONTINUED = re.compile(r"""["']\s*\+?\s*\n\s*(?:#\s*)?[rRfFbBuU]{0,2}["']""")
_WORD_START = re.compile(r"(?<![\w])\w")
_LEADING_MARKS = re.compile(r"^[\W_]+")


def normalized(text: str) -> str:
    """``text`` as the scan compares it: string literals continued on the next line
    joined, escaped newlines and every run of white space as one space, lower case."""
    text = _CONTINUED.sub("", text).replace("\\n", " ")
    return " ".join(text.split()).lower()


def sentences(text: str) -> Iterator[str]:
    """The normalised sentences of ``text`` with at least :data:`KEY` characters, each
    from its first word on (list marks, markup and quotes before it dropped)."""
    for piece in _SENTENCE_END.split(text):
        sentence = _LEADING_MARKS.sub("", normalized(piece))
        if len(sentence) >= KEY:
            yield sentence


def _strings(doc: object) -> Iterator[str]:
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict):
        for value in doc.values():
            yield from _strings(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from _strings(value)


def split_paper(text: str) -> tuple[str, str]:
    """A paper's text without its title line and reference list, and those two (the
    citations kgbench may repeat). The reference list runs from a ``References``
    heading to the next heading or ``Appendix``."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    prose, cited = [], [lines[first] if lines else ""]
    in_references = False
    for line in lines[first + 1:]:
        if _REFERENCES.match(line.strip()):
            in_references = True
        elif in_references and _APPENDIX.match(line.strip()):
            in_references = False
        (cited if in_references else prose).append(line)
    return "\n".join(prose), "\n".join(cited)


@cache
def source_sentences(shared: Path) -> dict[str, str]:
    """Sentence -> the shared file it comes from, for the papers and the attribution
    prompt files, without the citations (:func:`split_paper`)."""
    found: dict[str, str] = {}
    citations: set[str] = set()
    for paper in sorted((shared / "papers").glob("*.txt")):
        prose, cited = split_paper(paper.read_text("utf-8", errors="replace"))
        citations.update(sentences(cited))
        found.update(dict.fromkeys(sentences(prose), paper.name))
    attribution = shared / "data" / "external" / "attribution"
    for path in sorted(attribution.rglob("*")):
        if path.suffix == ".json" and not path.name.endswith(DATA_NOT_PROMPTS):
            texts: Iterable[str] = _strings(json.loads(path.read_bytes()))
        elif path.suffix in (".txt", ".md"):
            texts = [path.read_text("utf-8", errors="replace")]
        else:
            continue
        for text in texts:
            found.update(dict.fromkeys(sentences(text), str(path.relative_to(shared))))
    return {s: source for s, source in found.items() if s not in citations}


def sentence_keys(sentences_from: dict[str, str]) -> dict[str, str]:
    """The first and the last :data:`KEY` characters of each sentence, each starting at
    a word (so a file's windows, which start at words, can meet them) -> the sentence."""
    keys: dict[str, str] = {}
    for sentence in sentences_from:
        keys.setdefault(sentence[:KEY], sentence)
        starts = [m.start() for m in _WORD_START.finditer(sentence)
                  if m.start() <= len(sentence) - KEY]
        keys.setdefault(sentence[starts[-1]:starts[-1] + KEY], sentence)
    return keys


def copied_sentences(text: str, keys: dict[str, str]) -> set[str]:
    """The sentences of ``keys`` whose first or last characters ``text`` holds."""
    flat = normalized(text)
    return {keys[window] for window in (flat[m.start():m.start() + KEY]
                                        for m in _WORD_START.finditer(flat))
            if window in keys}


def tracked_text_files(root: Path) -> list[Path]:
    """The files git tracks under ``root`` that are text (no NUL byte)."""
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                            check=True).stdout.decode("utf-8", errors="replace")
    files = []
    for name in filter(None, listed.split("\0")):
        path = root / name
        try:
            head = path.read_bytes()[:8192]
        except OSError:   # a file deleted in the work tree, a submodule
            continue
        if b"\0" not in head:
            files.append(path)
    return files


@pytest.fixture(scope="module")
def keys() -> dict[str, str]:
    shared = shared_path("papers").parent
    return sentence_keys(source_sentences(shared))


def test_no_sentence_of_the_papers_or_their_prompt_files_is_in_the_project(
        keys: dict[str, str]) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git clone: no tracked files to scan")
    sources = source_sentences(shared_path("papers").parent)
    found = []
    for path in tracked_text_files(ROOT):
        for sentence in sorted(copied_sentences(path.read_text("utf-8", errors="replace"),
                                                keys)):
            found.append(f"{path.relative_to(ROOT)}: {sentence[:70]!r}… "
                         f"(from {sources[sentence]})")
    assert not found, ("sentences written elsewhere are in the project; write your own "
                       "(cite the section, never its text) or read the original from the "
                       "user's copy:\n" + "\n".join(found))


def test_the_scan_finds_a_quote_wrapped_split_or_cut(keys: dict[str, str]) -> None:
    # A sentence of the shared sources, taken at run time (never written here).
    sentence = next(s for s in keys.values() if len(s) > 90 and keys[s[:KEY]] == s
                    and not set("`'\"") & set(s))
    words = sentence.split(" ")
    wrapped = '"""' + "\n    ".join(" ".join(words[i:i + 5]) for i in range(0, len(words), 5))
    split = "text = (\"" + " ".join(words[:4]) + " \"\n        \"" + " ".join(words[4:]) + "\")"
    cut_head = "It said: " + sentence[:-10].upper()
    cut_tail = "... " + sentence[12:] + " (end)"
    for text in (wrapped, split, cut_head, cut_tail):
        assert copied_sentences(text, keys) == {sentence}, text
    # Own words are not flagged; neither is a citation of a paper's title.
    assert not copied_sentences("kgbench writes its own prompts, in its own words, and "
                                "reads the papers' prompts from the user's copy.", keys)
    assert not copied_sentences("Yue et al. 2023, *Automatic Evaluation of Attribution by "
                                "Large Language Models*; Li et al. 2023, *Towards Verifiable "
                                "Generation: A Benchmark for Knowledge-aware Language Model "
                                "Attribution*", keys)
