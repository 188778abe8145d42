"""bench/label_agreement.py: the Wilson interval, the stratified blind draw and the
form-only giveaway check (the texts and the reader are exercised by running the bench)."""

from __future__ import annotations

import pytest

from tests.bench import load_bench


@pytest.fixture(scope="module")
def la():
    return load_bench("label_agreement")


def test_wilson_interval_known_values(la):
    lo, hi = la.wilson(50, 50)
    assert lo == pytest.approx(0.92865, abs=1e-4) and hi == 1.0
    lo, hi = la.wilson(49, 50)
    assert round(lo, 3) == 0.895 and round(hi, 3) == 0.996
    assert la.wilson(0, 0) == (0.0, 1.0)


def _pool(questions: int) -> list[dict]:
    pool = []
    for q in range(questions):
        for label in ("supportive", "partially_supportive", "contradictory", "irrelevant"):
            pool.append({"kg": "demo" if q % 2 else "fb", "run": "r", "qid": f"q{q}",
                         "id": f"q{q}:{label}", "label": label,
                         "complexity": ("single", "concatenation")[q % 3 == 0],
                         "n_citations": 1, "citation": "x"})
    return pool


def test_draw_takes_one_sample_per_question_and_balances_labels(la):
    drawn = la.stratified_draw(_pool(100), per_label=20, seed=0)
    assert len(drawn) == 80
    assert len({s["qid"] for s in drawn}) == 80          # never two variants of a question
    assert {s["label"] for s in drawn} == set(la.LABELS)
    assert all(sum(s["label"] == lab for s in drawn) == 20 for lab in la.LABELS)
    assert {s["kg"] for s in drawn} == {"demo", "fb"}
    assert drawn == la.stratified_draw(_pool(100), per_label=20, seed=0)   # seeded


