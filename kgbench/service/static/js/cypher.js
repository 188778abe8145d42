// A read-only Cypher box (POST /api/cypher). The server's allow-list guard refuses
// writes; its message is shown as the error. Ctrl+Enter runs the query too. The
// examples come from the served store (GET /api/cypher/examples), so they return rows
// on any store. Nodes and relationships in the rows are shown as entity links and
// predicates, and drawn as a graph (a relationship's ends are its _START and _END).
import {api, el, entityText, errorBox, replace, route} from "./dom.js";
import {createGraph} from "./graph.js";

const STORED = "kgbench.cypher";
const FALLBACK = "MATCH (p:Predicate)\nRETURN p.id AS predicate, p.count AS facts\nORDER BY facts DESC LIMIT 10";

const isGraphValue = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && "_LABEL" in v;

function nodeKind(v) {
  if (v._LABEL === "Literal") return "literal";
  return v.is_cvt ? "cvt" : "entity";
}

function nodeLabel(v) {
  if (v._LABEL === "Literal") return String(v.value ?? v.id);
  return entityText(v.id, v.name ? {[v.id]: v.name} : {}, v.is_cvt ? {[v.id]: v.types || []} : {});
}

/** One cell: an entity as a link to its page, a literal as its value, a relationship
 *  as its predicate (the arrow points as the fact does, seen from the node in the
 *  cell before it: an undirected match lists facts both ways), anything else as text
 *  (JSON for lists and maps). */
function cell(value, before) {
  if (value === null || value === undefined) return el("td", {class: "muted"}, "∅");
  if (isGraphValue(value)) {
    if (value._LABEL === "Entity" && value.id) {
      return el("td", {class: value.is_cvt ? "cvt" : null}, el("a", {href: route("entity", {id: value.id})},
        nodeLabel(value)), value.name ? el("span", {class: "s-id"}, ` ${value.id}`) : "");
    }
    if (value._LABEL === "Literal") return el("td", {class: "literal"}, nodeLabel(value));
    if (value._LABEL === "Fact") {
      const backwards = isGraphValue(before) && before.id === value._END && value._START !== value._END;
      return el("td", {class: "pred"}, backwards ? `←${value.predicate}—` : `—${value.predicate}→`);
    }
    const {_LABEL: label, ...props} = value;
    return el("td", {}, el("span", {class: "tag"}, label), " ", JSON.stringify(props));
  }
  if (typeof value === "string") return el("td", {}, value);
  return el("td", {class: "mono"}, JSON.stringify(value));
}

/** The rows' nodes and relationships as graph JSON (see graph.js); null when none. */
export function rowsGraph(rows) {
  const nodes = new Map();
  const edges = new Map();
  const visit = (v) => {
    if (Array.isArray(v)) { v.forEach(visit); return; }
    if (v === null || typeof v !== "object") return;
    if (isGraphValue(v)) {
      if (v._LABEL !== "Fact" && v.id) {
        nodes.set(v.id, {id: v.id, label: nodeLabel(v), kind: nodeKind(v), types: v.types || []});
      } else if (v._LABEL === "Fact" && v._START && v._END) {
        const id = `${v._START}\u001f${v.predicate}\u001f${v._END}`;
        edges.set(id, {id, source: v._START, target: v._END, predicate: v.predicate,
          label: String(v.predicate || "").split(".").pop()});
      }
    }
    Object.values(v).forEach(visit);
  };
  rows.forEach(visit);
  return nodes.size ? {nodes: [...nodes.values()], edges: [...edges.values()], truncated: false} : null;
}

export function render(main) {
  const query = el("textarea", {id: "cypher-query", rows: 6, spellcheck: "false", class: "mono"});
  query.value = sessionStorage.getItem(STORED) || "";
  const limit = el("input", {id: "cypher-limit", type: "number", min: 1, max: 10000, value: 200});
  const out = el("div", {id: "cypher-result", "aria-live": "polite"});
  const examples = el("div", {id: "cypher-examples", class: "inline"}, el("span", {class: "muted"}, "Loading examples…"));
  const run = el("button", {type: "submit"}, "Run");
  const form = el("form", {class: "stack", onsubmit: (evt) => { evt.preventDefault(); submit(); }},
    el("label", {for: query.id}, "Cypher (read-only: MATCH … RETURN)"), query,
    el("div", {class: "inline"}, el("label", {for: limit.id}, "Row limit"), limit, run,
      el("span", {class: "muted"}, "Ctrl+Enter runs it")));
  query.addEventListener("keydown", (evt) => {
    if (evt.key === "Enter" && (evt.ctrlKey || evt.metaKey)) { evt.preventDefault(); submit(); }
  });

  async function submit() {
    sessionStorage.setItem(STORED, query.value);
    run.disabled = true;
    replace(out, el("p", {class: "muted"}, "Running…"));
    const started = performance.now();
    try {
      const doc = await api("/api/cypher", {method: "POST",
        body: {query: query.value, limit_rows: Number(limit.value) || 200}});
      const ms = Math.round(performance.now() - started);
      const columns = doc.columns || [];
      const rows = (doc.rows || []).map((r) => Array.isArray(r) ? r : columns.map((c) => r[c]));
      const graph = rowsGraph(rows);
      const graphHost = el("div", {class: "graph-host", id: "cypher-graph"});
      replace(out,
        el("p", {class: "muted", id: "cypher-summary"},
          `${rows.length} row${rows.length === 1 ? "" : "s"}${doc.truncated ? " (truncated at the row limit)" : ""} · ${ms} ms`),
        graph ? graphHost : "",
        el("div", {class: "scroll table-box"}, el("table", {class: "rows"},
          el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", {scope: "col"}, c)))),
          el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((v, i) => cell(v, r[i - 1]))))))));
      if (graph) {
        createGraph(graphHost, {caption: "The rows' nodes and relationships",
          onActivate: (node) => { if (node.kind !== "literal") location.hash = route("entity", {id: node.id}); }}
        ).add(graph);
      }
    } catch (err) {
      replace(out, errorBox(err));
    } finally {
      run.disabled = false;
    }
  }

  async function loadExamples() {
    try {
      const doc = await api("/api/cypher/examples");
      const list = doc.examples || [];
      if (!query.value) query.value = (list[0] && list[0].query) || FALLBACK;
      replace(examples, el("span", {class: "muted"}, "Examples from this store:"),
        ...list.map((ex) => el("button", {type: "button", class: "linklike", title: ex.query,
          onclick: () => { query.value = ex.query; submit(); }}, ex.title)));
    } catch (err) {
      if (!query.value) query.value = FALLBACK;
      replace(examples, errorBox(err));
    }
  }
  // The examples come under the form: they arrive late on a busy server, and a row
  // growing above the Run button moved it under a click on its way (a CI run's
  // click hit the page, not the button).
  replace(main, el("h1", {}, "Cypher"), form, examples, out);
  loadExamples();
  query.focus();
}
