"""The figures of a report, as inline SVG drawn by matplotlib (Agg canvas, text kept as
text): the house style (:func:`styled`, :func:`new_figure`, :func:`inline_svg`,
:func:`no_data`), a sample's subgraph drawn with networkx with its edit highlighted
(:func:`draw_subgraph`), and the bar charts of the benchmark report
(:mod:`extension.outputs.report`) and the score section
(:mod:`scoring.score.report_section`).
"""

from __future__ import annotations

import functools
import html
import io
import math
import re
import textwrap
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec
from typing import Literal as TypingLiteral

import matplotlib
import networkx as nx
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from extension.core.samples import Triple
from extension.outputs.sample_schema import BenchmarkSample

P = ParamSpec("P")
# Colour-blind-safe (Okabe–Ito) colours, one per role or category.
COMPLEXITY_COLOURS: Mapping[str, str] = {
    "single": "#0072B2", "union": "#E69F00", "intersection": "#009E73",
    "concatenation": "#CC79A7"}
SUBJECT_COLOUR = "#56B4E9"
ANSWER_COLOUR = "#009E73"
REPLACEMENT_COLOUR = "#E69F00"
ENTITY_COLOUR = "#DDDDDD"
LITERAL_COLOUR = "#F0E442"
CVT_COLOUR = "#999999"
DELETED_COLOUR = "#D55E00"
EDGE_COLOUR = "#444444"
_HUE_NAMES = ((15, "red"), (30, "orange-red"), (45, "orange"), (70, "yellow"), (170, "green"),
              (260, "blue"), (290, "purple"), (345, "pink"), (360, "red"))
"""Upper hue bounds (degrees) of the colour words a caption uses."""


def hue_name(colour: str) -> str:
    """The word a caption uses for ``colour`` (``#rrggbb``), from its hue: the
    vermillion ``#D55E00`` of removed triples is "orange-red", so a caption cannot
    call it red while the page draws orange (issue 38). Greys are "grey"."""
    r, g, b = (int(colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4))
    high, low = max(r, g, b), min(r, g, b)
    if high - low < 0.1:
        return "grey"
    span = high - low
    if high == r:
        hue = 60 * (((g - b) / span) % 6)
    elif high == g:
        hue = 60 * ((b - r) / span + 2)
    else:
        hue = 60 * ((r - g) / span + 4)
    return next(name for bound, name in _HUE_NAMES if hue < bound)


LEGEND_TEXTS: Mapping[str, str] = {
    "replacement": "replacement answer", "answer": "answer", "subject": "query subject",
    "cvt": "CVT node", "literal": "literal value", "entity": "other entity"}
"""The legend's text for each role a node is drawn in (every role has a colour)."""
NODE_SIZE = 400
"""Node area in points² (a 20-point circle); CVT nodes are smaller."""
CVT_NODE_SIZE = 80
NAME_FONT_SIZE = 10
EDGE_FONT_SIZE = 9.5
LEGEND_FONT_SIZE = 9.5
"""Font sizes in points of the drawings, which the page shows at about their size."""
_RC: dict[Any, Any] = {"svg.fonttype": "none",   # text stays text: smaller, searchable, escaped by matplotlib
       "text.parse_math": False,  # a '$' in an entity name is not mathtext
       "font.size": 9}


def styled(function: Callable[P, str]) -> Callable[P, str]:
    """Run a figure function under the report's matplotlib settings (read when the
    texts are created and when the figure is saved)."""

    @functools.wraps(function)
    def styled(*args: P.args, **kwargs: P.kwargs) -> str:
        with matplotlib.rc_context(_RC):
            return function(*args, **kwargs)

    return styled


def new_figure(width: float, height: float, *,
               layout: TypingLiteral["constrained"] | None = "constrained") -> Figure:
    """A figure of ``width`` × ``height`` inches on its own Agg canvas (for
    :func:`inline_svg`; call it inside a :func:`styled` function)."""
    figure = Figure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(figure)   # the Agg canvas: no GUI, no pyplot state
    return figure


