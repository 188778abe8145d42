// Paths between two entities (GET /api/paths, as `kgbench paths`): two boxes with the
// search page's autocomplete, a maximum length and predicates to leave out. Each path
// is listed once, hop by hop (a step through a CVT, a mediator node, is one hop, as the
// API counts it), with its entities linked to their pages; all the paths are drawn
// together as a graph, and pointing at a path marks its edges there. The form lives in
// the address (#/paths?source=&target=&max=&exclude=), so a search can be linked.
import {api, el, entityText, errorBox, qs, replace, route} from "./dom.js";
import {createGraph} from "./graph.js";
import {entityCombobox} from "./search.js";

const LIMIT = 20;
const MAX_LENGTHS = [1, 2, 3];

/** The predicates to leave out, from text separated by commas or spaces. */
export function excludedPredicates(text) {
  return String(text || "").split(/[\s,]+/).filter(Boolean);
}

const edgeKey = (fact) => `${fact.subject}\u001f${fact.predicate}\u001f${fact.object}`;

/** One path as hops: each hop is the steps from one non-CVT node to the next, so a
 *  walk through a mediator is one hop. A step says whether its fact is walked as
 *  stored (forward) or against it. */
export function pathHops(path, cvts) {
  const hops = [];
  let steps = [];
  path.facts.forEach((fact, i) => {
    const from = path.nodes[i];
    const to = path.nodes[i + 1];
    steps.push({fact, from, to, forward: fact.subject === from});
    if (!(to in cvts) || i === path.facts.length - 1) { hops.push(steps); steps = []; }
  });
  return hops;
}

/** Every node and fact of the paths once, as graph JSON for graph.js. */
export function pathsGraph(doc) {
  const names = doc.names || {};
  const cvts = doc.cvts || {};
  const nodes = new Map();
  const edges = new Map();
  for (const path of doc.paths || []) {
    for (const id of path.nodes) {
      nodes.set(id, {id, label: entityText(id, names, cvts), kind: id in cvts && !names[id] ? "cvt" : "entity",
        types: cvts[id] || [], center: id === doc.source || id === doc.target});
    }
    for (const fact of path.facts) {
      edges.set(edgeKey(fact), {id: edgeKey(fact), source: fact.subject, target: fact.object,
        predicate: fact.predicate, label: String(fact.predicate).split(".").pop()});
    }
  }
  return {nodes: [...nodes.values()], edges: [...edges.values()], truncated: false};
}

/** A node of a path as a link to its page. A CVT (mediator) reads as its type, with
 *  its id beside it: two paths through different mediators of one type (two roles of
 *  an actor) would otherwise read the same. */
function entityLink(id, names, cvts) {
  const cvt = !names[id] && id in cvts;
  const link = el("a", {href: route("entity", {id}), class: cvt ? "cvt" : null,
    title: cvt ? `mediator node ${id}` : id}, entityText(id, names, cvts));
  return cvt ? [link, el("span", {class: "s-id"}, ` ${id}`)] : link;
}

function pathItem(path, index, doc, onFocus) {
  const names = doc.names || {};
  const cvts = doc.cvts || {};
  const hops = pathHops(path, cvts).map((steps) => el("span", {class: "hop"},
    ...steps.map((s) => [
      el("span", {class: "pred", title: s.forward ? "the fact as stored" : "the fact walked backwards"},
        s.forward ? ` —${s.fact.predicate}→ ` : ` ←${s.fact.predicate}— `),
      entityLink(s.to, names, cvts)])));
  const item = el("li", {class: "path", tabindex: "0", dataset: {length: String(path.length)},
    "aria-label": `Path ${index + 1}: ${path.length} hop${path.length === 1 ? "" : "s"}`},
    el("span", {class: "tag"}, `${path.length} hop${path.length === 1 ? "" : "s"}`), " ",
    path.through_hub ? [el("span", {class: "tag hub", title: "an entity on the way has more facts " +
      "than the walk reads of one (a country, a gender): such paths come last"}, "through a hub"), " "] : "",
    entityLink(path.nodes[0], names, cvts), ...hops);
  for (const on of ["mouseenter", "focusin"]) item.addEventListener(on, () => onFocus(path));
  return item;
}

