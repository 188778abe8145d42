// A read-only Cypher box (POST /api/cypher). The server's allow-list guard refuses
// writes; its message is shown as the error. Ctrl+Enter runs the query too.
import {api, el, errorBox, replace} from "./dom.js";

const EXAMPLE = "MATCH (f:Entity)-[r:Fact]->(d:Entity)\nWHERE r.predicate = 'film.film.directed_by'\nRETURN f.name AS film, d.name AS director LIMIT 10";

function show(value) {
  if (value === null || value === undefined) return "∅";
  return typeof value === "string" ? value : JSON.stringify(value);
}

export function render(main) {
  const query = el("textarea", {id: "cypher-query", rows: 6, spellcheck: "false", class: "mono"});
  query.value = sessionStorage.getItem("kgbench.cypher") || EXAMPLE;
  const limit = el("input", {id: "cypher-limit", type: "number", min: 1, max: 10000, value: 200});
  const out = el("div", {id: "cypher-result", "aria-live": "polite"});
  const run = el("button", {type: "submit"}, "Run");
  const form = el("form", {class: "stack", onsubmit: (evt) => { evt.preventDefault(); submit(); }},
    el("label", {for: query.id}, "Cypher (read-only: MATCH … RETURN)"), query,
    el("div", {class: "inline"}, el("label", {for: limit.id}, "Row limit"), limit, run,
      el("span", {class: "muted"}, "Ctrl+Enter runs it")));
  query.addEventListener("keydown", (evt) => {
    if (evt.key === "Enter" && (evt.ctrlKey || evt.metaKey)) { evt.preventDefault(); submit(); }
  });

  async function submit() {
    sessionStorage.setItem("kgbench.cypher", query.value);
    run.disabled = true;
    replace(out, el("p", {class: "muted"}, "Running…"));
    const started = performance.now();
    try {
      const doc = await api("/api/cypher", {method: "POST",
        body: {query: query.value, limit_rows: Number(limit.value) || 200}});
      const ms = Math.round(performance.now() - started);
      const columns = doc.columns || [];
      const rows = (doc.rows || []).map((r) => Array.isArray(r) ? r : columns.map((c) => r[c]));
      replace(out,
        el("p", {class: "muted", id: "cypher-summary"},
          `${rows.length} row${rows.length === 1 ? "" : "s"}${doc.truncated ? " (truncated at the row limit)" : ""} · ${ms} ms`),
        el("div", {class: "scroll"}, el("table", {class: "rows"},
          el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", {scope: "col"}, c)))),
          el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((v) => el("td", {}, show(v)))))))));
    } catch (err) {
      replace(out, errorBox(err));
    } finally {
      run.disabled = false;
    }
  }
  replace(main, el("h1", {}, "Cypher"), form, out);
  query.focus();
}
