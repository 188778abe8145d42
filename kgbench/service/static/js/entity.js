// An entity: its record, its facts out and in (paged, with a predicate filter) and
// its neighbourhood graph; activating a node adds that node's neighbours.
import {api, el, entityText, errorBox, objectText, qs, replace, route} from "./dom.js";
import {createGraph} from "./graph.js";

const PAGE = 50;

function factTable(id, direction, names, cvts) {
  const caption = direction === "out" ? "Facts out" : "Facts in";
  const body = el("tbody");
  const more = el("button", {type: "button", hidden: true}, "More facts");
  const note = el("p", {class: "muted", "aria-live": "polite"});
  const filterId = `pred-${direction}`;
  const filter = el("input", {id: filterId, type: "text", placeholder: "part of a predicate, e.g. directed",
    spellcheck: "false", title: "Facts whose predicate id or label holds this text (case ignored)"});
  const form = el("form", {class: "inline", onsubmit: (evt) => { evt.preventDefault(); load(0, true); }},
    el("label", {for: filterId}, "Predicate"), filter, el("button", {type: "submit"}, "Filter"));
  const table = el("table", {class: "facts"}, el("caption", {}, caption),
    el("thead", {}, el("tr", {}, el("th", {scope: "col"}, direction === "out" ? "predicate" : "subject"),
      el("th", {scope: "col"}, direction === "out" ? "object" : "predicate"))), body);
  let offset = 0;

  function cellFor(value) {
    if (value && typeof value === "object") return el("td", {class: "literal"}, objectText(value));
    const cvt = !names[value] && cvts[value] !== undefined;
    return el("td", {class: cvt ? "cvt" : null}, el("a", {href: route("entity", {id: value}),
      title: cvt ? `mediator node ${value}` : null}, entityText(value, names, cvts)));
  }

  async function load(from, reset) {
    more.disabled = true;
    try {
      const doc = await api(`/api/facts?${qs({id, direction, predicate: filter.value.trim(),
        offset: from, limit: PAGE})}`);
      Object.assign(names, doc.names || {});
      Object.assign(cvts, doc.cvts || {});
      if (reset) body.replaceChildren();
      for (const f of doc.facts) {
        body.append(direction === "out"
          ? el("tr", {}, el("td", {class: "pred"}, f.predicate), cellFor(f.object))
          : el("tr", {}, cellFor(f.subject), el("td", {class: "pred"}, f.predicate)));
      }
      offset = from + doc.facts.length;
      more.hidden = !doc.more;
      replace(note, body.children.length ? `${body.children.length} shown${doc.more ? ", more exist" : ""}`
        : "none");
    } catch (err) {
      replace(note, errorBox(err));
    } finally {
      more.disabled = false;
    }
  }
  more.addEventListener("click", () => load(offset, false));
  load(0, true);
  return el("section", {class: "fact-block"}, form, table, note, more);
}

export async function render(main, params) {
  const id = params.get("id");
  if (!id) { replace(main, errorBox(new Error("no entity id in the address"))); return; }
  replace(main, el("p", {class: "muted"}, "Loading…"));
  let doc;
  try {
    doc = await api(`/api/entity?${qs({id})}`);
  } catch (err) {
    replace(main, errorBox(err));
    return;
  }
  const e = doc.entity;
  const names = {...(doc.names || {}), [e.id]: e.name};
  const cvts = {...(doc.cvts || {})};
  const head = el("header", {class: "entity-head"},
    el("h1", {id: "entity-name"}, e.name || (e.is_cvt ? `${entityText(e.id, {}, {[e.id]: e.types || []})} (${e.id})` : e.id)),
    el("dl", {class: "props"},
      el("dt", {}, "id"), el("dd", {class: "mono"}, e.id),
      el("dt", {}, "types"), el("dd", {}, (e.types || []).join(", ") || "—"),
      e.aliases && e.aliases.length ? [el("dt", {}, "aliases"), el("dd", {}, e.aliases.join(", "))] : "",
      el("dt", {}, "CVT"), el("dd", {}, e.is_cvt ? "yes (mediator node)" : "no"),
      e.description ? [el("dt", {}, "description"), el("dd", {}, e.description)] : ""),
    el("p", {}, el("a", {href: route("paths", {source: e.id}), id: "entity-paths"},
      "Paths from here to another entity")));
  const graphHost = el("div", {class: "graph-host"});
  const graphNote = el("div", {"aria-live": "polite"});
  replace(main, el("div", {class: "two-col"},
    el("div", {class: "col-left"}, head, factTable(e.id, "out", names, cvts), factTable(e.id, "in", names, cvts)),
    el("div", {class: "col-right"}, el("h2", {}, "Neighbourhood"),
      el("p", {class: "muted"}, "Click a node (or press Enter on it in the node list) to draw its neighbours; double-click opens it."),
      graphHost, graphNote)));
  const expanded = new Set();
  const graph = createGraph(graphHost, {expandable: true, caption: `Neighbourhood of ${e.name || e.id}`,
    onActivate: (node) => expand(node.id)});
  graph.cy.on("dbltap", "node", (evt) => {
    if (evt.target.data("kind") === "entity") location.hash = route("entity", {id: evt.target.id()});
  });

  async function expand(nodeId) {
    if (expanded.has(nodeId)) return;
    expanded.add(nodeId);
    try {
      const n = await api(`/api/neighborhood?${qs({id: nodeId, hops: 1, max_per_node: 30, max_facts: 300})}`);
      graph.add(n.graph, {origin: nodeId});
      graph.markExpanded(nodeId);
      graphNote.replaceChildren();
    } catch (err) {
      expanded.delete(nodeId);
      replace(graphNote, errorBox(err));
    }
  }
  expand(e.id);
}
