// The benchmark browser: the benchmarks under --data; one benchmark's samples
// filtered by label, complexity and split, searched and paged; its label ×
// complexity table beside CAQA Table 5; one sample's texts beside its subgraph with
// the edited triples highlighted (added: solid orange, removed: dashed orange).
import {api, el, errorBox, qs, replace, route} from "./dom.js";
import {createGraph} from "./graph.js";

const LABELS = ["supportive", "partially_supportive", "contradictory", "irrelevant"];
const COMPLEXITIES = ["single", "union", "intersection", "concatenation"];
const SPLITS = ["train", "test"];
const PAGE = 25;

function select(id, label, values, current) {
  const s = el("select", {id, name: id},
    el("option", {value: ""}, "any"), ...values.map((v) => el("option", {value: v, selected: v === current}, v)));
  return [el("label", {for: id}, label), s];
}

async function benchList(host) {
  try {
    const doc = await api("/api/benchmarks");
    replace(host, doc.benchmarks.length ? el("table", {class: "rows", id: "bench-list"},
      el("caption", {}, "Benchmarks under --data"),
      el("thead", {}, el("tr", {}, ...["benchmark", "samples", "created", "questions from", "report"].map((h) => el("th", {scope: "col"}, h)))),
      el("tbody", {}, ...doc.benchmarks.map((b) => el("tr", {},
        el("td", {}, el("a", {href: route("bench", {name: b.name})}, b.name)),
        el("td", {class: "num"}, b.samples ?? "?"), el("td", {class: "muted"}, b.created),
        el("td", {class: "muted"}, b.source || "—"),
        el("td", {}, b.report ? reportLink(b.name) : el("span", {class: "muted"}, "—"))))))
      : el("p", {}, "No benchmarks under --data yet: start a generate job on the Jobs page."));
  } catch (err) {
    replace(host, errorBox(err));
  }
}

/** The benchmark's report.html, opened in a tab of its own (the server sends it
 *  inline, sandboxed). */
function reportLink(name) {
  return el("a", {href: `/api/benchmarks/report?${qs({bench: name})}`, target: "_blank", rel: "noopener",
    class: "report-link"}, "report.html");
}

const EXPORTS = [["caqa", "CAQA CSV"], ["attrscore", "AttrScore CSV"], ["alce", "ALCE JSON"], ["jsonl", "flat JSONL"]];

/** Download the benchmark in a format people already use (GET /api/benchmarks/export,
 *  as `kgbench export`): a format, a split, and a link that follows them. */
function exportForm(name) {
  const to = el("select", {id: "export-to"}, ...EXPORTS.map(([value, text]) => el("option", {value}, text)));
  const split = el("select", {id: "export-split"}, ...["all", ...SPLITS].map((v) => el("option", {value: v}, v)));
  const link = el("a", {id: "export-link", class: "button-link", download: ""}, "Download");
  const follow = () => link.setAttribute("href",
    `/api/benchmarks/export?${qs({bench: name, to: to.value, split: split.value})}`);
  to.addEventListener("change", follow);
  split.addEventListener("change", follow);
  follow();
  return el("div", {class: "inline", id: "bench-export"},
    el("label", {for: to.id}, "Export as"), to, el("label", {for: split.id}, "Export split"), split, link,
    el("span", {class: "muted small"}, "The CSVs end with each sample's id: an evaluator's labels join back " +
      "by it for an evaluate job's predictions."));
}

function pct(x) {
  return `${Number(x).toFixed(1)}%`;
}