_SVG_TAG = re.compile(r"<[^>]+>")
_SVG_ID = re.compile(r'(\sid="|href="#|url\(#)')


def inline_svg(figure: Figure, name: str) -> str:
    """The figure as an inline ``<svg>`` element. Every element id (and every reference
    to one) is prefixed with ``name``: inline SVGs share the page's id space, and
    matplotlib names the groups of every figure alike (``figure_1``, ``axes_1``, …)."""
    buffer = io.StringIO()
    # a fixed salt: the hashed ids, hence the page, are the same on every run
    with matplotlib.rc_context({"svg.hashsalt": "kgbench"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]   # drop the XML prolog and DOCTYPE (an external DTD)
    # Only inside tags: matplotlib escapes '<' in text, so KG text is never touched.
    return _SVG_TAG.sub(
        lambda tag: _SVG_ID.sub(lambda m: f"{m.group(1)}{name}-", tag.group(0)), text)


def predicate_phrase(predicate: str, labels: Mapping[str, str] | None = None) -> str:
    """A short phrase for an edge label: the predicate's label in the store when
    ``labels`` (predicate id -> label, e.g. Wikidata ``P19`` -> "place of birth") has
    one, else the last segment of the id with underscores as spaces
    (``film.film.directed_by`` -> ``directed by``, ``http://…/prop/direct/P19`` ->
    ``P19``)."""
    label = (labels or {}).get(predicate)
    if label and label.strip():
        return label.strip()
    local = predicate.rstrip("/#").rsplit("/", 1)[-1].rsplit("#", 1)[-1]
    return local.rsplit(".", 1)[-1].replace("_", " ") or predicate


MIN_NODE_DISTANCE = 0.45
"""Least distance between two nodes of a drawing, as a share of the layout's span
(spring layouts put nodes with the same neighbours, like an answer and its replacement,
on top of each other)."""


def _spread(pos: Mapping[Any, Any], rounds: int = 60) -> dict[Any, tuple[float, float]]:
    """``pos`` with nodes closer than :data:`MIN_NODE_DISTANCE` pushed apart, each
    pair along the line between them (a fixed direction when they coincide);
    deterministic."""
    points = {n: [float(x), float(y)] for n, (x, y) in pos.items()}
    nodes = list(points)
    xs = [p[0] for p in points.values()]
    ys = [p[1] for p in points.values()]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9) if nodes else 1.0
    least = MIN_NODE_DISTANCE * span
    for _ in range(rounds):
        moved = False
        for i, a in enumerate(nodes):
            for b in nodes[i + 1:]:
                pa, pb = points[a], points[b]
                dx, dy = pb[0] - pa[0], pb[1] - pa[1]
                distance = math.hypot(dx, dy)
                if distance >= least:
                    continue
                if distance < 1e-9:
                    dx, dy, distance = 1.0, 0.3, math.hypot(1.0, 0.3)
                push = (least - distance) / 2 / distance
                pa[0] -= dx * push
                pa[1] -= dy * push
                pb[0] += dx * push
                pb[1] += dy * push
                moved = True
        if not moved:
            break
    return {n: (p[0], p[1]) for n, p in points.items()}


def _node_key(t: Triple) -> str:
    return f"literal\x00{t.o}\x00{t.datatype or ''}\x00{t.lang or ''}" if t.literal else t.o


def _short(text: str, width: int = 18, lines: int = 3) -> str:
    return "\n".join(textwrap.wrap(text, width, max_lines=lines, placeholder="…")) or text


def _triple_key(t: Triple) -> tuple[str, str, str, bool]:
    return (t.s, t.p, t.o, t.literal)


