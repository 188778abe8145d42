"""Store benchmark: bulk ingest and query latency of the embedded LadybugDB store,
against a networkx baseline holding the same graph in memory.

Steps (``python bench/store_bench.py --help``):

1. Generate a synthetic Freebase-like KG from ``--seed`` and write it directly in the
   staged layout (:mod:`kgstore.staging`): MIDs, Zipf degrees with a few big hubs, CVT
   mediator nodes of CVT types, ~300 Zipf-distributed predicates, names of which ~3% are
   shared by 2-5 entities, aliases, types, ~10% literal facts. The same seed gives the
   same Parquet bytes. Generation is not part of any timing.
2. Ingest: ``open_store(create=True)`` + ``import_stage`` in a child process; wall time,
   facts/s, the import's step times, the child's peak RSS, store size on disk.
3. Latency (p50/p99/mean) of ``entity``, ``find_by_name``, 1-hop and 2-hop
   ``neighborhood`` (default caps) over seeded random named entities; and of
   ``search`` (words, prefixes, substrings of the generated names) against the engine
   scanning its name keys (:mod:`bench.search_bench`), target p50 <= 20 ms.
4. The same four operations over a networkx ``MultiDiGraph`` (+ a name dict) built from
   the same stage; the k-hop walk is :func:`kgstore.algorithms.subgraph.neighborhood` itself over an
   adapter (``entities`` + ``adjacency``, read in LadybugStore's order), so caps and CVT
   hop rules are identical; ``agreement`` in the record checks that both give the same
   answers wherever no cap applies. networkx is in-memory only (no persistence).
5. One JSON record appended to ``OUT/store_bench.jsonl``, a plot
   ``OUT/store_bench_latency.png`` and a summary table.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import hashlib
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(REPO))

from bench.search_bench import measure_search  # noqa: E402
from kgstore.enginepaths import duckdb_read_path  # noqa: E402
from kgstore.models import Entity, Fact, Literal, literal_key, normalize_name  # noqa: E402
from kgstore.staging import LAYOUT_VERSION, SCHEMAS, read_manifest, staged_parts  # noqa: E402
from loaders.pipeline import sql_str  # noqa: E402

TARGETS = {
    "ingest_facts_per_s": 400_000,   # >=
    "ingest_peak_rss_mb": 3 * 1024,  # <  (3 GiB, in MiB)
    "2hop_p50_ms": 5.0,              # <=
    "search_p50_ms": 20.0,           # <=  (issue 38; bench/search_bench.py)
}
OPS = ("entity", "by_name", "1hop", "2hop")
PART_ROWS = 1_000_000

# --------------------------------------------------------------------------------------
# 1. Synthetic Freebase-like KG, written straight into the staged layout
# --------------------------------------------------------------------------------------

MID_ALPHABET = np.frombuffer(b"0123456789bcdfghjklmnpqrstvwxyz_", dtype=np.uint8)
SYLLABLES = [
    "ka", "lo", "mi", "ra", "ven", "to", "sa", "ri", "del", "mo", "na", "be", "lu", "ta",
    "or", "fi", "gan", "el", "ma", "tin", "co", "ber", "wen", "da", "ly", "son", "har", "pe",
    "ros", "vi", "al", "no", "kin", "ste", "ju", "lia", "mar", "go", "ne", "sel", "bra", "hu",
    "dor", "ke", "zo", "an", "ful", "ti",
]
DOMAINS = [
    "film", "music", "people", "location", "sports", "book", "tv", "award", "education",
    "government", "organization", "business", "medicine", "biology", "architecture",
    "military", "religion", "language", "computer", "aviation", "food", "fictional_universe",
    "visual_art", "theater", "olympics", "soccer", "basketball", "chemistry", "astronomy",
    "law",
]
WORDS = [
    "subject", "author", "member", "founder", "genre", "country", "region", "parent",
    "child", "place", "origin", "language", "director", "producer", "series", "episode",
    "team", "league", "school", "employer", "office", "award", "winner", "nominee",
    "instrument", "label", "artist", "album", "track", "contains", "capital", "currency",
    "spouse", "sibling", "religion", "ethnicity", "profession", "company", "industry",
    "product", "location", "venue", "event", "character", "creator", "publisher", "edition",
]
ENTITY_TYPES = [
    "people.person", "location.location", "film.film", "music.recording", "music.artist",
    "book.book", "organization.organization", "location.citytown", "sports.sports_team",
    "tv.tv_program", "business.company", "award.award", "education.university",
    "film.actor", "music.album", "book.author", "location.country", "government.politician",
    "biology.organism", "medicine.disease", "sports.pro_athlete", "film.director",
    "music.composition", "tv.tv_actor", "architecture.structure", "military.conflict",
    "religion.religion", "language.human_language", "computer.software", "food.dish",
    "fictional_universe.fictional_character", "visual_art.artwork", "theater.play",
    "olympics.olympic_games", "soccer.football_player", "chemistry.chemical_compound",
    "astronomy.star", "law.court", "aviation.airport", "business.brand",
]
# CVT (mediator) types: (type, predicate from the host entity to the CVT, role predicates)
CVT_TYPES = [
    ("film.performance", "film.film.starring",
     ["film.performance.actor", "film.performance.character", "film.performance.special_performance_type"]),
    ("tv.regular_tv_appearance", "tv.tv_program.regular_cast",
     ["tv.regular_tv_appearance.actor", "tv.regular_tv_appearance.character", "tv.regular_tv_appearance.seasons"]),
    ("sports.sports_team_roster", "sports.sports_team.roster",
     ["sports.sports_team_roster.player", "sports.sports_team_roster.position"]),
    ("people.marriage", "people.person.spouse_s",
     ["people.marriage.spouse", "people.marriage.location_of_ceremony", "people.marriage.type_of_union"]),
    ("education.education", "people.person.education",
     ["education.education.institution", "education.education.degree", "education.education.major_field_of_study"]),
    ("government.government_position_held", "government.politician.government_positions_held",
     ["government.government_position_held.office_holder", "government.government_position_held.jurisdiction_of_office",
      "government.government_position_held.governmental_body"]),
    ("award.award_nomination", "award.award_nominee.award_nominations",
     ["award.award_nomination.award", "award.award_nomination.ceremony", "award.award_nomination.nominated_for"]),
    ("location.mailing_address", "organization.organization.headquarters",
     ["location.mailing_address.citytown", "location.mailing_address.country"]),
]
# Literal predicates and their datatype (dates, years, integers, decimals).
LITERAL_PREDICATES = [
    ("people.person.date_of_birth", "xsd:date"), ("people.deceased_person.date_of_death", "xsd:date"),
    ("film.film.initial_release_date", "xsd:date"), ("music.album.release_date", "xsd:date"),
    ("organization.organization.date_founded", "xsd:date"), ("book.written_work.date_of_first_publication", "xsd:date"),
    ("sports.pro_athlete.career_start", "xsd:gYear"), ("tv.tv_program.air_date_of_first_episode", "xsd:gYear"),
    ("location.location.population", "xsd:integer"), ("film.film.runtime_minutes", "xsd:integer"),
    ("business.company.number_of_employees", "xsd:integer"), ("people.person.height_meters", "xsd:float"),
    ("location.location.area", "xsd:float"), ("award.award.prize_money", "xsd:float"),
]
_DT_CODES = ["xsd:date", "xsd:gYear", "xsd:integer", "xsd:float"]
N_PREDICATES = 300
DUPLICATE_FRACTION = 0.01  # repeated fact rows, as real dumps have; import dedupes them


@dataclass
class GenInfo:
    """What was generated (counts are stage rows unless said otherwise)."""

    entities: int
    named: int
    cvt: int
    entity_rows: int
    fact_rows: int
    facts_distinct: int
    entity_facts: int
    cvt_facts: int
    literal_facts: int
    literals: int
    predicates: int
    cvt_types: int
    names_distinct: int
    names_shared: int
    aliases: int
    max_degree: int
    degree_p50: float
    degree_p99: float
    hubs_100k: int
    seconds: float = 0.0
    stage_mb: float = 0.0
    named_ids: list[str] = field(default_factory=list, repr=False)
    names: list[str] = field(default_factory=list, repr=False)
    shared_names: list[str] = field(default_factory=list, repr=False)

    def public(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items()
                if k not in ("named_ids", "names", "shared_names")}


def _mids(n: int, seed: int) -> pa.Array:
    """``n`` distinct Freebase-style MIDs (``m.0`` + base-32 chars), a seeded bijection of
    0..n-1 so ids are not in degree order."""
    width = 4
    while 32 ** width < 2 * n:
        width += 1
    space = 32 ** width
    mult = (0x9E3779B97F4A7C15 + 2 * seed) % space | 1  # odd -> bijective mod 2**k
    add = (seed * 7919 + 0x5BD1E995) % space
    codes = (np.arange(n, dtype=np.uint64) * np.uint64(mult) + np.uint64(add)) % np.uint64(space)
    chars = np.empty((n, 3 + width), dtype=np.uint8)
    chars[:, 0:3] = np.frombuffer(b"m.0", dtype=np.uint8)
    for i in range(width):
        chars[:, 3 + width - 1 - i] = MID_ALPHABET[(codes >> np.uint64(5 * i)) & np.uint64(31)]
    raw = chars.view(f"S{3 + width}").ravel()
    return pa.array(raw, type=pa.binary(3 + width)).cast(pa.string())


def _zipf_cdf(n: int, s: float) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** s
    c = np.cumsum(w)
    return c / c[-1]


def _draw(rng: np.random.Generator, cdf: np.ndarray, k: int) -> np.ndarray:
    return np.minimum(np.searchsorted(cdf, rng.random(k), side="right"), len(cdf) - 1)


def _syllable_words(values: np.ndarray, digits: int, capital: bool) -> pa.Array:
    """Pronounceable words: ``values`` written in base len(SYLLABLES)."""
    base = len(SYLLABLES)
    syl = pa.array(SYLLABLES)
    cap = pa.array([s.capitalize() for s in SYLLABLES])
    parts = []
    v = values.astype(np.int64)
    for i in range(digits):
        d = pa.array(v % base)
        v = v // base
        parts.append((cap if capital and i == 0 else syl).take(d))
    return pc.binary_join_element_wise(*parts, "")


def _names(u: np.ndarray) -> pa.Array:
    """Distinct two-word names for distinct non-negative integers ``u``."""
    base2 = len(SYLLABLES) ** 2
    first = _syllable_words(u % base2, 2, True)
    last = _syllable_words(u // base2, 3, True)
    return pc.binary_join_element_wise(first, last, " ")


def _predicate_names(rng: np.random.Generator, k: int, taken: set[str]) -> list[str]:
    out: list[str] = []
    seen = set(taken)
    while len(out) < k:
        d = DOMAINS[int(rng.integers(len(DOMAINS)))]
        t = WORDS[int(rng.integers(len(WORDS)))]
        p = WORDS[int(rng.integers(len(WORDS)))]
        name = f"{d}.{t}.{p}"
        if name not in seen and t != p:
            seen.add(name)
            out.append(name)
    return out


def _list_array(offsets: np.ndarray, values: pa.Array) -> pa.Array:
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values)


def _write_parts(table: pa.Table, directory: Path) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    parts = 0
    for start in range(0, max(table.num_rows, 1), PART_ROWS):
        chunk = table.slice(start, PART_ROWS)
        if chunk.num_rows == 0 and parts:
            break
        pq.write_table(chunk, directory / f"part-{parts:05d}.parquet", compression="zstd")
        parts += 1
    return parts


def _unique_keys(keys: np.ndarray, want: int) -> np.ndarray:
    """Indices of the first ``want`` first-occurrences of distinct ``keys``, in order."""
    _, first = np.unique(keys, return_index=True)
    first.sort()
    return first[:want]


def generate_kg(
    stage: str | Path,
    *,
    entities: int,
    facts: int,
    cvt_fraction: float = 0.05,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> GenInfo:
    """Write a synthetic Freebase-like KG as a complete stage directory. Deterministic:
    the same arguments give byte-identical Parquet files."""
    started = time.perf_counter()
    say = progress or (lambda _msg: None)
    stage = Path(stage)
    if stage.exists():
        shutil.rmtree(stage)
    rng = np.random.default_rng(seed)
    n_cvt = int(round(entities * cvt_fraction))
    n_named = entities - n_cvt
    if n_named < 10:
        raise ValueError("need at least 10 named entities")
    ids = _mids(entities, seed)   # 0..n_named-1 named, then CVTs

    # -- predicates -------------------------------------------------------------------
    say("predicates")
    cvt_preds = [h for _, h, _ in CVT_TYPES] + [r for _, _, rs in CVT_TYPES for r in rs]
    cvt_date_preds = [f"{t}.from" for t, _, _ in CVT_TYPES]
    lit_preds = [p for p, _ in LITERAL_PREDICATES] + cvt_date_preds
    fixed = cvt_preds + lit_preds
    ent_preds = _predicate_names(rng, max(10, N_PREDICATES - len(fixed)), set(fixed))
    all_preds = ent_preds + fixed
    pred_index = {p: i for i, p in enumerate(all_preds)}
    n_pred = len(all_preds)

    # -- budget -------------------------------------------------------------------
    n_lit_facts = int(round(0.10 * facts))
    k_cvt = rng.integers(2, 5, size=n_cvt)             # named entities linked per CVT
    n_cvt_facts = int(k_cvt.sum())
    n_cvt_lit = min(int(round(0.3 * n_cvt)), n_lit_facts // 2)
    n_ent_facts = facts - n_lit_facts - n_cvt_facts
    if n_ent_facts <= 0:
        raise ValueError("too few facts for this many CVTs; raise --facts or lower --cvt-fraction")

    # Degree model: a seeded hub ranking of named entities; objects are drawn with a
    # steep Zipf (countries, genders, languages: hubs with 100k+ edges), subjects with a
    # flatter one, so most entities keep a handful of edges.
    hub_order = rng.permutation(n_named)
    obj_cdf = _zipf_cdf(n_named, 1.05)
    sub_cdf = _zipf_cdf(n_named, 0.6)
    pred_cdf = _zipf_cdf(len(ent_preds), 1.1)

    # -- entity-entity facts ------------------------------------------------------------
    say("entity facts")
    subj = np.empty(0, dtype=np.int64)
    obj = np.empty(0, dtype=np.int64)
    pred = np.empty(0, dtype=np.int64)
    while len(subj) < n_ent_facts:
        k = int((n_ent_facts - len(subj)) * 1.05) + 16
        s = hub_order[_draw(rng, sub_cdf, k)]
        o = hub_order[_draw(rng, obj_cdf, k)]
        p = _draw(rng, pred_cdf, k)
        keep = s != o
        subj = np.concatenate([subj, s[keep]])
        obj = np.concatenate([obj, o[keep]])
        pred = np.concatenate([pred, p[keep]])
        keys = (subj * n_pred + pred) * entities + obj
        first = _unique_keys(keys, n_ent_facts)
        subj, obj, pred = subj[first], obj[first], pred[first]

    # -- CVT facts: host --host_pred--> cvt --role--> named ------------------------------
    say("CVT facts")
    cvt_type = rng.integers(0, len(CVT_TYPES), size=n_cvt)
    cvt_ids = np.arange(n_named, entities, dtype=np.int64)
    host = hub_order[_draw(rng, sub_cdf, n_cvt)]
    host_pred = np.array([pred_index[CVT_TYPES[t][1]] for t in range(len(CVT_TYPES))])[cvt_type]
    c_subj = [host]
    c_obj = [cvt_ids]
    c_pred = [host_pred]
    for role in range(3):  # up to 3 role edges (k_cvt - 1 of them)
        has = k_cvt - 1 > role
        roles = [CVT_TYPES[t][2] for t in range(len(CVT_TYPES))]
        role_pred = np.array([pred_index[r[role % len(r)]] for r in roles])[cvt_type[has]]
        c_subj.append(cvt_ids[has])
        c_obj.append(hub_order[_draw(rng, obj_cdf, int(has.sum()))])
        c_pred.append(role_pred)
    cvt_subj = np.concatenate(c_subj)
    cvt_obj = np.concatenate(c_obj)
    cvt_pred = np.concatenate(c_pred)
    # two roles of one CVT may draw the same (predicate, object): keep one
    cfirst = _unique_keys((cvt_subj * n_pred + cvt_pred) * entities + cvt_obj, len(cvt_subj))
    cvt_subj, cvt_obj, cvt_pred = cvt_subj[cfirst], cvt_obj[cfirst], cvt_pred[cfirst]

    # -- literal facts ------------------------------------------------------------------
    say("literal facts")
    n_named_lit = n_lit_facts - n_cvt_lit
    lp_cdf = _zipf_cdf(len(LITERAL_PREDICATES), 0.8)
    l_subj = np.concatenate([
        hub_order[_draw(rng, sub_cdf, n_named_lit)],
        n_named + rng.choice(n_cvt, size=n_cvt_lit, replace=False) if n_cvt_lit else
        np.empty(0, dtype=np.int64),
    ])
    lp_local = _draw(rng, lp_cdf, n_named_lit)
    cvt_of_lit = l_subj[n_named_lit:] - n_named
    l_pred = np.concatenate([
        np.array([pred_index[p] for p, _ in LITERAL_PREDICATES])[lp_local],
        np.array([pred_index[p] for p in cvt_date_preds])[cvt_type[cvt_of_lit]],
    ])
    dt_of_pred = np.array([_DT_CODES.index(d) for _, d in LITERAL_PREDICATES])
    l_dt = np.concatenate([dt_of_pred[lp_local], np.zeros(n_cvt_lit, dtype=np.int64)])
    n_l = len(l_subj)
    raw = np.empty(n_l, dtype=np.int64)
    for code, draw in (
        (0, lambda k: rng.integers(0, 120_000, size=k)),                  # days since 1700
        (1, lambda k: rng.integers(1500, 2025, size=k)),                  # years
        (2, lambda k: np.minimum(np.exp(rng.normal(7, 3, size=k)), 1e12).astype(np.int64)),
        (3, lambda k: rng.integers(1, 1_000_000, size=k)),                # cents
    ):
        m = l_dt == code
        raw[m] = draw(int(m.sum()))
    lit_code = l_dt * (1 << 48) + raw
    uniq, lit_of_fact = np.unique(lit_code, return_inverse=True)
    u_dt = uniq >> 48
    u_raw = uniq & ((1 << 48) - 1)
    values = np.empty(len(uniq), dtype=object)
    m = u_dt == 0
    values[m] = (np.datetime64("1700-01-01") + u_raw[m].astype("timedelta64[D]")).astype(str)
    m = u_dt == 1
    values[m] = u_raw[m].astype(str)
    m = u_dt == 2
    values[m] = u_raw[m].astype(str)
    m = u_dt == 3
    values[m] = np.char.mod("%.2f", u_raw[m] / 100.0)
    dts = [_DT_CODES[int(c)] for c in u_dt]
    vals = [str(v) for v in values]
    lit_keys = [literal_key(v, d, None) for v, d in zip(vals, dts, strict=True)]
    literals = pa.table(
        {"id": pa.array(lit_keys), "value": pa.array(vals), "datatype": pa.array(dts),
         "lang": pa.nulls(len(vals), pa.string())},
        schema=SCHEMAS["literals"],
    )
    lit_key_arr = pa.array(lit_keys)
    # distinct (subject, predicate, literal)
    lkeys = (l_subj * n_pred + l_pred) * len(uniq) + lit_of_fact
    lfirst = _unique_keys(lkeys, n_l)
    l_subj, l_pred, lit_of_fact = l_subj[lfirst], l_pred[lfirst], lit_of_fact[lfirst]

    # -- facts table (entity + CVT + literal, duplicates, shuffled) ----------------------
    say("facts table")
    preds_arr = pa.array(all_preds)
    e_s = np.concatenate([subj, cvt_subj])
    e_o = np.concatenate([obj, cvt_obj])
    e_p = np.concatenate([pred, cvt_pred])
    n_e = len(e_s)
    n_distinct = n_e + len(l_subj)
    n_dup = int(round(DUPLICATE_FRACTION * n_distinct))
    dup = rng.integers(0, n_distinct, size=n_dup)
    order = rng.permutation(n_distinct + n_dup)
    rows = np.concatenate([np.arange(n_distinct), dup])[order]
    is_lit = rows >= n_e
    all_s = np.concatenate([e_s, l_subj])[rows]
    all_p = np.concatenate([e_p, l_pred])[rows]
    ent_obj = ids.take(pa.array(np.where(is_lit, 0, np.concatenate([e_o, np.zeros(len(l_subj), np.int64)])[rows])))
    lit_obj = lit_key_arr.take(pa.array(np.where(is_lit, np.concatenate([np.zeros(n_e, np.int64), lit_of_fact])[rows], 0)))
    is_lit_arr = pa.array(is_lit)
    facts_tbl = pa.table(
        {
            "subject": ids.take(pa.array(all_s)),
            "predicate": preds_arr.take(pa.array(all_p)),
            "object": pc.if_else(is_lit_arr, lit_obj, ent_obj),
            "object_kind": pc.if_else(is_lit_arr, "L", "E"),
            "seq": pa.array(np.arange(len(rows), dtype=np.int64) + entities * 2 + 1),
        },
        schema=SCHEMAS["facts"],
    )

    # -- names: ~3% of distinct names shared by 2-5 entities ------------------------------
    say("names")
    est = int(n_named / 1.06) + 16
    sizes = np.where(rng.random(est) < 0.03, rng.integers(2, 6, size=est), 1)
    while sizes.sum() < n_named:
        sizes = np.concatenate([sizes, np.ones(n_named, dtype=sizes.dtype)])
    cut = int(np.searchsorted(np.cumsum(sizes), n_named))
    sizes = sizes[: cut + 1]
    name_of = np.repeat(np.arange(len(sizes)), sizes)[:n_named]
    name_of = name_of[rng.permutation(n_named)]
    n_names = int(name_of.max()) + 1
    # a seeded bijection into the name space (multiplier coprime with 48**5)
    space = len(SYLLABLES) ** 5
    name_codes = (np.arange(n_names, dtype=np.int64) * 7_368_787 + seed * 104_729 + 11) % space
    distinct_names = _names(name_codes)
    names = distinct_names.take(pa.array(name_of))
    shared_sizes = np.bincount(name_of, minlength=n_names)
    shared_idx = np.nonzero(shared_sizes > 1)[0]

    # aliases: 15% "Last, First"; 5% also the first word alone (a popular, shared alias)
    first_word = pc.utf8_split_whitespace(names, max_splits=1)
    fw = pc.list_element(first_word, 0)
    lw = pc.list_element(first_word, 1)
    a1 = rng.random(n_named) < 0.15
    a2 = a1 & (rng.random(n_named) < 0.33)
    alias_count = a1.astype(np.int64) + a2.astype(np.int64)
    alias_vals = pc.binary_join_element_wise(lw, fw, ", ")
    idx1 = np.nonzero(a1)[0]
    # interleave per entity: [alias1, alias2?]
    pos = np.concatenate([[0], np.cumsum(alias_count)])
    flat = np.empty(int(alias_count.sum()), dtype=np.int64)
    kind = np.empty(int(alias_count.sum()), dtype=np.int64)
    flat[pos[idx1]] = idx1
    kind[pos[idx1]] = 0
    idx2 = np.nonzero(a2)[0]
    flat[pos[idx2] + 1] = idx2
    kind[pos[idx2] + 1] = 1
    alias_flat = pc.if_else(pa.array(kind == 0), alias_vals.take(pa.array(flat)),
                            fw.take(pa.array(flat)))
    named_aliases = _list_array(pos, alias_flat)

    # types: common.topic + a Zipf primary type on the main row; 25% get a secondary type
    # in a second, partial row (as a dump-derived stage has several rows per entity)
    t_cdf = _zipf_cdf(len(ENTITY_TYPES), 0.9)
    types_arr = pa.array(ENTITY_TYPES)
    prim = types_arr.take(pa.array(_draw(rng, t_cdf, n_named)))
    tpos = np.arange(0, 2 * n_named + 1, 2)
    tflat = pc.if_else(pa.array(np.tile([True, False], n_named)),
                       pa.array(["common.topic"] * (2 * n_named)),
                       prim.take(pa.array(np.repeat(np.arange(n_named), 2))))
    named_types = _list_array(tpos, tflat)
    has_desc = rng.random(n_named) < 0.2
    desc = pc.if_else(pa.array(has_desc),
                      pc.binary_join_element_wise("A synthetic", prim, "entity.", " "),
                      pa.nulls(n_named, pa.string()))
    second = np.nonzero(rng.random(n_named) < 0.25)[0]
    sec_types = types_arr.take(pa.array(_draw(rng, t_cdf, len(second))))

    say("entities table")
    cvt_type_arr = pa.array([t for t, _, _ in CVT_TYPES]).take(pa.array(cvt_type))
    null_s = pa.nulls
    entity_tbl = pa.concat_tables([
        pa.table({
            "id": ids.slice(0, n_named), "name": names, "aliases": named_aliases,
            "types": named_types, "is_cvt": null_s(n_named, pa.bool_()), "description": desc,
            "seq": pa.array(np.arange(n_named, dtype=np.int64) + 1),
        }, schema=SCHEMAS["entities"]),
        pa.table({
            "id": ids.take(pa.array(second)), "name": null_s(len(second), pa.string()),
            "aliases": _list_array(np.zeros(len(second) + 1, np.int64), pa.array([], pa.string())),
            "types": _list_array(np.arange(len(second) + 1), sec_types),
            "is_cvt": null_s(len(second), pa.bool_()),
            "description": null_s(len(second), pa.string()),
            "seq": pa.array(np.arange(len(second), dtype=np.int64) + n_named + 1),
        }, schema=SCHEMAS["entities"]),
        pa.table({
            "id": ids.slice(n_named), "name": null_s(n_cvt, pa.string()),
            "aliases": _list_array(np.zeros(n_cvt + 1, np.int64), pa.array([], pa.string())),
            "types": _list_array(np.arange(n_cvt + 1), cvt_type_arr),
            "is_cvt": null_s(n_cvt, pa.bool_()), "description": null_s(n_cvt, pa.string()),
            "seq": pa.array(np.arange(n_cvt, dtype=np.int64) + n_named + len(second) + 1),
        }, schema=SCHEMAS["entities"]),
    ])
    labels = [p.rsplit(".", 1)[1].replace("_", " ") for p in all_preds]
    pred_tbl = pa.table({"id": all_preds, "label": labels}, schema=SCHEMAS["predicates"])
    cvt_tbl = pa.table({"type": [t for t, _, _ in CVT_TYPES]}, schema=SCHEMAS["cvt_types"])

    say("writing Parquet")
    tables = {"entities": entity_tbl, "facts": facts_tbl, "literals": literals,
              "predicates": pred_tbl, "cvt_types": cvt_tbl}
    parts = {name: _write_parts(t, stage / name) for name, t in tables.items()}
    counts = {name: t.num_rows for name, t in tables.items()}
    # Every part with its size and SHA-256, as StageWriter lists them: a stage that
    # `kgbench store export-neo4j` (which verifies them) accepts too.
    files = {name: [{"name": f.name, "bytes": f.stat().st_size,
                     "sha256": hashlib.sha256(f.read_bytes()).hexdigest()}
                    for f in sorted((stage / name).glob("*.parquet"))] for name in tables}
    manifest = {
        "layout": LAYOUT_VERSION, "complete": True, "counts": counts, "parts": parts,
        "files": files, "extra": {"generator": "bench/store_bench.py", "seed": seed, "entities": entities,
                  "facts": facts, "cvt_fraction": cvt_fraction},
    }
    (stage / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))

    degree = np.bincount(np.concatenate([e_s, e_o, l_subj]), minlength=entities)
    named_degree = degree[:n_named]
    info = GenInfo(
        entities=entities, named=n_named, cvt=n_cvt, entity_rows=entity_tbl.num_rows,
        fact_rows=facts_tbl.num_rows, facts_distinct=n_distinct, entity_facts=len(subj),
        cvt_facts=len(cvt_subj), literal_facts=len(l_subj), literals=literals.num_rows,
        predicates=n_pred, cvt_types=len(CVT_TYPES), names_distinct=n_names,
        names_shared=len(shared_idx), aliases=int(alias_count.sum()),
        max_degree=int(degree.max()), degree_p50=float(np.percentile(named_degree, 50)),
        degree_p99=float(np.percentile(named_degree, 99)),
        hubs_100k=int((degree >= 100_000).sum()),
        seconds=round(time.perf_counter() - started, 3),
        stage_mb=round(_du(stage)[1] / 2**20, 1),
        named_ids=ids.slice(0, n_named).to_pylist(),
        names=names.to_pylist(),
        shared_names=distinct_names.take(pa.array(shared_idx)).to_pylist(),
    )
    return info


def stage_hashes(stage: str | Path) -> dict[str, str]:
    """sha256 of every file of a stage, by relative path (determinism check)."""
    root = Path(stage)
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


def _du(path: Path) -> tuple[int, int]:
    """(bytes allocated on disk, apparent bytes) under ``path``."""
    blocks = apparent = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            st = os.lstat(os.path.join(root, f))
            blocks += st.st_blocks * 512
            apparent += st.st_size
    return blocks, apparent


# --------------------------------------------------------------------------------------
# 2. Ingest in a child process (clean peak-RSS measurement)
# --------------------------------------------------------------------------------------


def _peak_rss_kb() -> int:
    """This process's peak RSS in KiB. VmHWM belongs to the current address space, so
    it starts afresh at exec; ``ru_maxrss`` does not (Linux carries the forking parent's
    peak over exec, which would charge the benchmark's own memory to the ingest)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _ingest_child(argv: list[str]) -> int:
    """``--ingest-child STAGE STORE RESULT``: open + import + close, report as JSON."""
    stage, store_dir, result_path = argv
    import psutil

    from kgstore import open_store

    rss_start = psutil.Process().memory_info().rss

    def progress(step: str, done: int, total: int | None) -> None:
        print(f"PROGRESS {done} {total} {step}", flush=True)

    t0 = time.perf_counter()
    store = open_store(str(store_dir), create=True)
    t1 = time.perf_counter()
    report = store.import_stage(stage, progress=progress)
    t2 = time.perf_counter()
    # The peak so far is the ingest's; what follows (stats() scans the store) is not.
    maxrss_import_kb = _peak_rss_kb()
    print("IMPORT_DONE", flush=True)
    rss_after_import = psutil.Process().memory_info().rss
    stats = store.stats()
    store.close()
    t3 = time.perf_counter()
    maxrss_kb = _peak_rss_kb()
    Path(result_path).write_text(json.dumps({
        "open_seconds": t1 - t0, "import_seconds": t2 - t1, "close_seconds": t3 - t2,
        "report": asdict(report),
        "stats": {k: v for k, v in asdict(stats).items() if k not in ("sources", "location")},
        "maxrss_mb": maxrss_import_kb / 1024, "maxrss_incl_stats_mb": maxrss_kb / 1024,
        "rss_start_mb": rss_start / 2**20,
        "rss_after_import_mb": rss_after_import / 2**20,
    }))
    return 0


def run_ingest(stage: Path, store_dir: Path, work: Path,
               on_progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    import psutil

    result_path = work / "ingest_result.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--ingest-child",
         str(stage), str(store_dir), str(result_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(REPO),
    )
    stderr_lines: list[str] = []
    import_done = threading.Event()

    def pump_out() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("PROGRESS ") and on_progress:
                on_progress(line.split(" ", 3)[3].strip())
            elif line.startswith("IMPORT_DONE"):
                import_done.set()

    def pump_err() -> None:
        assert proc.stderr is not None
        stderr_lines.extend(proc.stderr)

    threads = [threading.Thread(target=pump_out, daemon=True),
               threading.Thread(target=pump_err, daemon=True)]
    for t in threads:
        t.start()
    sampled_peak = 0
    try:
        ps = psutil.Process(proc.pid)
        while proc.poll() is None and not import_done.is_set():
            try:
                sampled_peak = max(sampled_peak, ps.memory_info().rss)
            except psutil.Error:
                pass
            time.sleep(0.05)
    except psutil.Error:
        pass
    rc = proc.wait()
    for t in threads:
        t.join(timeout=5)
    wall = time.perf_counter() - started
    if rc != 0:
        raise RuntimeError(f"ingest child failed (rc={rc}):\n{''.join(stderr_lines)[-4000:]}")
    result = json.loads(result_path.read_text())
    result["child_wall_seconds"] = wall
    result["sampled_peak_rss_mb"] = sampled_peak / 2**20
    return result


# --------------------------------------------------------------------------------------
# 4. networkx baseline
# --------------------------------------------------------------------------------------


def _name_keys(values: pa.Array | pa.ChunkedArray) -> list[str | None]:
    """normalize_name over an Arrow string array (None stays None)."""
    try:
        from kgstore.models import normalize_names  # vectorised, where available
    except ImportError:
        return [None if v is None else normalize_name(v) for v in values.to_pylist()]
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    return normalize_names(arr).to_pylist()


class NetworkxKG:
    """The same graph in a networkx MultiDiGraph (edge key = predicate) plus a dict
    name -> ids, with the Store methods the benchmark times (same semantics)."""

    def __init__(self, stage: Path) -> None:
        import duckdb
        import networkx as nx

        db = duckdb.connect()
        db.execute("SET preserve_insertion_order = true")
        manifest = read_manifest(stage)

        def glob(table: str) -> str:
            """The listed parts of ``table``, as quoted literals (paths are not SQL)."""
            files = [sql_str(duckdb_read_path(f)) for f in staged_parts(stage, manifest, table)]
            return f"read_parquet([{', '.join(files)}])"

        cvt_types = [r[0] for r in db.execute(f"SELECT DISTINCT type FROM {glob('cvt_types')}").fetchall()]
        # Entity rows merged exactly as import_stage merges them (first name by seq,
        # union of aliases/types, CVT by type), then facts deduplicated.
        db.execute(
            "CREATE TABLE ents AS SELECT id, "
            "arg_min(name, seq) FILTER (WHERE name IS NOT NULL) AS name, "
            "list_sort(list_distinct(flatten(list(aliases)))) AS aliases, "
            "list_sort(list_distinct(flatten(list(types)))) AS types, "
            "coalesce(bool_or(is_cvt), false) AS is_cvt, "
            "arg_min(description, seq) FILTER (WHERE description IS NOT NULL) AS description "
            f"FROM {glob('entities')} GROUP BY id ORDER BY id"
        )
        db.execute("UPDATE ents SET is_cvt = true WHERE list_has_any(types, ?::VARCHAR[])",
                   [cvt_types])
        ents = db.sql("SELECT * FROM ents ORDER BY id").to_arrow_table()
        db.execute("CREATE TABLE eidx AS SELECT id, (row_number() OVER (ORDER BY id) - 1)::BIGINT "
                   "AS i FROM ents")
        lits = db.sql(f"SELECT DISTINCT ON (id) id, value, datatype, lang FROM {glob('literals')} "
                          "ORDER BY id").to_arrow_table()
        db.execute("CREATE TABLE lidx AS SELECT id, (row_number() OVER (ORDER BY id) - 1)::BIGINT AS i "
                   f"FROM (SELECT DISTINCT id FROM {glob('literals')})")
        facts = db.sql(
            "SELECT s.i AS s, f.predicate AS p, coalesce(eo.i, lo.i) AS o, f.object_kind = 'L' AS lit "
            f"FROM (SELECT DISTINCT subject, predicate, object, object_kind FROM {glob('facts')}) f "
            "JOIN eidx s ON s.id = f.subject "
            "LEFT JOIN eidx eo ON f.object_kind = 'E' AND eo.id = f.object "
            "LEFT JOIN lidx lo ON f.object_kind = 'L' AND lo.id = f.object "
            # a pseudo-random adjacency order, like the store's (COPY of a hashed
            # DISTINCT); sorted input would make capped walks from different hubs
            # keep the same low-id neighbours
            "ORDER BY hash(f.subject, f.predicate, f.object)"
        ).to_arrow_table()
        db.close()

        ids: list[str] = ents["id"].to_pylist()
        self._literals: dict[str, Literal] = {}
        lit_ids: list[str] = lits["id"].to_pylist()
        for key, value, dt, lang in zip(lit_ids, lits["value"].to_pylist(),
                                        lits["datatype"].to_pylist(), lits["lang"].to_pylist(),
                                        strict=True):
            self._literals[key] = Literal(value, dt, lang)
        g = nx.MultiDiGraph()
        names = ents["name"].to_pylist()
        aliases = ents["aliases"].to_pylist()
        types = ents["types"].to_pylist()
        is_cvt = ents["is_cvt"].to_pylist()
        descs = ents["description"].to_pylist()
        # Name keys: the library's vectorised normaliser where it has one (the import
        # uses it too), else the scalar one.
        name_keys, alias_keys = _name_keys(ents["name"]), _name_keys(pc.list_flatten(ents["aliases"]))
        alias_off = ents["aliases"].combine_chunks().offsets.to_pylist()
        alias_off = [o - alias_off[0] for o in alias_off]
        interned: dict[str, str] = {}
        self.by_name: dict[str, list[str]] = {}
        for i, eid in enumerate(ids):
            al = tuple(interned.setdefault(a, a) for a in aliases[i])
            ty = tuple(interned.setdefault(t, t) for t in types[i])
            g.add_node(eid, name=names[i], is_cvt=bool(is_cvt[i]), aliases=al, types=ty,
                       description=descs[i])
            keys = set(alias_keys[alias_off[i]:alias_off[i + 1]])
            keys.add(name_keys[i])
            for k in keys:
                if k:
                    self.by_name.setdefault(k, []).append(eid)
        for lst in self.by_name.values():
            lst.sort()
        for key in lit_ids:
            g.add_node(key, literal=self._literals[key])
        preds = [interned.setdefault(p, p) for p in facts["p"].to_pylist()]
        subj = facts["s"].to_numpy()
        objs = facts["o"].to_numpy()
        lit = facts["lit"].to_numpy(zero_copy_only=False)
        empty: dict[str, Any] = {}
        g.add_edges_from(
            (ids[s], lit_ids[o] if lt else ids[o], p, empty)
            for s, p, o, lt in zip(subj.tolist(), preds, objs.tolist(), lit.tolist(), strict=True)
        )
        self.g = g
        self.n_facts = facts.num_rows

    # -- the Store methods the benchmark uses -------------------------------------------
    def entity(self, id: str) -> Entity | None:
        attrs = self.g._node.get(id)
        if attrs is None or "literal" in attrs:
            return None
        return Entity(id, attrs["name"], attrs["aliases"], attrs["types"], attrs["is_cvt"],
                      attrs["description"])

    def entities(self, ids: Iterable[str]) -> dict[str, Entity]:
        found: dict[str, Entity] = {}
        for id in dict.fromkeys(ids):
            e = self.entity(id)
            if e is not None:
                found[id] = e
        return found

    def find_by_name(self, name: str, *, limit: int = 50) -> list[Entity]:
        out = []
        for id in self.by_name.get(normalize_name(name), ())[:limit]:
            e = self.entity(id)
            if e is not None:
                out.append(e)
        return out

    # Adjacency in the order LadybugStore reads it: facts to entities, facts from
    # entities (each up to limit + 1), then facts to literals if there is room.
    def _out_entities(self, id: str, n: int) -> list[Fact]:
        out: list[Fact] = []
        for v, keydict in self.g._succ[id].items():
            if v in self._literals:
                continue
            for key in keydict:
                out.append(Fact(id, key, v))
                if len(out) >= n:
                    return out
        return out

    def _out_literals(self, id: str, n: int) -> list[Fact]:
        out: list[Fact] = []
        for v, keydict in self.g._succ[id].items():
            lit = self._literals.get(v)
            if lit is None:
                continue
            for key in keydict:
                out.append(Fact(id, key, lit))
                if len(out) >= n:
                    return out
        return out

    def _in(self, id: str, n: int) -> list[Fact]:
        out: list[Fact] = []
        for u, keydict in self.g._pred[id].items():
            for key in keydict:
                out.append(Fact(u, key, id))
                if len(out) >= n:
                    return out
        return out

    def facts_around(self, id: str, *, limit: int) -> tuple[list[Fact], bool]:
        """``Store.facts_around``: up to ``limit`` facts out of and into ``id`` and
        whether more exist."""
        if id not in self.g._succ or "literal" in self.g._node[id]:
            return [], False
        facts = self._out_entities(id, limit + 1) + self._in(id, limit + 1)
        if len(facts) <= limit:
            facts += self._out_literals(id, limit + 1 - len(facts))
        return facts[:limit], len(facts) > limit

    def adjacency(self, id: str, *, limit: int) -> Any:
        """``Store.adjacency``: :meth:`facts_around` plus the entities at the other
        ends of the kept facts (what :func:`kgstore.algorithms.subgraph.neighborhood` walks on)."""
        from kgstore.models import Adjacency

        facts, more = self.facts_around(id, limit=limit)
        others = [f.subject if f.subject != id else f.object_key for f in facts
                  if not (f.subject == id and f.is_literal)]
        return Adjacency(facts=facts, entities=self.entities(others), truncated=more)

    def neighborhood(self, ids: str | Iterable[str], *, hops: int = 1, **caps: Any) -> Any:
        from kgstore.algorithms import subgraph

        return subgraph.neighborhood(self, ids, hops=hops, **caps)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# 3. Latency measurement
# --------------------------------------------------------------------------------------


@dataclass
class Workload:
    ids: list[str]
    names: list[str]
    warm_ids: list[str]
    warm_names: list[str]


def make_workload(info: GenInfo, queries: int, warmup: int, seed: int) -> Workload:
    rng = np.random.default_rng([seed, 1])
    n = len(info.named_ids)
    pick = rng.integers(0, n, size=queries + warmup)
    ids = [info.named_ids[i] for i in pick]
    # by-name: the names of random entities (shared ones occur in proportion), plus a
    # fifth drawn from the shared names so ambiguous lookups are well represented; some
    # are re-cased / padded to exercise normalisation.
    names = [info.names[i] for i in rng.integers(0, n, size=queries + warmup)]
    if info.shared_names:
        for j in np.nonzero(rng.random(len(names)) < 0.2)[0]:
            names[j] = info.shared_names[int(rng.integers(len(info.shared_names)))]
    for j in np.nonzero(rng.random(len(names)) < 0.1)[0]:
        names[j] = "  " + names[j].upper() + " "
    return Workload(ids[warmup:], names[warmup:], ids[:warmup], names[:warmup])


def _ops(target: Any) -> dict[str, Callable[[str], Any]]:
    return {
        "entity": lambda x: target.entity(x),
        "by_name": lambda x: target.find_by_name(x),
        "1hop": lambda x: target.neighborhood(x, hops=1),
        "2hop": lambda x: target.neighborhood(x, hops=2),
    }


def measure(target: Any, wl: Workload, label: str, progress: Any) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """Per-op latency stats (ms) and the per-query results (for agreement checks).

    Objects alive before the run are frozen out of the garbage collector, so neither
    side pays for full collections scanning the millions of objects of the networkx
    graph or of the generator's id lists (they showed as multi-ms p99 spikes)."""
    gc.collect()
    gc.freeze()
    try:
        return _measure(target, wl, label, progress)
    finally:
        gc.unfreeze()


def _measure(target: Any, wl: Workload, label: str, progress: Any) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    stats: dict[str, Any] = {}
    results: dict[str, list[Any]] = {}
    for op, fn in _ops(target).items():
        args, warm = (wl.names, wl.warm_names) if op == "by_name" else (wl.ids, wl.warm_ids)
        for a in warm:
            fn(a)
        task = progress.add_task(f"{label}: {op}", total=len(args)) if progress else None
        times = np.empty(len(args))
        out = []
        for i, a in enumerate(args):
            t0 = time.perf_counter_ns()
            r = fn(a)
            times[i] = (time.perf_counter_ns() - t0) / 1e6
            out.append(r)
            if task is not None and (i % 10 == 9 or i == len(args) - 1):
                progress.update(task, completed=i + 1)
        stats[op] = _summary(times)
        if op in ("1hop", "2hop"):
            stats[op]["mean_facts"] = round(float(np.mean([len(r.facts) for r in out])), 1)
            stats[op]["mean_entities"] = round(float(np.mean([len(r.entities) for r in out])), 1)
            stats[op]["truncated_fraction"] = round(float(np.mean([r.truncated for r in out])), 3)
        elif op == "by_name":
            stats[op]["mean_hits"] = round(float(np.mean([len(r) for r in out])), 2)
            stats[op]["empty_fraction"] = round(float(np.mean([not r for r in out])), 3)
        results[op] = out
    return stats, results


def _summary(ms: np.ndarray) -> dict[str, float]:
    return {
        "p50": round(float(np.percentile(ms, 50)), 4),
        "p99": round(float(np.percentile(ms, 99)), 4),
        "mean": round(float(ms.mean()), 4),
        "min": round(float(ms.min()), 4),
        "max": round(float(ms.max()), 4),
        "n": int(len(ms)),
    }


def agreement(store_res: dict[str, list[Any]], nx_res: dict[str, list[Any]]) -> dict[str, Any]:
    """How often the store and networkx gave the same answer. Exact for entity/by-name;
    for neighbourhoods only where neither hit a cap (capped walks keep a different
    subset, as the adjacency order differs)."""
    out: dict[str, Any] = {}
    out["entity_equal"] = sum(a == b for a, b in zip(store_res["entity"], nx_res["entity"], strict=True))
    out["by_name_equal"] = sum(a == b for a, b in zip(store_res["by_name"], nx_res["by_name"], strict=True))
    out["n"] = len(store_res["entity"])
    for op in ("1hop", "2hop"):
        both = [(a, b) for a, b in zip(store_res[op], nx_res[op], strict=True)
                if not a.truncated and not b.truncated]
        same = sum(set(a.facts) == set(b.facts) and a.hops == b.hops for a, b in both)
        out[f"{op}_untruncated"] = len(both)
        out[f"{op}_untruncated_equal"] = same
        out[f"{op}_same_truncation"] = sum(
            a.truncated == b.truncated for a, b in zip(store_res[op], nx_res[op], strict=True))
    return out


# --------------------------------------------------------------------------------------
# 5. Report
# --------------------------------------------------------------------------------------


class CpuWatch:
    """CPU time split over an interval: on a shared VM, ``steal`` is time the hypervisor
    gave to other guests, so a high fraction means the timings are inflated."""

    def __init__(self) -> None:
        import psutil

        self._psutil = psutil
        self.t0 = psutil.cpu_times()
        self.load0 = os.getloadavg()[0]

    def result(self) -> dict[str, float]:
        t1 = self._psutil.cpu_times()
        total = sum(t1) - sum(self.t0)
        part = lambda name: (getattr(t1, name, 0.0) - getattr(self.t0, name, 0.0)) / total if total > 0 else 0.0  # noqa: E731
        return {"steal_fraction": round(part("steal"), 3), "idle_fraction": round(part("idle"), 3),
                "loadavg_1m_start": round(self.load0, 2), "loadavg_1m_end": round(os.getloadavg()[0], 2)}


def machine_info() -> dict[str, Any]:
    import duckdb
    import ladybug
    import networkx
    import psutil

    return {
        "cores": os.cpu_count(),
        "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "platform": platform.platform(),
        "cpu": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "ladybug": getattr(ladybug, "__version__", "?"),
        "duckdb": duckdb.__version__,
        "networkx": networkx.__version__,
        "pyarrow": pa.__version__,
        "numpy": np.__version__,
    }


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def plot(record: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lat = record["latency_ms"]
    x = np.arange(len(OPS))
    w = 0.2
    fig, ax = plt.subplots(figsize=(8, 4.5))
    series = [("store", "p50", "#1f77b4"), ("store", "p99", "#aec7e8"),
              ("networkx", "p50", "#ff7f0e"), ("networkx", "p99", "#ffbb78")]
    for i, (who, stat, color) in enumerate(series):
        vals = [max(lat[who][op][stat], 1e-4) for op in OPS]
        ax.bar(x + (i - 1.5) * w, vals, w, label=f"{who} {stat}", color=color)
    ax.set_yscale("log")
    ax.set_xticks(x, ["entity by id", "by name", "1-hop", "2-hop"])
    ax.set_ylabel("latency (ms, log scale)")
    p = record["params"]
    ax.set_title(f"kgstore (LadybugDB) vs networkx in memory — {p['entities']:,} entities, "
                 f"{record['generated']['facts_distinct']:,} facts", fontsize=10)
    ax.axhline(TARGETS["2hop_p50_ms"], color="red", lw=0.8, ls="--", label="2-hop p50 target")
    ax.legend(fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def print_summary(record: dict[str, Any], console: Any) -> None:
    from rich.table import Table

    ing = record["ingest"]
    g = record["generated"]
    t = Table(title="store benchmark", show_lines=False)
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_row("graph", f"{g['entities']:,} entities ({g['cvt']:,} CVT), "
              f"{g['facts_distinct']:,} facts ({g['fact_rows']:,} stage rows), "
              f"max degree {g['max_degree']:,}")
    t.add_row("generation", f"{g['seconds']:.1f} s")
    t.add_row("ingest", f"{ing['facts_per_s']:,.0f} facts/s ({ing['seconds']:.1f} s, "
              f"{ing['facts_ingested']:,} facts)")
    t.add_row("ingest steps", ", ".join(f"{k} {v:.1f}s" for k, v in ing["steps"].items()))
    t.add_row("ingest peak RSS", f"{ing['peak_rss_mb']:,.0f} MiB")
    t.add_row("store on disk", f"{ing['store_mb']:,.0f} MiB")
    nxi = record["networkx"]
    t.add_row("networkx build", f"{nxi['build_seconds']:.1f} s, ~{nxi['rss_mb']:,.0f} MiB RSS "
              "(in memory, no persistence)")
    found = record["search"]
    scan = found["engine_scan"]
    t.add_row("search", f"p50 {found['index']['all']['p50']:.2f} ms, p99 "
              f"{found['index']['all']['p99']:.1f} ms (engine scan of the names: p50 "
              f"{scan['p50']:.0f} ms)" if scan else f"p50 {found['index']['all']['p50']:.2f} ms")
    console.print(t)

    lt = Table(title="latency (ms)")
    for col in ("op", "store p50", "store p99", "store mean", "nx p50", "nx p99", "nx mean",
                "p50 ratio", "p99 ratio"):
        lt.add_column(col, justify="right")
    lat = record["latency_ms"]
    for op in OPS:
        s, n, r = lat["store"][op], lat["networkx"][op], lat["ratio_store_over_networkx"][op]
        lt.add_row(op, f"{s['p50']:.3f}", f"{s['p99']:.3f}", f"{s['mean']:.3f}",
                   f"{n['p50']:.4f}", f"{n['p99']:.4f}", f"{n['mean']:.4f}",
                   f"{r['p50']:.1f}x", f"{r['p99']:.1f}x")
    console.print(lt)

    tt = Table(title="targets")
    for col in ("target", "value", "pass"):
        tt.add_column(col)
    for name, v in record["targets"].items():
        tt.add_row(f"{name} {v['op']} {v['target']:,}", f"{v['value']:,.2f}",
                   "[green]PASS[/]" if v["pass"] else "[red]FAIL[/]")
    console.print(tt)


def compare_backends(args: argparse.Namespace, info: GenInfo, stage: Path, store_dir: Path,
                     work: Path, warmup: int, console: Any) -> dict[str, Any]:
    """``--store URI``: import the stage into Neo4j (online; then neo4j-admin into a
    scratch home), and time the same calls on the embedded store and on Neo4j
    (:mod:`bench.backend_compare`)."""
    from bench import backend_compare as bc
    from kgstore import open_store

    out: dict[str, Any] = {"uri": args.store}
    console.print(f"neo4j: online import of the stage into {args.store} ...")
    cpu = CpuWatch()
    out["import_online"] = bc.import_online(args.store, stage)
    out["import_online"]["cpu"] = cpu.result()
    console.print(f"  {out['import_online']['facts_per_s']:,.0f} facts/s")
    classpath = args.neo4j_classpath or bc.default_classpath()
    if classpath.exists():
        console.print("neo4j: export + neo4j-admin database import full ...")
        cpu = CpuWatch()
        out["import_admin"] = bc.import_admin(stage, work, classpath)
        out["import_admin"]["cpu"] = cpu.result()
        console.print(f"  {out['import_admin']['import_facts_per_s']:,.0f} facts/s")
    else:
        out["import_admin"] = {"skipped": f"no classpath file {classpath}"}
    with open_store(str(store_dir), read_only=True) as emb:
        wl = bc.make_backend_workload(emb, info.named_ids, info.names, args.queries,
                                      warmup, args.seed)
    out["hubs"] = wl.hubs
    out["calls"] = {op: len(v) - wl.warmup[op] for op, v in wl.calls.items()}
    lat: dict[str, Any] = {}
    answers: dict[str, Any] = {}
    cpu_use: dict[str, Any] = {}
    for name, location in (("embedded", str(store_dir)), ("neo4j", args.store)):
        def say(op: str, backend: str = name) -> None:
            console.print(f"{backend}: {op}")

        with open_store(location, read_only=True) as store:
            cpu = CpuWatch()
            lat[name], answers[name] = bc.measure_backend(store, wl, say)
            cpu_use[name] = cpu.result()
            if name == "neo4j":
                out["server"] = bc.server_info(store)
                out["empty_read_transaction_ms"] = bc.empty_transaction_ms(store)
                console.print("neo4j: hub read, property filter vs hub index ...")
                out["hub_read_layouts"] = bc.hub_read_layouts(
                    store, wl.calls["hub_in_predicate"][:100])
    out["latency_ms"] = lat
    out["ratio_neo4j_over_embedded"] = bc.compare(lat["embedded"], lat["neo4j"],
                                                  answers["embedded"], answers["neo4j"])
    out["cpu"] = cpu_use
    out["note"] = ("both read-only, as generate opens them; each operation gets its own "
                   "random arguments (caches of one operation do not answer the next); "
                   "sample_* calls each use a new seed (a whole-store scan on both)")
    return out


def print_backends(record: dict[str, Any], console: Any) -> None:
    from rich.table import Table

    b = record["backends"]
    t = Table(title=f"embedded vs neo4j ({b['server']['agent']}) — latency ms")
    for col in ("op", "n", "emb p50", "emb p99", "neo4j p50", "neo4j p99", "p50 ratio",
                "p99 ratio", "neo4j tx/call", "engine ms/call", "same answers"):
        t.add_column(col, justify="right")
    lat, ratio = b["latency_ms"], b["ratio_neo4j_over_embedded"]
    for op, r in ratio.items():
        e, n = lat["embedded"][op], lat["neo4j"][op]
        t.add_row(op, str(e["n"]), f"{e['p50']:.3f}", f"{e['p99']:.3f}", f"{n['p50']:.3f}",
                  f"{n['p99']:.3f}", f"{r['p50']:.1f}x", f"{r['p99']:.1f}x",
                  f"{n.get('transactions_per_call', 0):.2f}",
                  f"{n.get('engine_ms_per_call', 0):.3f}", r["same_answers"])
    console.print(t)
    h = b["hub_read_layouts"]
    ht = Table(title=f"one predicate of a hub's incoming facts, raw Cypher ({h['pairs']} "
                     f"(hub, predicate) pairs x {h['rounds']})")
    for col in ("layout", "client p50", "client p99", "engine p50", "engine p99"):
        ht.add_column(col, justify="right")
    for k in h["client_ms"]:
        c, s = h["client_ms"][k], h["engine_ms"][k]
        ht.add_row(k, f"{c['p50']:.2f}", f"{c['p99']:.2f}", f"{s['p50']:.1f}", f"{s['p99']:.1f}")
    console.print(ht)
    on, ad = b["import_online"], b["import_admin"]
    console.print(f"import: embedded {record['ingest']['facts_per_s']:,.0f} facts/s; neo4j "
                  f"online {on['facts_per_s']:,.0f} facts/s ({on['seconds']:.1f} s); "
                  + (f"neo4j-admin {ad['import_facts_per_s']:,.0f} facts/s "
                     f"({ad['import_seconds']:.1f} s, + export {ad['export_seconds']:.1f} s)"
                     if "import_facts_per_s" in ad else f"neo4j-admin {ad.get('skipped')}"))
    console.print(f"hubs (id, incoming facts): {b['hubs'][:5]}; empty read transaction "
                  f"p50 {b['empty_read_transaction_ms']['p50']:.2f} ms")


# --------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entities", type=int, default=1_000_000)
    ap.add_argument("--facts", type=int, default=5_000_000)
    ap.add_argument("--cvt-fraction", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--warmup", type=int, default=None,
                    help="untimed queries per op first (default: queries/10, at most 50)")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--work", type=Path, default=None,
                    help="working directory for the stage and store (default: a temp dir "
                    "under /tmp)")
    ap.add_argument("--keep", action="store_true", help="keep the stage and store afterwards")
    ap.add_argument("--store", default=None, metavar="URI",
                    help="also load the same KG into this Neo4j database (bolt://HOST:PORT; "
                    "credentials from KGBENCH_NEO4J_AUTH; its content is replaced) and report "
                    "both backends side by side: online and neo4j-admin import facts/s, "
                    "p50/p99 of every read operation, neo4j/embedded ratios, the hub read "
                    "with and without the hub index. E.g. --entities 200000 --facts 1000000 "
                    "--queries 200 --store bolt://127.0.0.1:7687")
    ap.add_argument("--neo4j-classpath", type=Path, default=None,
                    help="Maven classpath file of the Neo4j launcher, for neo4j-admin import "
                    "(default: KGBENCH_NEO4J_CLASSPATH, else tools/neo4j-test-server/target/"
                    "classpath.txt; `make neo4j-up` builds it); skipped when missing")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--ingest-child":
        sys.exit(_ingest_child(argv[1:]))
    args = parse_args(argv)
    import psutil
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from kgstore import open_store

    console = Console(stderr=True)
    created_work = args.work is None
    work = Path(tempfile.mkdtemp(prefix="kgbench-store-bench-", dir="/tmp")) if created_work \
        else args.work
    work.mkdir(parents=True, exist_ok=True)
    stage, store_dir = work / "stage", work / "store"
    for d in (stage, store_dir):
        if d.exists():
            shutil.rmtree(d)
    (work / "ingest_result.json").unlink(missing_ok=True)
    warmup = args.warmup if args.warmup is not None else min(50, max(1, args.queries // 10))
    progress_cols = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                     TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn())
    try:
        # 1. generate
        with Progress(*progress_cols, console=console, transient=False) as prog:
            steps = 8
            task = prog.add_task("generate: start", total=steps)

            def gen_progress(msg: str) -> None:
                prog.update(task, description=f"generate: {msg}", advance=1)

            info = generate_kg(stage, entities=args.entities, facts=args.facts,
                               cvt_fraction=args.cvt_fraction, seed=args.seed,
                               progress=gen_progress)
            prog.update(task, completed=steps, description=f"generated in {info.seconds:.1f}s")

        # 2. ingest (child process)
        with Progress(*progress_cols, console=console) as prog:
            task = prog.add_task("ingest", total=6)

            def ingest_progress(msg: str) -> None:
                prog.update(task, description=f"ingest: {msg} done", advance=1)

            cpu_ingest = CpuWatch()
            ing = run_ingest(stage, store_dir, work, ingest_progress)
            cpu_ingest_res = cpu_ingest.result()
        rep = ing["report"]
        store_blocks, store_apparent = _du(store_dir)
        ingest_seconds = ing["open_seconds"] + ing["import_seconds"]
        facts_ingested = int(rep["facts_new"])
        peak_rss_mb = max(ing["maxrss_mb"], ing["sampled_peak_rss_mb"])

        # 3. store latencies
        wl = make_workload(info, args.queries, warmup, args.seed)
        with Progress(*progress_cols, console=console) as prog:
            store = open_store(str(store_dir), read_only=True)
            cpu_store = CpuWatch()
            try:
                store_lat, store_res = measure(store, wl, "store", prog)
                # Entity search by words, against the engine scanning its name keys.
                search = measure_search(store, info.names[:50_000], queries=args.queries,
                                        seed=args.seed)
            finally:
                store.close()
            cpu_store_res = cpu_store.result()

        # 4. networkx baseline
        with Progress(*progress_cols, console=console) as prog:
            task = prog.add_task("networkx: build", total=None)
            gc.collect()
            rss0 = psutil.Process().memory_info().rss
            t0 = time.perf_counter()
            nxkg = NetworkxKG(stage)
            build_s = time.perf_counter() - t0
            gc.collect()
            nx_rss = psutil.Process().memory_info().rss - rss0
            prog.update(task, description=f"networkx: built in {build_s:.1f}s", total=1,
                        completed=1)
            cpu_nx = CpuWatch()
            nx_lat, nx_res = measure(nxkg, wl, "networkx", prog)
            cpu_nx_res = cpu_nx.result()
        nx_info = {
            "build_seconds": round(build_s, 3), "rss_mb": round(nx_rss / 2**20, 1),
            "nodes": nxkg.g.number_of_nodes(), "edges": nxkg.g.number_of_edges(),
            "note": "networkx MultiDiGraph + name dict, in process memory only: no "
                    "persistence, no import/merge semantics; same neighborhood() code",
        }
        agree = agreement(store_res, nx_res)
        del nxkg, nx_res, store_res
        gc.collect()

        # 5. the same KG on Neo4j, both backends side by side
        backends = None
        if args.store:
            backends = compare_backends(args, info, stage, store_dir, work, warmup, console)

        ratios = {
            op: {k: round(store_lat[op][k] / max(nx_lat[op][k], 1e-9), 2)
                 for k in ("p50", "p99", "mean")}
            for op in OPS
        }
        facts_per_s = facts_ingested / ingest_seconds if ingest_seconds > 0 else 0.0
        targets = {
            "ingest_facts_per_s": {"op": ">=", "target": TARGETS["ingest_facts_per_s"],
                                   "value": round(facts_per_s, 1),
                                   "pass": facts_per_s >= TARGETS["ingest_facts_per_s"]},
            "ingest_peak_rss_mb": {"op": "<", "target": TARGETS["ingest_peak_rss_mb"],
                                   "value": round(peak_rss_mb, 1),
                                   "pass": peak_rss_mb < TARGETS["ingest_peak_rss_mb"]},
            "2hop_p50_ms": {"op": "<=", "target": TARGETS["2hop_p50_ms"],
                            "value": store_lat["2hop"]["p50"],
                            "pass": store_lat["2hop"]["p50"] <= TARGETS["2hop_p50_ms"]},
            "search_p50_ms": {"op": "<=", "target": TARGETS["search_p50_ms"],
                              "value": search["index"]["all"]["p50"],
                              "pass": search["index"]["all"]["p50"] <= TARGETS["search_p50_ms"]},
        }
        record: dict[str, Any] = {
            "timestamp": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "git_commit": git_commit(),
            "machine": machine_info(),
            "params": {"entities": args.entities, "facts": args.facts,
                       "cvt_fraction": args.cvt_fraction, "seed": args.seed,
                       "queries": args.queries, "warmup": warmup,
                       "caps": {"max_per_node": 50, "max_facts": 2000},
                       "buffer_pool_mb": os.environ.get("KGBENCH_BUFFER_POOL_MB", "2048 (default)"),
                       "duckdb_memory": os.environ.get("KGBENCH_DUCKDB_MEMORY", "2GB (default)")},
            "generated": info.public(),
            "ingest": {
                "facts_ingested": facts_ingested,
                "facts_per_s": round(facts_per_s, 1),
                "seconds": round(ingest_seconds, 3),
                "open_seconds": round(ing["open_seconds"], 3),
                "import_seconds": round(ing["import_seconds"], 3),
                "close_seconds": round(ing["close_seconds"], 3),
                "facts_per_s_incl_close": round(
                    facts_ingested / (ingest_seconds + ing["close_seconds"]), 1),
                "steps": rep["steps"],
                "report": rep,
                "store_stats": ing["stats"],
                "peak_rss_mb": round(peak_rss_mb, 1),
                "peak_rss_vmhwm_mb": round(ing["maxrss_mb"], 1),
                "peak_rss_incl_stats_mb": round(ing["maxrss_incl_stats_mb"], 1),
                "peak_rss_sampled_mb": round(ing["sampled_peak_rss_mb"], 1),
                "child_start_rss_mb": round(ing["rss_start_mb"], 1),
                "store_mb": round(store_blocks / 2**20, 1),
                "store_apparent_mb": round(store_apparent / 2**20, 1),
            },
            "latency_ms": {"store": store_lat, "networkx": nx_lat,
                           "ratio_store_over_networkx": ratios},
            "networkx": nx_info,
            "search": search,
            "agreement": agree,
            "cpu": {"ingest": cpu_ingest_res, "store_queries": cpu_store_res,
                    "networkx_queries": cpu_nx_res},
            "targets": targets,
            "pass": all(t["pass"] for t in targets.values()),
        }
        if backends is not None:
            record["backends"] = backends
        args.out.mkdir(parents=True, exist_ok=True)
        with open(args.out / "store_bench.jsonl", "a") as fh:
            fh.write(json.dumps(record, sort_keys=True) + "\n")
        plot(record, args.out / "store_bench_latency.png")
        out_console = Console()
        if not out_console.is_terminal:
            out_console = Console(width=150)
        print_summary(record, out_console)
        if backends is not None:
            print_backends(record, out_console)
        console.print(f"record appended to {args.out / 'store_bench.jsonl'}; plot "
                      f"{args.out / 'store_bench_latency.png'}")
        if args.keep:
            console.print(f"stage and store kept under {work}")
        return record
    finally:
        if not args.keep:
            if created_work:
                shutil.rmtree(work, ignore_errors=True)
            else:
                for d in (stage, store_dir):
                    shutil.rmtree(d, ignore_errors=True)
                (work / "ingest_result.json").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