async function tablePanel(host, name) {
  try {
    const t = await api(`/api/benchmarks/table?${qs({bench: name})}`);
    const counts = el("table", {class: "rows compact", id: "label-table"},
      el("caption", {}, `Samples by split, label and complexity (${t.total})`),
      el("thead", {}, el("tr", {}, el("th", {scope: "col"}, "split"), el("th", {scope: "col"}, "label"),
        ...t.complexities.map((c) => el("th", {scope: "col"}, c.slice(0, 6))), el("th", {scope: "col"}, "total"))),
      el("tbody", {}, ...t.splits.flatMap((split) => t.labels.map((label, i) => {
        const row = t.by_split[split][label];
        const cells = t.complexities.map((c) => row[c]);
        return el("tr", {}, el("td", {}, i === 0 ? split : ""), el("td", {}, label.replace("_", " ")),
          ...cells.map((v) => el("td", {class: "num"}, v)), el("td", {class: "num"}, cells.reduce((a, b) => a + b, 0)));
      }))));
    const rows = [];
    for (const group of ["label", "complexity"]) {
      for (const [name2, r] of Object.entries(t.caqa[group])) {
        rows.push(el("tr", {class: r.flagged ? "flagged" : ""}, el("td", {}, group), el("td", {}, name2.replace("_", " ")),
          el("td", {class: "num"}, pct(r.share_pct)), el("td", {class: "num"}, pct(r.caqa_share_pct)),
          el("td", {class: "num"}, `${r.diff_points >= 0 ? "+" : ""}${Number(r.diff_points).toFixed(1)}`,
            r.flagged ? el("span", {class: "flag"}, ` off by > ${t.caqa.label_tolerance_points}`) : "")));
      }
    }
    const caqa = el("table", {class: "rows compact", id: "caqa-table"},
      el("caption", {}, `Shares vs CAQA Table 5 (${t.caqa.caqa_samples.toLocaleString()} samples)`),
      el("thead", {}, el("tr", {}, ...["", "", "ours", "CAQA", "diff (points)"].map((h) => el("th", {scope: "col"}, h)))),
      el("tbody", {}, ...rows));
    replace(host, el("div", {class: "side-by-side"}, counts, caqa));
  } catch (err) {
    replace(host, errorBox(err));
  }
}

function sampleBrowser(host, name, params) {
  const state = {label: params.get("label") || "", complexity: params.get("complexity") || "",
    split: params.get("split") || "", q: params.get("q") || "", offset: Number(params.get("offset")) || 0};
  const [labelL, labelS] = select("f-label", "Label", LABELS, state.label);
  const [cxL, cxS] = select("f-complexity", "Complexity", COMPLEXITIES, state.complexity);
  const [splitL, splitS] = select("f-split", "Split", SPLITS, state.split);
  const q = el("input", {id: "f-q", type: "search", value: state.q, placeholder: "text in question, answer, citations"});
  const list = el("div", {id: "sample-list", "aria-live": "polite"});
  const apply = (offset) => {
    location.hash = route("bench", {name, label: labelS.value, complexity: cxS.value, split: splitS.value,
      q: q.value.trim(), offset: offset || ""});
  };
  const form = el("form", {class: "inline filters", onsubmit: (evt) => { evt.preventDefault(); apply(0); }},
    labelL, labelS, cxL, cxS, splitL, splitS, el("label", {for: q.id}, "Search"), q,
    el("button", {type: "submit"}, "Apply"));
  for (const s of [labelS, cxS, splitS]) s.addEventListener("change", () => apply(0));
  replace(host, form, list);
  (async () => {
    try {
      const doc = await api(`/api/samples?${qs({bench: name, label: state.label, complexity: state.complexity,
        split: state.split, q: state.q, offset: state.offset, limit: PAGE})}`);
      const end = doc.offset + doc.samples.length;
      replace(list,
        el("p", {class: "muted", id: "sample-count"}, doc.total ? `${doc.offset + 1}–${end} of ${doc.total} samples` : "No sample matches.",
          doc.invalid_lines ? ` (${doc.invalid_lines} unreadable lines skipped)` : ""),
        el("ol", {class: "samples", start: doc.offset + 1}, ...doc.samples.map((s) => el("li", {},
          el("a", {href: route("sample", {bench: name, id: s.id})}, s.question || s.id), " ",
          el("span", {class: `tag label-${s.label}`}, s.label.replace("_", " ")), " ",
          el("span", {class: "tag"}, s.complexity), " ", el("span", {class: "tag muted"}, s.split)))),
        el("div", {class: "inline"},
          doc.offset > 0 ? el("button", {type: "button", onclick: () => apply(Math.max(0, doc.offset - PAGE))}, "Previous") : "",
          end < doc.total ? el("button", {type: "button", onclick: () => apply(end)}, "Next") : ""));
    } catch (err) {
      replace(list, errorBox(err));
    }
  })();
}

