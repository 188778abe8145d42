// The interactive graph (cytoscape, vendored): entities as labelled circles, CVTs as
// small unlabelled mediator diamonds, literals as green leaves. Activating a node
// (click, or Enter on its button in the list under the graph) calls onActivate.
// The node count is kept in the DOM (data-nodes / data-edges on the panel and a
// visible "N nodes" line) so a person and a test can both read it.
import cytoscape from "../vendor/cytoscape/cytoscape.esm.min.js";
import {el, replace} from "./dom.js";

export const MAX_NODES = 400;   // the page stops adding nodes here and says "capped"
const LABEL_CHARS = 40;

const STYLE = [
  {selector: "node", style: {
    "label": "data(label)", "font-size": 10, "color": "#1d2733", "text-valign": "bottom",
    "text-margin-y": 3, "text-wrap": "ellipsis", "text-max-width": 140, "width": 18, "height": 18,
    "background-color": "#3a6fb0", "border-width": 1, "border-color": "#1f3f66"}},
  {selector: "node[kind = 'cvt']", style: {
    "shape": "diamond", "width": 9, "height": 9, "label": "", "background-color": "#8a94a0",
    "border-color": "#5b6470"}},
  {selector: "node[kind = 'literal']", style: {
    "shape": "round-rectangle", "width": 14, "height": 10, "background-color": "#dff0d8",
    "border-color": "#3c763d", "color": "#2b542c", "font-size": 9}},
  {selector: "node[?center]", style: {
    "width": 26, "height": 26, "border-width": 3, "border-color": "#111", "font-weight": "bold"}},
  {selector: "node.expanded", style: {"border-color": "#111", "border-width": 2}},
  {selector: "node:selected", style: {"overlay-opacity": 0.15, "overlay-color": "#f0a000"}},
  {selector: "edge", style: {
    "curve-style": "bezier", "target-arrow-shape": "triangle", "arrow-scale": 0.7, "width": 1.2,
    "line-color": "#9aa5b1", "target-arrow-color": "#9aa5b1", "label": "data(label)",
    "font-size": 8, "color": "#52606d", "text-rotation": "autorotate", "text-background-color": "#fff",
    "text-background-opacity": 0.8, "text-background-padding": 1,
    // A whole neighbourhood fits the panel at a zoom where predicate labels would be
    // a few pixels high: they show once zoomed in far enough to read (wheel or pinch).
    "min-zoomed-font-size": 7}},
  {selector: "edge[?highlight]", style: {
    "line-color": "#d9480f", "target-arrow-color": "#d9480f", "width": 3.5, "color": "#a33a0b",
    "font-weight": "bold"}},
  {selector: "edge.removed", style: {"line-style": "dashed"}},
  {selector: "edge.context", style: {"line-color": "#d4d9de", "target-arrow-color": "#d4d9de",
    "color": "#9aa5b1"}},
];

function short(text) {
  const s = String(text ?? "");
  return s.length > LABEL_CHARS ? s.slice(0, LABEL_CHARS - 1) + "…" : s;
}

/**
 * A graph panel inside `host`. Options: onActivate(nodeData) for entity nodes,
 * expandable (whether nodes can be expanded: the list says "expand" then).
 * Returns {add(graphJson, {classes}), count(), markExpanded(id), cy}.
 */
export function createGraph(host, {onActivate = null, expandable = false, caption = "Graph"} = {}) {
  const status = el("p", {class: "graph-status", "aria-live": "polite"});
  const canvas = el("div", {class: "graph-canvas", role: "img", "aria-label": caption});
  const list = el("ul", {class: "node-list", "aria-label": `${caption}: nodes`});
  const panel = el("section", {class: "graph-panel", dataset: {nodes: "0", edges: "0"}},
    canvas, status, el("details", {class: "node-list-box"},
      el("summary", {}, expandable ? "Nodes (Enter expands one)" : "Nodes"), list));
  replace(host, panel);
  let capped = false;
  const cy = cytoscape({container: canvas, style: STYLE, elements: [],
    minZoom: 0.2, maxZoom: 3});

  function refresh() {
    const nodes = cy.nodes().length;
    const edges = cy.edges().length;
    panel.dataset.nodes = String(nodes);
    panel.dataset.edges = String(edges);
    replace(status, `${nodes} nodes · ${edges} edges`,
      capped ? el("span", {class: "capped"}, ` · capped: not every neighbour is drawn`) : "");
  }

  function listItem(data) {
    const label = data.kind === "cvt" ? `(CVT ${data.id})` : data.fullLabel;
    const button = el("button", {type: "button", class: "linklike", "data-node": data.id,
      onclick: () => activate(data.id)}, expandable ? `Expand: ${label}` : label);
    return el("li", {}, button);
  }

  function activate(id) {
    const node = cy.getElementById(id);
    if (!node || node.empty() || !onActivate) return;
    if (node.data("kind") === "literal") return;
    onActivate(node.data());
  }

  cy.on("tap", "node", (evt) => activate(evt.target.id()));

  /** Add a GraphJson (nodes and edges already drawn are kept); new nodes start in a
   *  ring around `origin` (the expanded node) so the layout keeps the old picture. */
  function add(graph, {classes = {}, origin = null} = {}) {
    const first = cy.nodes().length === 0;
    const from = origin && cy.getElementById(origin).nonempty() ? cy.getElementById(origin).position() : null;
    const fresh = [];
    for (const node of graph.nodes || []) {
      if (cy.getElementById(node.id).nonempty()) continue;
      if (cy.nodes().length + fresh.length >= MAX_NODES) { capped = true; break; }
      const angle = fresh.length * 2.4;   // golden-angle spiral: spread, and the same every run
      const position = from ? {x: from.x + 40 * Math.cos(angle), y: from.y + 40 * Math.sin(angle)} : undefined;
      fresh.push({group: "nodes", position, data: {id: node.id, kind: node.kind, center: !!node.center,
        label: node.kind === "cvt" ? "" : short(node.label), fullLabel: node.label, types: node.types || []}});
    }
    const known = new Set([...cy.nodes().map((n) => n.id()), ...fresh.map((n) => n.data.id)]);
    for (const edge of graph.edges || []) {
      if (cy.getElementById(edge.id).nonempty()) continue;
      if (!known.has(edge.source) || !known.has(edge.target)) { capped = true; continue; }
      fresh.push({group: "edges", classes: classes[edge.id] || "", data: {id: edge.id,
        source: edge.source, target: edge.target, label: short(edge.label || edge.predicate),
        highlight: !!edge.highlight, predicate: edge.predicate}});
    }
    if (graph.truncated) capped = true;
    cy.add(fresh);
    for (const item of fresh) {
      if (item.group === "nodes" && item.data.kind !== "literal") list.append(listItem(item.data));
    }
    const small = cy.nodes().length < 30;
    cy.layout({name: "cose", animate: false, randomize: first, numIter: 1500, gravity: 0.2,
      nodeRepulsion: () => (small ? 120000 : 30000), idealEdgeLength: () => (small ? 60 : 45),
      edgeElasticity: () => 100, nodeOverlap: 40, componentSpacing: 60, padding: 24}).run();
    cy.fit(undefined, 20);
    refresh();
    return fresh.filter((i) => i.group === "nodes").length;
  }

  function markExpanded(id) {
    cy.getElementById(id).addClass("expanded");
  }

  refresh();
  return {add, count: () => cy.nodes().length, markExpanded, cy, panel};
}
