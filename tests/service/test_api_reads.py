"""The read endpoints against a real ``kgbench serve`` on both backends: each answer is
what the same store functions give in-process (what the command line prints with
``--json``), bounds are enforced, errors are one JSON line, and many concurrent readers
all get correct answers."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from kgstore import open_store
from kgstore.lookup import entity_facts
from kgstore.models import json_ready
from tests.service.conftest import Server, _launch

TITANIC = "m.0kgb0gs"   # the 1997 film; another entity shares the name
SPIELBERG = "m.0kgb086"
EDUCATION = "m.0kgb0zq"   # a CVT: Spielberg's people.person.education
SCHOOL = "m.0kgb06p"      # the institution of that education


@pytest.fixture(scope="session", params=["embedded", "neo4j"])
def backend_server(request: pytest.FixtureRequest, demo_data_dir: Path) -> Iterator[Server]:
    """A read-only server per backend over the demo KG (the embedded one is the shared
    demo server)."""
    if request.param == "embedded":
        yield request.getfixturevalue("demo_server")
        return
    location = request.getfixturevalue("neo4j_demo_location")
    server = _launch(location, demo_data_dir, None, "127.0.0.1", ())
    yield server
    server.stop()


@pytest.fixture
def client(backend_server: Server) -> Iterator[httpx.Client]:
    with backend_server.client() as c:
        yield c


@pytest.fixture(scope="session")
def expected(demo_store_path: str) -> dict[str, object]:
    """What the store functions answer in-process (the embedded demo store; the
    Neo4j copy holds the same KG and answers the same, by the conformance suite)."""
    with open_store(demo_store_path, read_only=True) as s:
        titanic = s.entity(TITANIC)
        assert titanic is not None
        return {
            "stats": json_ready(s.stats()),
            "entity": json_ready(entity_facts(s, titanic, 5)),
            "facts_out": json_ready(s.facts_out(TITANIC, limit=1000)),
            "hop2": s.neighborhood(TITANIC, hops=2),
            "predicates": json_ready(s.predicates(limit=5)),
        }


def assert_error(reply: httpx.Response, status: int, *words: str) -> dict[str, object]:
    assert reply.status_code == status, reply.text
    body = reply.json()
    assert set(body) == {"error"} and body["error"]["status"] == status
    message = body["error"]["message"]
    assert "\n" not in message and "Traceback" not in reply.text
    for word in words:
        assert word in message
    detail: dict[str, object] = body["error"]
    return detail


def test_health_names_the_backend(client: httpx.Client, backend_server: Server) -> None:
    health = client.get("/api/health").json()
    assert health["backend"] == ("neo4j" if backend_server.store.startswith("bolt") else "ladybug")
    assert health["auth"] is False


def test_stats_counts_match_the_store(client: httpx.Client, expected: dict[str, object]) -> None:
    doc = client.get("/api/stats", params={"top": 5}).json()
    stats = expected["stats"]
    assert isinstance(stats, dict)
    for key in ("entities", "cvt_entities", "literals", "facts", "predicates"):
        assert doc[key] == stats[key]
    assert doc["top_predicates"] == expected["predicates"]
    assert client.get("/api/predicates", params={"limit": 5}).json() == {
        "predicates": expected["predicates"]}


def test_search_is_autocomplete_by_words(client: httpx.Client) -> None:
    doc = client.get("/api/search", params={"q": "  TITAN", "limit": 5}).json()
    assert doc["query"] == "  TITAN"
    assert {e["id"] for e in doc["entities"]} >= {TITANIC}
    assert all(not e["is_cvt"] for e in doc["entities"])
    assert [m["id"] for m in doc["matches"]] == [e["id"] for e in doc["entities"]]
    # Issue 38: a later word of a name, without accents, and a part of a word.
    doc = client.get("/api/search", params={"q": "coppola"}).json()
    assert "Francis Ford Coppola" in [e["name"] for e in doc["entities"]]
    assert {m["match"] for m in doc["matches"]} == {"word"}
    facts = [m["facts"] for m in doc["matches"]]
    assert facts == sorted(facts, reverse=True)   # the best connected first
    doc = client.get("/api/search", params={"q": "saldana"}).json()
    assert [e["name"] for e in doc["entities"]] == ["Zoe Saldaña"]
    doc = client.get("/api/search", params={"q": "acin"}).json()
    assert ("Al Pacino", "substring") in [
        (e["name"], m["match"]) for e, m in zip(doc["entities"], doc["matches"], strict=True)]
    # The former parameter name still works.
    assert client.get("/api/search", params={"prefix": "titan"}).json()["entities"]
    assert_error(client.get("/api/search", params={"q": ""}), 422, "q")
    assert_error(client.get("/api/search"), 422, "q")
    assert_error(client.get("/api/search", params={"q": "a", "limit": 101}), 422, "limit")


def test_entity_by_id_has_facts_and_names(client: httpx.Client,
                                          expected: dict[str, object]) -> None:
    doc = client.get("/api/entity", params={"id": TITANIC, "limit": 5}).json()
    names = doc.pop("names")
    cvts = doc.pop("cvts")   # e.g. a film.performance of the cast
    assert all(names[i] is None and types for i, types in cvts.items())
    assert doc == expected["entity"]
    assert names[TITANIC] == "Titanic"
    assert "James Cameron" in names.values()
    assert_error(client.get("/api/entity", params={"id": "m.nothing"}), 404, "m.nothing")


def test_lookup_by_name_lists_every_namesake(client: httpx.Client) -> None:
    doc = client.get("/api/lookup", params={"q": "titanic", "limit": 2}).json()
    assert doc["matched_by"] == "name"
    assert len(doc["results"]) == 2 and TITANIC in {r["entity"]["id"] for r in doc["results"]}
    by_id = client.get("/api/lookup", params={"q": TITANIC}).json()
    assert by_id["matched_by"] == "id"
    found = client.get("/api/lookup", params={"q": "Al"}).json()
    assert found["matched_by"] == "search" and len(found["candidates"]) > 1
    answer = client.get("/api/lookup", params={"q": "zzzz no such"})
    assert_error(answer, 404, "zzzz")
    assert "/api/search" not in answer.text and "prefix" not in answer.text


def test_fact_listings_name_their_cvts_with_types(client: httpx.Client) -> None:
    cvt = {EDUCATION: ["education.education"]}
    page = client.get("/api/entity", params={"id": SPIELBERG, "limit": 1000}).json()
    assert page["cvts"].get(EDUCATION) == cvt[EDUCATION] and page["names"][EDUCATION] is None
    assert all(page["names"][i] is None for i in page["cvts"])   # only nameless CVTs
    assert SPIELBERG not in page["cvts"]
    facts = client.get("/api/facts", params={"id": SPIELBERG,
                                             "predicate": "people.person.education"}).json()
    assert [f["object"] for f in facts["facts"]] == [EDUCATION] and facts["cvts"] == cvt
    incoming = client.get("/api/facts", params={"id": EDUCATION, "direction": "in"}).json()
    assert incoming["cvts"] == cvt   # the CVT itself as the facts' object
    looked_up = client.get("/api/lookup", params={"q": SPIELBERG, "limit": 1000}).json()
    assert looked_up["cvts"].get(EDUCATION) == cvt[EDUCATION]
    paths = client.get("/api/paths", params={"source": SPIELBERG, "target": SCHOOL,
                                             "max_length": 2}).json()
    assert any(EDUCATION in p["nodes"] for p in paths["paths"])
    assert paths["cvts"].get(EDUCATION) == cvt[EDUCATION]


def test_facts_pages_are_windows_of_one_order(client: httpx.Client,
                                              expected: dict[str, object]) -> None:
    pages, offset = [], 0
    while True:
        doc = client.get("/api/facts", params={"id": TITANIC, "offset": offset,
                                               "limit": 3}).json()
        pages += doc["facts"]
        offset += 3
        if not doc["more"]:
            break
    assert pages == expected["facts_out"]
    genre = client.get("/api/facts", params={"id": TITANIC, "predicate": "film.film.genre",
                                             "direction": "out"}).json()
    assert genre["facts"] and {f["predicate"] for f in genre["facts"]} == {"film.film.genre"}
    incoming = client.get("/api/facts", params={"id": TITANIC, "direction": "in"}).json()
    assert all(f["object"] == TITANIC for f in incoming["facts"])
    assert_error(client.get("/api/facts", params={"id": TITANIC, "limit": 1001}), 422, "limit")
    assert_error(client.get("/api/facts", params={"id": TITANIC, "direction": "up"}), 422)
    assert_error(client.get("/api/facts", params={"id": "m.nothing"}), 404)


def test_the_predicate_filter_matches_part_of_a_name_in_any_case(
        client: httpx.Client, expected: dict[str, object]) -> None:
    """issue 38: the entity page's filter found only an exact predicate id."""
    everything = expected["facts_out"]
    assert isinstance(everything, list)
    for text in ("GENRE", "film.film.genre", "Genre"):
        doc = client.get("/api/facts", params={"id": TITANIC, "predicate": text}).json()
        assert doc["facts"] == [f for f in everything if f["predicate"] == "film.film.genre"]
    films = client.get("/api/facts", params={"id": TITANIC, "predicate": "Film.Film.",
                                             "limit": 1000}).json()["facts"]
    assert sorted(map(str, films)) == sorted(str(f) for f in everything
                                             if "film.film." in f["predicate"])
    assert [f["predicate"] for f in films] == sorted(f["predicate"] for f in films)
    paged = [client.get("/api/facts", params={"id": TITANIC, "predicate": "film.film.",
                                              "offset": at, "limit": 2}).json()
             for at in range(0, len(films) + 2, 2)]
    assert [f for page in paged for f in page["facts"]] == films
    assert [page["more"] for page in paged][-2:] == [False, False]
    exact = client.get("/api/facts", params={"id": TITANIC, "predicate": "genre",
                                             "match": "exact"}).json()
    assert exact["facts"] == []
    assert client.get("/api/facts", params={"id": TITANIC, "predicate": "nothing.like.it"}
                      ).json()["facts"] == []