def test_form_only_accuracy_sees_a_giveaway(la):
    def rows(giveaway: bool) -> list[dict]:
        out = []
        for i in range(80):
            label = la.LABELS[i % 4]
            n = (1 + la.LABELS.index(label)) if giveaway else 1 + (i // 4) % 3
            out.append({"label": label, "n_citations": n, "chars": 100 + (i * 37) % 50})
        return out
    assert la.form_only_accuracy(rows(True)) > 0.9
    assert la.form_only_accuracy(rows(False)) < 0.5


def test_score_writes_tables_for_two_readers(la, tmp_path, monkeypatch):
    import json

    monkeypatch.setattr(la, "RESULTS", tmp_path / "results")
    work = tmp_path / "work"
    (work / "sheet").mkdir(parents=True)
    key, cells = {}, {"demo": {}}
    for i in range(8):
        label = la.LABELS[i % 4]
        key[f"B{i + 1:03d}"] = {"kg": "demo", "run": "r", "id": f"q{i}:{label}", "label": label,
                                "complexity": "single", "n_citations": 1, "chars": 40 + i}
        cells["demo"][f"{label}|single"] = cells["demo"].get(f"{label}|single", 0) + 1
    (work / "key.json").write_text(json.dumps(key))
    (work / "draw.json").write_text(json.dumps({
        "seed": 0, "per_label": 2, "commit": "x", "pool": {}, "pool_cells": cells,
        "commands": ["kgbench generate …"]}))
    a = "".join(f"{b}\t{k['label']}\tok\n" for b, k in key.items())
    b = a.replace("B001\tsupportive", "B001\tpartially_supportive")
    (work / "a.tsv").write_text(a)
    (work / "b.tsv").write_text(b)
    la.main(["score", "--work", str(work), "--labels", str(work / "a.tsv"), "--reader", "A",
             "--labels", str(work / "b.tsv"), "--reader", "B"])
    record = json.loads((tmp_path / "results" / "label_agreement.jsonl").read_text())
    assert record["readers"]["A"]["rate"] == 1.0
    assert record["readers"]["B"]["by_label"][0] == {
        "label": "supportive", "n": 2, "agree": 1, "rate": 0.5,
        "wilson95": [round(x, 4) for x in la.wilson(1, 2)]}
    assert record["between_readers"]["agree"] == 7
    md = (tmp_path / "results" / "label_agreement.md").read_text()
    assert "### Reader: A" in md and "### Reader: B" in md and "CAQA Table 5" in md
    header = (tmp_path / "results" / "label_agreement_samples.tsv").read_text().splitlines()[0]
    assert header.endswith("generated\tblind:A\tblind:B")
    (work / "bad.tsv").write_text("B001\tmaybe\n")
    with pytest.raises(SystemExit, match="bad.tsv:1"):
        la.main(["score", "--work", str(work), "--labels", str(work / "bad.tsv")])


def test_score_reports_the_readers_1_to_5_ratings(la, tmp_path, monkeypatch):
    """Issue 34: the sheet asks for a 1-5 rating of the question, the answer and the
    citation; score reports each part's mean and the share rated 2 or less."""
    import json

    monkeypatch.setattr(la, "RESULTS", tmp_path / "results")
    work = tmp_path / "work"
    (work / "sheet").mkdir(parents=True)
    key = {f"B{i + 1:03d}": {"kg": "demo", "run": "r", "id": f"q{i}:supportive",
                             "label": "supportive", "complexity": "single",
                             "n_citations": 1, "chars": 40} for i in range(4)}
    (work / "key.json").write_text(json.dumps(key))
    (work / "draw.json").write_text(json.dumps({
        "seed": 0, "per_label": 1, "commit": "x", "pool": {},
        "pool_cells": {"demo": {"supportive|single": 4}}, "commands": []}))
    rows = ["5\t5\t4", "4\t5\t5", "2\t4\t5", "5\t3\t5"]
    (work / "a.tsv").write_text("".join(f"{b}\tsupportive\t{r}\tnote\n"
                                        for b, r in zip(key, rows, strict=True)))
    la.main(["score", "--work", str(work), "--labels", str(work / "a.tsv"), "--reader", "A"])
    record = json.loads((tmp_path / "results" / "label_agreement.jsonl").read_text())
    rated = record["ratings"]["A"]
    assert rated["n"] == 4 and rated["question"] == {"mean": 4.0, "low_share": 0.25}
    assert rated["citation"]["mean"] == 4.75 and rated["any_low_share"] == 0.25
    assert "Ratings of A" in (tmp_path / "results" / "label_agreement.md").read_text()
    assert "1 to 5" in la.RATINGS


def _scored_work(la, tmp_path, lines_a: str, lines_b: str | None = None):
    import json

    work = tmp_path / "work"
    (work / "sheet").mkdir(parents=True)
    key, cells = {}, {"demo": {}, "fb": {}}
    for i in range(8):
        label = la.LABELS[i % 4]
        kg = ("demo", "fb")[i % 2]
        key[f"B{i + 1:03d}"] = {"kg": kg, "run": "r", "id": f"q{i}:{label}", "label": label,
                                "complexity": "single", "n_citations": 1, "chars": 40 + i}
        cells[kg][f"{label}|single"] = cells[kg].get(f"{label}|single", 0) + 1
    (work / "key.json").write_text(json.dumps(key))
    (work / "draw.json").write_text(json.dumps({
        "seed": 0, "per_label": 2, "commit": "x", "pool": {}, "pool_cells": cells,
        "commands": ["kgbench generate …"]}))
    (work / "a.tsv").write_text(lines_a)
    argv = ["score", "--work", str(work), "--labels", str(work / "a.tsv"), "--reader", "A"]
    if lines_b is not None:
        (work / "b.tsv").write_text(lines_b)
        argv += ["--labels", str(work / "b.tsv"), "--reader", "B"]
    return key, argv


def test_score_reports_the_english_ratings_beside_the_agreement(la, tmp_path, monkeypatch):
    import json

    monkeypatch.setattr(la, "RESULTS", tmp_path / "results")
    labels = [la.LABELS[i % 4] for i in range(8)]
    # reader A: questions 2 on the fb items, else 5; reader B: 4 everywhere
    a = "".join(f"B{i + 1:03d}\t{lab}\t{2 if i % 2 else 5}\t5\t4\tnote\n"
                for i, lab in enumerate(labels))
    b = "".join(f"B{i + 1:03d}\t{lab}\t4\t4\t4\n" for i, lab in enumerate(labels))
    _, argv = _scored_work(la, tmp_path, a, b)
    la.main(argv)
    record = json.loads((tmp_path / "results" / "label_agreement.jsonl").read_text())
    r = record["english_ratings"]
    assert r["all_readers"]["n"] == 16
    assert r["all_readers"]["question"] == {"mean": 3.75, "low_share": 0.25}
    assert r["all_readers"]["answer"]["mean"] == 4.5
    assert r["by_reader"]["B"]["citation"] == {"mean": 4.0, "low_share": 0.0}
    assert r["by_kg"]["fb"]["question"]["low_share"] == 0.5
    assert r["by_kg"]["demo"]["question"]["mean"] == 4.5
    assert set(r["by_label"]) == set(la.LABELS)
    assert r["all_readers"]["any_low_share"] == 0.25
    assert r["meets_issue34_bar"] is False
    assert record["ratings"]["A"] == r["by_reader"]["A"]      # each reader's summary
    md = (tmp_path / "results" / "label_agreement.md").read_text()
    assert "## English ratings (issue 34)" in md and "| KG: fb | 8 | 3.00 | 50.0%" in md
    tsv = (tmp_path / "results" / "label_agreement_samples.tsv").read_text().splitlines()
    assert tsv[0].endswith("rating:A\trating:B") and tsv[2].endswith("\t2/5/4\t4/4/4")
    assert record["readers"]["A"]["rate"] == 1.0      # the labels are still read


def test_a_sheet_of_labels_alone_is_still_scored(la, tmp_path, monkeypatch):
    import json

    monkeypatch.setattr(la, "RESULTS", tmp_path / "results")
    a = "".join(f"B{i + 1:03d}\t{la.LABELS[i % 4]}\tok\n" for i in range(8))
    _, argv = _scored_work(la, tmp_path, a)
    la.main(argv)
    record = json.loads((tmp_path / "results" / "label_agreement.jsonl").read_text())
    assert record["english_ratings"] is None


@pytest.mark.parametrize("bad, says", [
    ("B001\tsupportive\t5\t6\t4\n", "three ratings 1–5"),
    ("B001\tsupportive\t5\t4\n", "three ratings 1–5"),
])
def test_a_bad_rating_names_its_line(la, tmp_path, monkeypatch, bad, says):
    monkeypatch.setattr(la, "RESULTS", tmp_path / "results")
    rest = "".join(f"B{i + 1:03d}\t{la.LABELS[i % 4]}\t4\t4\t4\n" for i in range(1, 8))
    _, argv = _scored_work(la, tmp_path, bad + rest)
    with pytest.raises(SystemExit, match=rf"a\.tsv:1: .*{says}"):
        la.main(argv)


def test_every_item_is_rated_or_none(la, tmp_path, monkeypatch):
    monkeypatch.setattr(la, "RESULTS", tmp_path / "results")
    a = "".join(f"B{i + 1:03d}\t{la.LABELS[i % 4]}" + ("\t4\t4\t4" if i else "") + "\n"
                for i in range(8))
    _, argv = _scored_work(la, tmp_path, a)
    with pytest.raises(SystemExit, match="1 items without ratings .first B001"):
        la.main(argv)


def test_the_sheet_asks_for_ratings_and_gives_nothing_away(la, tmp_path):
    drawn = la.stratified_draw(_pool(40), per_label=5, seed=1)
    (tmp_path / "sheet").mkdir()
    la.write_sheet(tmp_path, [{**s, "question": "Who?", "answer": "Ann.", "citation": "[1] C."}
                              for s in drawn])
    sheet = (tmp_path / "sheet" / "blind_sheet.md").read_text()
    assert "rate the English" in sheet and "joined relation names" in sheet
    assert "B001<TAB>supportive<TAB>4<TAB>5<TAB>3" in sheet.replace("`", "")
    for s in drawn:                                   # no sample id, KG or run name
        assert s["id"] not in sheet and s["qid"] + ":" not in sheet
    assert "demo" not in sheet and "\nfb" not in sheet
    items = [line for line in sheet.splitlines() if line.startswith("## B")]
    assert items == [f"## B{i:03d}" for i in range(1, len(drawn) + 1)]