@styled
def draw_subgraph(sample: BenchmarkSample, *, name: str = "subgraph",
                  predicate_labels: Mapping[str, str] | None = None) -> str:
    """The subgraph of ``sample`` as an inline SVG: its triples plus those of the
    original subgraph G it lacks (dashed, :data:`DELETED_COLOUR`), entity names (or ids) and literal values
    beside their nodes (below each, on a white ground, so no name hides a node's colour),
    :func:`predicate_phrase` on edges (with ``predicate_labels``, the store's labels).
    Subjects of the query are blue, answers green, a contradictory sample's replacement
    answer orange, other entities light grey, literals yellow, CVT nodes small, grey and
    unlabelled; the legend lists every colour drawn, with the same marker. ``name``
    keeps the SVG's element ids unique in a page."""
    kept = {_triple_key(t) for t in sample.subgraph}
    deleted_keys = {_triple_key(t) for t in sample.original_subgraph} - kept
    deleted_triples = [t for t in sample.original_subgraph if _triple_key(t) in deleted_keys]
    graph = nx.DiGraph()
    labels: dict[str, str] = {}
    edge_phrases: dict[tuple[str, str], list[tuple[str, bool]]] = {}
    for triple, is_deleted in [*((t, False) for t in sample.subgraph),
                               *((t, True) for t in deleted_triples)]:
        target = _node_key(triple)
        labels.setdefault(triple.s, triple.s_name or triple.s)
        labels.setdefault(target, triple.o if triple.literal else triple.o_name or triple.o)
        graph.add_node(triple.s, literal=False)
        graph.add_node(target, literal=triple.literal)
        graph.add_edge(triple.s, target)
        phrases = edge_phrases.setdefault((triple.s, target), [])
        phrase = predicate_phrase(triple.p, predicate_labels)
        if (phrase, is_deleted) not in phrases:
            phrases.append((phrase, is_deleted))

    cvts = set(sample.cvt_nodes)
    subjects = set(sample.query.subjects)
    answers = {a.id for a in sample.answer_entities if a.id} | {
        f"literal\x00{a.value}\x00{a.datatype or ''}\x00{a.lang or ''}"
        for a in sample.answer_entities if a.value is not None}
    replacement = sample.edit.replacement
    replacement_key = None
    if replacement is not None:
        replacement_key = replacement.id if replacement.id else (
            f"literal\x00{replacement.value}\x00{replacement.datatype or ''}"
            f"\x00{replacement.lang or ''}")

    def role(node: str) -> str:
        if node == replacement_key:
            return "replacement"
        if node in answers:
            return "answer"
        if node in subjects:
            return "subject"
        if node in cvts:
            return "cvt"
        return "literal" if graph.nodes[node].get("literal") else "entity"

    colours = {"replacement": REPLACEMENT_COLOUR, "answer": ANSWER_COLOUR,
               "subject": SUBJECT_COLOUR, "cvt": CVT_COLOUR, "literal": LITERAL_COLOUR,
               "entity": ENTITY_COLOUR}
    nodes = list(graph.nodes)
    roles = {n: role(n) for n in nodes}
    size = len(nodes)
    # Drawn at about the page's scale (72 units per inch, the article ~12 inches wide),
    # so the font sizes below are the sizes read.
    width = min(11.0, 6.0 + 1.2 * math.sqrt(size))
    height = min(8.0, 3.6 + 0.9 * math.sqrt(size))
    figure = new_figure(width, height, layout=None)   # axes fill the figure: no layout pass
    ax = figure.add_axes((0.0, 0.1, 1.0, 0.9))   # the bottom strip holds the legend
    ax.set_axis_off()
    if not nodes:
        ax.text(0.5, 0.5, "empty subgraph", ha="center", va="center")
        return inline_svg(figure, name)
    # Deterministic layout; k spreads nodes so the edge labels have room.
    pos = _spread(nx.spring_layout(graph, seed=0, k=2.2 / math.sqrt(max(size, 1)),
                                   iterations=200))
    for kind in colours:
        members = [n for n in nodes if roles[n] == kind]
        if members:
            nx.draw_networkx_nodes(graph, pos, nodelist=members, ax=ax,
                                   node_color=colours[kind],
                                   node_size=CVT_NODE_SIZE if kind == "cvt" else NODE_SIZE,
                                   edgecolors="#333333", linewidths=0.6)
    solid = [e for e, ps in edge_phrases.items() if not all(d for _, d in ps)]
    dashed = [e for e, ps in edge_phrases.items() if all(d for _, d in ps)]
    arc = "arc3,rad=0.12"   # curved, so u->v and v->u do not overlap
    for edges, colour, style in ((solid, EDGE_COLOUR, "solid"),
                                 (dashed, DELETED_COLOUR, "dashed")):
        if edges:
            nx.draw_networkx_edges(graph, pos, edgelist=edges, ax=ax, edge_color=colour,
                                   style=style, width=1.4, arrowsize=14,
                                   connectionstyle=arc, node_size=NODE_SIZE)
    # Names below their nodes, on a white ground: over a node they hid its colour and
    # were unreadable on the dark ones.
    below = math.sqrt(NODE_SIZE) / 2 + 3   # points from the node's centre
    for node in nodes:
        if roles[node] != "cvt":
            ax.annotate(_short(labels[node], width=22), xy=pos[node], xytext=(0, -below),
                        textcoords="offset points", ha="center", va="top",
                        fontsize=NAME_FONT_SIZE, color="#111111", zorder=4,
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                              "alpha": 0.85})
    edge_labels = {e: " / ".join(("✗ " if d else "") + p for p, d in ps)
                   for e, ps in edge_phrases.items()}
    nx.draw_networkx_edge_labels(graph, pos, edge_labels=edge_labels, ax=ax,
                                 font_size=EDGE_FONT_SIZE, font_color="#222222",
                                 connectionstyle=arc, rotate=False,
                                 bbox={"boxstyle": "round,pad=0.2", "fc": "#f4f4f4",
                                       "ec": "#bbbbbb", "lw": 0.5, "alpha": 0.95})
    ax.margins(0.16, 0.2)
    # One entry per colour drawn, each with the marker size of its nodes (markersize is
    # a diameter in points, node_size an area).
    handles: list[Line2D] = [
        Line2D([], [], marker="o", linestyle="",
               markersize=math.sqrt(CVT_NODE_SIZE if kind == "cvt" else NODE_SIZE) * 0.7,
               markerfacecolor=colours[kind], markeredgecolor="#333333",
               markeredgewidth=0.6, label=LEGEND_TEXTS[kind])
        for kind in colours if kind in roles.values()]
    if dashed or any(d for ps in edge_phrases.values() for _, d in ps):
        handles.append(Line2D([], [], color=DELETED_COLOUR, linestyle="--", linewidth=1.4,
                              label="triple of G missing here"))
    figure.legend(handles=handles, loc="lower center", fontsize=LEGEND_FONT_SIZE,
                  frameon=False, ncol=len(handles), borderaxespad=0.3, handletextpad=0.3,
                  columnspacing=1.2)
    return inline_svg(figure, name)


def no_data(message: str) -> str:
    """A grey line saying why a figure or table is not there."""
    return f'<p class="empty">{html.escape(message)}</p>'


@styled
def barh_figure(values: Mapping[str, float], name: str, xlabel: str, colour: str,
                 fmt: str) -> str:
    items = sorted(values.items(), key=lambda kv: kv[1])
    figure = new_figure(5.0, 0.9 + 0.32 * len(items))
    ax = figure.add_subplot()
    bars = ax.barh([k for k, _ in items], [v for _, v in items], color=colour)
    total = sum(v for _, v in items) or 1
    ax.bar_label(bars, [fmt.format(v, v / total) for _, v in items], fontsize=7, padding=2)
    ax.set_xlabel(xlabel)
    ax.margins(x=0.25)
    return inline_svg(figure, name)