function showPaths(out, doc) {
  const found = doc.paths || [];
  const names = doc.names || {};
  const cvts = doc.cvts || {};
  const what = `${entityText(doc.source, names, cvts)} and ${entityText(doc.target, names, cvts)}`;
  if (!found.length) {
    replace(out, el("p", {class: "nothing", id: "paths-summary"},
      `No path of at most ${doc.max_length} hop${doc.max_length === 1 ? "" : "s"} between ${what}` +
      `${doc.exclude_predicates.length ? " without the predicates left out" : ""}. ` +
      "Try a longer maximum, or leave fewer predicates out."));
    return;
  }
  const graphHost = el("div", {class: "graph-host", id: "paths-graph"});
  const list = el("ol", {class: "paths", id: "paths-list"});
  replace(out, el("p", {class: "muted", id: "paths-summary"},
    `${found.length} path${found.length === 1 ? "" : "s"} between ${what}` +
    `${found.length === LIMIT ? ` (the first ${LIMIT})` : ""}; shorter first, paths through a hub last. ` +
    "A step through a CVT (mediator node) is one hop."),
  el("div", {class: "two-col"}, el("div", {class: "col-left"}, list),
    el("div", {class: "col-right"}, graphHost)));
  const graph = createGraph(graphHost, {caption: `Paths between ${what}`,
    onActivate: (node) => { location.hash = route("entity", {id: node.id}); }});
  graph.add(pathsGraph(doc));
  const mark = (path) => {
    const on = new Set(path.facts.map(edgeKey));
    graph.cy.edges().forEach((edge) => edge.data("highlight", on.has(edge.id())));
    graph.panel.dataset.marked = String(on.size);   // how many edges are marked, for a reader of the DOM
  };
  list.append(...found.map((path, i) => pathItem(path, i, doc, mark)));
}

export async function render(main, params) {
  const source = params.get("source") || "";
  const target = params.get("target") || "";
  const chosen = {source, target};
  // Enter in a box with no suggestion chosen sends the form (the form is made below).
  const submit = () => form.requestSubmit();
  const from = entityCombobox({label: "From", onSubmit: submit,
    onPick: (e) => { chosen.source = e.id; from.input.value = e.name || e.id; }});
  const to = entityCombobox({label: "To", onSubmit: submit,
    onPick: (e) => { chosen.target = e.id; to.input.value = e.name || e.id; }});
  from.input.value = source;
  to.input.value = target;
  // Typing over a picked entity drops the pick: the text is then sent as it is (an id,
  // or a name that names one entity).
  from.input.addEventListener("input", () => { chosen.source = ""; });
  to.input.addEventListener("input", () => { chosen.target = ""; });
  const maxLength = el("select", {id: "paths-max"}, ...MAX_LENGTHS.map((n) =>
    el("option", {value: String(n), selected: String(n) === (params.get("max") || "2")}, String(n))));
  const exclude = el("input", {id: "paths-exclude", type: "text", spellcheck: "false",
    value: params.get("exclude") || "", placeholder: "e.g. people.person.* common.*",
    title: "Predicates whose facts are not walked; globs like common.* cover many; separate with spaces or commas"});
  const out = el("div", {id: "paths-result", "aria-live": "polite"});
  const form = el("form", {class: "stack", id: "paths-form", onsubmit: (evt) => {
    evt.preventDefault();
    const wanted = {source: chosen.source || from.input.value.trim(), target: chosen.target || to.input.value.trim(),
      max: maxLength.value, exclude: excludedPredicates(exclude.value).join(" ")};
    if (!wanted.source || !wanted.target) {
      replace(out, errorBox(new Error("name both ends: an entity in From and one in To")));
      return;
    }
    const next = route("paths", wanted);
    if (location.hash === next) find(wanted); else location.hash = next;
  }},
  el("div", {class: "paths-ends"}, el("div", {}, from.box, from.status), el("div", {}, to.box, to.status)),
  el("div", {class: "inline"}, el("label", {for: maxLength.id}, "Hops at most"), maxLength,
    el("label", {for: exclude.id}, "Leave out predicates"), exclude,
    el("button", {type: "submit"}, "Find paths")));
  replace(main, el("h1", {}, "Paths between two entities"),
    el("p", {class: "lead"}, "Pick two entities (type a word of a name, as on the search page): " +
      "the facts that link them, walked either way, each path once."),
    form, out);

  async function find(wanted) {
    replace(out, el("p", {class: "muted"}, "Looking…"));
    try {
      const doc = await api(`/api/paths?${qs({source: wanted.source, target: wanted.target,
        max_length: wanted.max, limit: LIMIT})}${excludedPredicates(wanted.exclude)
        .map((p) => `&${qs({exclude_predicate: p})}`).join("")}`);
      const names = doc.names || {};
      chosen.source = doc.source;
      chosen.target = doc.target;
      from.input.value = names[doc.source] || doc.source;
      to.input.value = names[doc.target] || doc.target;
      showPaths(out, doc);
    } catch (err) {
      // The API's hint names its search route; a person here has the suggestions instead.
      replace(out, errorBox(err.status === 404 || err.status === 400
        ? {message: err.message, hint: "pick an entity from the suggestions that appear as you type " +
          "a word of its name"} : err));
    }
  }
  if (source && target) {
    await find({source, target, max: maxLength.value, exclude: exclude.value});
  } else if (source) {
    // From an entity page: show the entity's name, and ask for the other end.
    to.input.focus();
    try {
      const doc = await api(`/api/entity?${qs({id: source, limit: 1})}`);
      if (from.input.value === source) from.input.value = doc.entity.name || source;
      chosen.source = doc.entity.id;
    } catch (err) {
      replace(out, errorBox(err));
    }
  } else {
    from.input.focus();
  }
}