def test_a_filter_that_matches_too_many_predicates_asks_for_more(
        demo_store_path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from kgbench.service import reads
    from kgbench.service.errors import ApiError

    monkeypatch.setattr(reads, "MAX_MATCHED_PREDICATES", 10)
    with open_store(demo_store_path, read_only=True) as s:
        assert reads._matching_predicates(s, "GENRE") == ["film.film.genre",
                                                          "film.film_genre.films_in_this_genre"]
        with pytest.raises(ApiError, match="part of 42 predicates") as refused:
            reads._matching_predicates(s, ".")
    assert refused.value.status == 400 and "type more" in (refused.value.hint or "")


def test_cypher_examples_return_rows_here(client: httpx.Client) -> None:
    examples = client.get("/api/cypher/examples").json()["examples"]
    assert len(examples) == 5
    for example in examples:
        doc = client.post("/api/cypher", json={"query": example["query"]}).json()
        assert doc["rows"], example
        if example["graph"]:
            ends = [v for row in doc["rows"] for v in row if isinstance(v, dict)
                    and "_START" in v]
            assert ends and all(None not in v.values() for row in doc["rows"] for v in row
                                if isinstance(v, dict))


def test_neighborhood_as_graph(client: httpx.Client, expected: dict[str, object]) -> None:
    doc = client.get("/api/neighborhood", params={"id": TITANIC, "hops": 2}).json()
    sub = expected["hop2"]
    assert doc["center"] == TITANIC and doc["truncated"] == sub.truncated  # type: ignore[attr-defined]
    assert doc["facts"] == json_ready(sub.facts)   # type: ignore[attr-defined]
    assert doc["distance"] == sub.hops   # type: ignore[attr-defined]
    graph = doc["graph"]
    nodes = {n["id"]: n for n in graph["nodes"]}
    assert nodes[TITANIC]["center"] and nodes[TITANIC]["label"] == "Titanic"
    assert len(graph["edges"]) == len(doc["facts"])
    assert {n["kind"] for n in nodes.values()} == {"entity", "cvt", "literal"}
    for edge in graph["edges"]:
        assert edge["source"] in nodes and edge["target"] in nodes
    literal_facts = [f for f in doc["facts"] if isinstance(f["object"], dict)]
    assert sum(n["kind"] == "literal" for n in nodes.values()) == len(literal_facts)


def test_neighborhood_caps_are_bounded(client: httpx.Client) -> None:
    assert_error(client.get("/api/neighborhood", params={"id": TITANIC, "hops": 4}), 422, "hops")
    assert_error(client.get("/api/neighborhood", params={"id": TITANIC, "max_facts": 10**6}),
                 422, "max_facts")
    capped = client.get("/api/neighborhood", params={"id": TITANIC, "hops": 2,
                                                     "max_facts": 5}).json()
    assert capped["truncated"] and len(capped["facts"]) <= 5
    ambiguous = assert_error(client.get("/api/neighborhood", params={"id": "Titanic"}), 400,
                             "ambiguous")
    assert TITANIC in str(ambiguous["hint"])


def test_paths_by_name(client: httpx.Client) -> None:
    doc = client.get("/api/paths", params={"source": "Al Pacino", "target": "Robert De Niro",
                                           "max_length": 2, "limit": 3}).json()
    assert 0 < len(doc["paths"]) <= 3
    for path in doc["paths"]:
        assert path["nodes"][0] == doc["source"] and path["nodes"][-1] == doc["target"]
        assert len(path["facts"]) == len(path["nodes"]) - 1
        assert path["length"] <= 2
    assert doc["names"][doc["source"]] == "Al Pacino"
    none = client.get("/api/paths", params={"source": "Al Pacino", "target": "Sofia Coppola",
                                            "max_length": 1}).json()
    assert none["paths"] == []   # the ends are named all the same, for "no path between …"
    assert none["names"] == {none["source"]: "Al Pacino", none["target"]: "Sofia Coppola"}


def test_paths_each_once_cvt_one_hop_hubs_last(client: httpx.Client) -> None:
    # Issue 38: Al Pacino -> Coppola at 3 listed one path 8 times, the gender hub second.
    doc = client.get("/api/paths", params={"source": "Al Pacino",
                                           "target": "Francis Ford Coppola",
                                           "max_length": 2, "limit": 50}).json()
    nodes = [tuple(p["nodes"]) for p in doc["paths"]]
    assert len(nodes) == len(set(nodes))
    names = doc["names"]
    films = [p for p in doc["paths"] if len(p["nodes"]) == 4]   # actor, CVT, film, director
    assert {names[p["nodes"][2]] for p in films} >= {"The Godfather"}
    assert all(p["length"] == 2 for p in films)   # through the performance CVT: 2 hops
    hubs = [p["through_hub"] for p in doc["paths"]]
    assert hubs == sorted(hubs) and hubs[-1] is True   # the gender and country paths last
    assert "Male" in {names[p["nodes"][1]] for p in doc["paths"] if p["through_hub"]}
    kept = client.get("/api/paths", params=[
        ("source", "Al Pacino"), ("target", "Francis Ford Coppola"), ("max_length", "2"),
        ("exclude_predicate", "people.person.*")]).json()
    assert kept["exclude_predicates"] == ["people.person.*"]
    assert not any(p["through_hub"] for p in kept["paths"]) and kept["paths"]
    assert_error(client.get("/api/paths", params={"source": "Al Pacino", "target": "x",
                                                  "max_length": 4}), 422)


def test_match_pattern_query(client: httpx.Client) -> None:
    body = {"patterns": [{"subject": "?film", "predicate": "film.film.directed_by",
                          "object": "?d"},
                         {"subject": "?film", "predicate": "film.film.initial_release_date",
                          "object": "?date"}],
            "constraints": [{"kind": "is_cvt", "var": "?d", "value": False}],
            "select": ["?film", "?date"], "limit": 3}
    doc = client.post("/api/match", json=body).json()
    assert doc["variables"] == ["film", "date"]
    assert len(doc["bindings"]) == 3 and doc["truncated"]
    assert all(isinstance(b["date"], dict) and b["date"]["value"] for b in doc["bindings"])
    bad = {"patterns": [{"subject": "?a", "predicate": "p", "object": "?b"}],
           "select": ["?zz"]}
    assert_error(client.post("/api/match", json=bad), 400, "zz")
    assert_error(client.post("/api/match", json={"patterns": []}), 422, "patterns")


def test_cypher_rows_params_and_row_cap(client: httpx.Client) -> None:
    query = "MATCH (e:Entity) WHERE e.name = $n RETURN e.id AS id ORDER BY id"
    doc = client.post("/api/cypher", json={"query": query, "params": {"n": "Titanic"}}).json()
    assert doc["columns"] == ["id"] and [TITANIC] in doc["rows"] and not doc["truncated"]
    capped = client.post("/api/cypher", json={"query": "MATCH (e:Entity) RETURN e.id",
                                              "limit_rows": 7}).json()
    assert len(capped["rows"]) == 7 and capped["truncated"]
    assert_error(client.post("/api/cypher", json={"query": query}), 400, "$n")
    nan = client.post("/api/cypher", json={"query": "RETURN 0.0/0.0 AS x"})
    assert nan.status_code == 200 and nan.json()["rows"] == [[None]]


@pytest.mark.parametrize("query", [
    "MATCH (e:Entity) SET e.name = 'x'",
    "CREATE (e:Entity {id: 'x'})",
    "MATCH (e:Entity) DETACH DELETE e",
    "MATCH (e:Entity) RETURN e.id; MATCH (e:Entity) DELETE e",
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
    "CALL apoc.help('x')",
])
def test_write_cypher_is_refused(client: httpx.Client, query: str) -> None:
    error = assert_error(client.post("/api/cypher", json={"query": query}), 400)
    assert "read" in str(error["message"]) + str(error["hint"])


def test_long_cypher_stops_at_the_timeout(client: httpx.Client) -> None:
    slow = ("MATCH (a:Entity), (b:Entity), (c:Entity) "
            "WHERE a.id < b.id AND b.id < c.id RETURN count(*)")
    reply = client.post("/api/cypher", json={"query": slow, "timeout_s": 0.3})
    assert_error(reply, 504, "time limit")
    assert client.get("/api/health").status_code == 200   # the handle came back


def test_concurrent_readers_all_get_correct_answers(
        client: httpx.Client, backend_server: Server, expected: dict[str, object]) -> None:
    entity = expected["entity"]
    hop2_facts = json_ready(expected["hop2"].facts)   # type: ignore[attr-defined]

    def work(i: int) -> list[str]:
        wrong = []
        with backend_server.client() as c:
            for j in range(8):
                if (i + j) % 2:
                    r = c.get("/api/entity", params={"id": TITANIC, "limit": 5})
                    ok = r.status_code == 200 and {k: v for k, v in r.json().items()
                                                   if k not in ("names", "cvts")} == entity
                else:
                    r = c.get("/api/neighborhood", params={"id": TITANIC, "hops": 2})
                    ok = r.status_code == 200 and r.json()["facts"] == hop2_facts
                if not ok:
                    wrong.append(f"{r.status_code} {r.text[:200]}")
        return wrong

    with ThreadPoolExecutor(16) as pool:
        failures = [w for ws in pool.map(work, range(16)) for w in ws]
    assert failures == []
