"""A second names file (issue 18, item 15): FB15k-237 ships ``entity2text.txt`` ("Jeremy
Irons") and ``FB15k_mid2name.txt`` ("Jeremy_Irons"). Loading the second after the first
replaces the names, but the old ones stay findable as aliases, and the load report says
how many names changed. The real CLI in a subprocess (as test_cli.py)."""

from __future__ import annotations

from pathlib import Path

from tests.kgbench.test_cli import run, run_json, stats_doc

FACTS = "/m/0irons\t/film/actor/film\t/m/0lion\n/m/0lion\t/film/film/genre\t/m/0drama\n"
ENTITY2TEXT = "/m/0irons\tJeremy Irons\n/m/0lion\tThe Lion King\n/m/0drama\tDrama\n"
MID2NAME = "/m/0irons\tJeremy_Irons\n/m/0lion\tThe_Lion_King\n/m/0drama\tDrama\n"


def _files(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """The facts, the two names files (written) and a store path."""
    facts, text, mid2name = (tmp_path / n for n in ("train.tsv", "entity2text.txt",
                                                     "FB15k_mid2name.txt"))
    facts.write_text(FACTS)
    text.write_text(ENTITY2TEXT)
    mid2name.write_text(MID2NAME)
    return facts, text, mid2name, tmp_path / "store"


def test_second_names_file_keeps_old_names_findable(tmp_path: Path) -> None:
    facts, text, mid2name, store = _files(tmp_path)
    first = run_json("load", "triples", facts, "--names", text, "--store", store)
    assert first["summary"]["names_replaced"] == 0

    second = run_json("load", "triples", facts, "--names", mid2name, "--store", store)
    assert second["summary"]["names_replaced"] == 2  # "Drama" is the same name
    files = {Path(f["path"]).name: f for f in second["report"]["files"]}
    assert files["FB15k_mid2name.txt"]["import_report"]["names_replaced"] == 2

    for query in ("Jeremy Irons", "jeremy_irons", "the lion king"):
        found = run_json("entity", query, "--store", store)
        assert len(found["results"]) == 1, query
    entity = run_json("entity", "Jeremy Irons", "--store", store)["results"][0]["entity"]
    assert entity["id"] == "m.0irons"
    assert entity["name"] == "Jeremy_Irons" and "Jeremy Irons" in entity["aliases"]

    sources = {Path(s["file"]).name: s for s in stats_doc(store)["sources"]}
    assert sources["FB15k_mid2name.txt"]["counts"]["names_replaced"] == 2


def test_load_summary_shows_the_names_replaced(tmp_path: Path) -> None:
    """The human summary (not only --json) tells how many names a names file changed."""
    facts, text, mid2name, store = _files(tmp_path)
    assert run("load", "triples", facts, "--names", text, "--store", store).returncode == 0
    proc = run("load", "triples", facts, "--names", mid2name, "--store", store)
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if "names replaced" in ln)
    assert line.split()[-1] == "2"