export function render(main, params) {
  const name = params.get("name");
  if (!name) {
    const host = el("div", {});
    replace(main, el("h1", {}, "Benchmarks"), host);
    benchList(host);
    return;
  }
  const browser = el("div", {});
  const tables = el("div", {});
  const reportNote = el("p", {id: "bench-report"});
  api("/api/benchmarks").then((doc) => {
    const found = (doc.benchmarks || []).find((b) => b.name === name);
    if (found && found.report) {
      replace(reportNote, "Plots, failures and one drawn example per kind: ", reportLink(name));
    }
  }).catch(() => {});
  replace(main, el("p", {}, el("a", {href: route("bench")}, "← all benchmarks")),
    el("h1", {}, `Benchmark ${name}`), reportNote, exportForm(name), el("div", {class: "two-col"},
      el("div", {class: "col-left"}, el("h2", {}, "Samples"), browser),
      el("div", {class: "col-right"}, el("h2", {}, "Label × complexity"), tables)));
  sampleBrowser(browser, name, params);
  tablePanel(tables, name);
}

function tripleText(t) {
  return `${t.s_name || t.s} —${t.p}→ ${t.literal ? `"${t.o}"` : (t.o_name || t.o)}`;
}

export async function renderSample(main, params) {
  const name = params.get("bench");
  const id = params.get("id");
  replace(main, el("p", {class: "muted"}, "Loading…"));
  let doc;
  try {
    doc = await api(`/api/sample?${qs({bench: name, id})}`);
  } catch (err) {
    replace(main, errorBox(err));
    return;
  }
  const s = doc.sample;
  const graphHost = el("div", {class: "graph-host"});
  const edit = s.edit || {};
  replace(main, el("p", {}, el("a", {href: route("bench", {name})}, `← ${name}`)),
    el("div", {class: "two-col"},
      el("article", {class: "col-left sample", id: "sample"},
        el("h1", {id: "sample-question"}, s.question),
        el("p", {}, el("span", {class: `tag label-${s.label}`, id: "sample-label"}, s.label), " ",
          el("span", {class: "tag", id: "sample-complexity"}, s.complexity), " ",
          el("span", {class: "tag muted"}, s.split), " ", el("span", {class: "muted mono"}, s.id)),
        el("h2", {}, "Extended question"), el("p", {}, s.question_extended),
        el("h2", {}, "Answer"), el("p", {id: "sample-answer"}, s.answer),
        el("h2", {}, "Citations"), el("ol", {class: "citations", id: "sample-citations"},
          ...s.citations.map((c) => el("li", {}, c.text))),
        el("h2", {}, "Edit"), el("p", {}, `${edit.kind || "none"}`,
          edit.contradicts ? ` (replaces the ${edit.contradicts})` : ""),
        (edit.deleted || []).length ? el("ul", {class: "plain"}, ...edit.deleted.map((t) => el("li", {class: "removed"}, "removed: ", tripleText(t)))) : "",
        el("p", {class: "muted"}, `supported fraction ${Number(s.supported_fraction).toFixed(2)} · rule ${s.query.rule} · verbalizer ${s.verbalizer}`)),
      el("div", {class: "col-right"}, el("h2", {}, "Subgraph"),
        el("p", {class: "legend"}, el("span", {class: "key key-added"}, "added by the edit"), " ",
          el("span", {class: "key key-removed"}, "removed by the edit"), " ",
          el("span", {class: "key key-context"}, "store context")),
        graphHost,
        el("p", {class: "muted", id: "edge-summary"},
          `${doc.added.length} added, ${doc.removed.length} removed, ${doc.context.length} context edges`))));
  const classes = {};
  for (const e of doc.added) classes[e] = "added";
  for (const e of doc.removed) classes[e] = "removed";
  for (const e of doc.context) classes[e] = "context";
  const graph = createGraph(graphHost, {caption: `Subgraph of sample ${s.id}`,
    onActivate: (node) => { if (node.kind === "entity") location.hash = route("entity", {id: node.id}); }});
  graph.add(doc.graph, {classes});
  graph.panel.dataset.highlighted = String(doc.graph.edges.filter((e) => e.highlight).length);
}
