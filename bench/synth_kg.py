"""A synthetic Freebase-like KG written straight into the staged layout
(:mod:`kgstore.staging`), the input of the store, extension and service benchmarks:
MIDs, Zipf degrees with a few big hubs, CVT mediator nodes of CVT types, ~300
Zipf-distributed predicates, names of which ~3% are shared by 2-5 entities, aliases,
types, ~10% literal facts. The same seed gives the same Parquet bytes
(:func:`stage_hashes`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bench.harness import disk_usage
from kgstore.models import literal_key
from kgstore.staging import LAYOUT_VERSION, SCHEMAS

PART_ROWS = 1_000_000
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
    pred_tbl = pa.table({"id": all_preds, "label": labels, "aliases": [[] for _ in all_preds]},
                        schema=SCHEMAS["predicates"])
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
        stage_mb=round(disk_usage(stage)[1] / 2**20, 1),
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


def size_arguments(ap: argparse.ArgumentParser, *, questions: int) -> None:
    """The options of a benchmark over this KG that say its size and seed, and how many
    questions run on it; :func:`parse_sized` gives ``--quick`` its tiny sizes."""
    ap.add_argument("--entities", type=int, default=1_000_000)
    ap.add_argument("--facts", type=int, default=5_000_000)
    ap.add_argument("--questions", type=int, default=questions)
    ap.add_argument("--seed", type=int, default=0)


def parse_sized(ap: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """``ap``'s arguments (:func:`size_arguments` among them), with ``--quick``: tiny
    sizes for a smoke run (5k entities, 20k facts, 60 questions)."""
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes for a smoke run (20k facts, 60 questions)")
    args = ap.parse_args(argv)
    if args.quick:
        args.entities, args.facts, args.questions = 5_000, 20_000, 60
    return args
