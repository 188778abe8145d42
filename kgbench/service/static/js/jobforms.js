// The "Start a job" form: one set of fields per job the API runs (POST /api/jobs:
// generate from questions or from a domain, score, evaluate, KaLMA entries, parse),
// a name for the output, and pickers that offer the files and directories under the
// server's --data (GET /api/data/files). Every path is relative to --data.
import {api, el, errorBox, replace, route} from "./dom.js";

const LAST_FORM = "kgbench.job-form";
const QUESTION_FILES = [".json", ".jsonl", ".gz", ".bz2", ".zst"];
const OUT_FIELD = {name: "out", label: "Output name (a new directory under --data)", type: "text",
  placeholder: "benchmarks/my-benchmark (empty: jobs/<id>/out)"};

// Each form: the job kind it submits, its fields (name = the API parameter), and
// fixed parameters. A field's type: text, number, select, check, file (a picker of
// files, `suffixes`) or dir (a picker of directories).
export const FORMS = [
  {id: "generate-questions", title: "Generate from questions", kind: "generate", fields: [
    {name: "questions", label: "Questions file (relative to the server's --data directory)",
      type: "file", suffixes: QUESTION_FILES, required: true, placeholder: "questions.jsonl"},
    {name: "format", label: "Format", type: "select", options: ["", "webqsp", "grailqa", "jsonl"],
      optionText: {"": "detect"}},
    {name: "limit", label: "Questions at most", type: "number", min: 1, placeholder: "all"},
    {name: "seed", label: "Seed", type: "number", min: 0, value: 0},
    {name: "test_fraction", label: "Test fraction", type: "number", min: 0, max: 1, step: 0.05, placeholder: "0.2"},
    OUT_FIELD,
    {name: "report", label: "Write report.html", type: "check", value: true}]},
  {id: "generate-domain", title: "Generate from a domain (no questions needed)", kind: "generate", fields: [
    {name: "domain", label: "Domain (a type of the store, e.g. people.person or Q5)", type: "text",
      required: true, placeholder: "people.person"},
    {name: "n", label: "Seed questions", type: "number", min: 1, value: 300},
    {name: "seed", label: "Seed", type: "number", min: 0, value: 0},
    {name: "test_fraction", label: "Test fraction", type: "number", min: 0, max: 1, step: 0.05, placeholder: "0.2"},
    OUT_FIELD,
    {name: "report", label: "Write report.html", type: "check", value: true}]},
  {id: "score", title: "Score a benchmark with models", kind: "score", fields: [
    {name: "bench", label: "Benchmark directory", type: "dir", required: true, placeholder: "benchmarks/demo"},
    {name: "nli", label: "NLI model directory (exported)", type: "dir", placeholder: "models/nli"},
    {name: "lm", label: "Causal LM directory (exported)", type: "dir", placeholder: "models/lm"},
    {name: "split", label: "Split", type: "select", options: ["all", "train", "test"]},
    {name: "flag_below", label: "Flag samples below (NLI probability)", type: "number", min: 0, max: 1, step: 0.05}],
    note: "Scores are written into the benchmark directory itself."},
  {id: "evaluate", title: "Evaluate an evaluator", kind: "evaluate", fields: [
    {name: "bench", label: "Benchmark directory", type: "dir", required: true, placeholder: "benchmarks/demo"},
    {name: "predictions", label: "Predictions file ({\"id\", \"label\"} per line)", type: "file",
      suffixes: [".jsonl", ".json"], placeholder: "predictions.jsonl"},
    {name: "model", label: "or an exported model directory", type: "dir", placeholder: "models/caqa-evaluator"},
    {name: "llm_url", label: "or an LLM endpoint (OpenAI-compatible)", type: "text", placeholder: "http://127.0.0.1:11434/v1"},
    {name: "llm_model", label: "LLM model", type: "text", placeholder: "llama3.1:8b"},
    {name: "scheme", label: "Label scheme", type: "select", options: ["ours", "caqa", "attrscore"]},
    {name: "split", label: "Split", type: "select", options: ["test", "train", "all"]},
    OUT_FIELD]},
  {id: "kalma", title: "KaLMA entries (BioKaLMA)", kind: "kalma-generate", fields: [
    {name: "domain", label: "Domain (a type of the store)", type: "text", placeholder: "Q5 or people.person", value: ""},
    {name: "n", label: "Entries", type: "number", min: 1, value: 100},
    {name: "seed", label: "Seed", type: "number", min: 0, value: 0},
    {name: "incompetence", label: "Knowledge removed for [NA] variants (e.g. 1,2)", type: "list", placeholder: "1,2"},
    {name: "lm", label: "Causal LM directory for coherence (optional)", type: "dir", placeholder: "models/lm"},
    OUT_FIELD]},
  {id: "parse", title: "Parse questions (query graphs, shapes)", kind: "parse", fields: [
    {name: "file", label: "Questions file", type: "file", suffixes: QUESTION_FILES, required: true,
      placeholder: "questions.jsonl"},
    {name: "format", label: "Format", type: "select", options: ["", "webqsp", "grailqa", "jsonl"],
      optionText: {"": "detect"}},
    {name: "store_types", label: "Also use the store's CVT types", type: "check", value: false},
    OUT_FIELD]},
];

/** The files and directories under --data, read once per form (null: not readable). */
async function dataEntries() {
  try {
    return (await api("/api/data/files")).entries || [];
  } catch {
    return null;
  }
}

function pickerOptions(list, field, entries) {
  const wanted = (entries || []).filter((e) => field.type === "dir" ? e.kind === "dir"
    : e.kind === "file" && (!field.suffixes || field.suffixes.some((s) => e.path.endsWith(s))));
  replace(list, ...wanted.map((e) => el("option", {value: e.path})));
  return wanted.length;
}

function fieldControl(form, field, entries) {
  const id = `job-${form.id}-${field.name}`;
  const label = el("label", {for: id}, field.label);
  if (field.type === "check") {
    const box = el("input", {id, type: "checkbox", name: field.name, checked: field.value});
    return {node: el("div", {class: "inline field-wide"}, box, label), read: () => box.checked};
  }
  if (field.type === "select") {
    const select = el("select", {id, name: field.name}, ...field.options.map((o) =>
      el("option", {value: o}, (field.optionText || {})[o] ?? o)));
    return {node: el("div", {class: "stack field-small"}, label, select), read: () => select.value || undefined};
  }
  const attrs = {id, name: field.name, type: field.type === "number" ? "number" : "text",
    placeholder: field.placeholder, required: field.required, spellcheck: "false",
    min: field.min, max: field.max, step: field.step, value: field.value, autocomplete: "off"};
  const input = el("input", attrs);
  const parts = [label, input];
  if (field.type === "file" || field.type === "dir") {
    const list = el("datalist", {id: `${id}-choices`});
    input.setAttribute("list", list.id);
    const count = pickerOptions(list, field, entries);
    parts.push(list, el("span", {class: "muted small"}, entries === null ? ""
      : count ? `${count} ${field.type === "dir" ? "directories" : "files"} under --data to pick from`
        : `none under --data yet`));
  }
  const read = () => {
    const text = input.value.trim();
    if (text === "") return undefined;
    if (field.type === "number") return Number(text);
    if (field.type === "list") return text.split(/[,\s]+/).filter(Boolean).map(Number);
    return text;
  };
  const size = field.type === "number" ? "field-small" : "field-wide";
  return {node: el("div", {class: `stack ${size}`}, ...parts), read};
}

function formBody(form, entries) {
  const controls = form.fields.map((f) => [f.name, fieldControl(form, f, entries)]);
  const body = el("div", {class: "job-fields", dataset: {form: form.id}},
    ...controls.map(([, c]) => c.node), form.note ? el("p", {class: "muted field-wide"}, form.note) : "");
  const params = () => {
    const out = {};
    for (const [name, control] of controls) {
      const value = control.read();
      if (value !== undefined) out[name] = value;
    }
    return out;
  };
  return {body, params};
}

/** The card with the kind picker, the chosen kind's fields, other parameters (JSON)
 *  and Start; onStarted(job) once the server has queued the job. */
export async function startForm(onStarted) {
  const entries = await dataEntries();
  const last = sessionStorage.getItem(LAST_FORM);
  const kind = el("select", {id: "job-kind"}, ...FORMS.map((f) =>
    el("option", {value: f.id, selected: f.id === last, "data-kind": f.kind}, f.title)));
  const fieldsHost = el("div", {});
  const extra = el("textarea", {id: "job-extra", rows: 2, class: "mono", spellcheck: "false",
    placeholder: '{"workers": 2}'});
  const note = el("div", {"aria-live": "polite"});
  let current = null;
  const show = () => {
    const form = FORMS.find((f) => f.id === kind.value) || FORMS[0];
    sessionStorage.setItem(LAST_FORM, form.id);   // the page is drawn again once a job starts
    current = {form, ...formBody(form, entries)};
    replace(fieldsHost, current.body);
  };
  kind.addEventListener("change", show);
  show();
  const card = el("form", {class: "stack card", id: "job-form", onsubmit: async (evt) => {
    evt.preventDefault();
    let params = {};
    try {
      params = extra.value.trim() ? JSON.parse(extra.value) : {};
      if (typeof params !== "object" || Array.isArray(params) || params === null) throw new Error();
    } catch {
      replace(note, errorBox(new Error("other parameters: not a JSON object (write one such as {\"seed\": 1})")));
      return;
    }
    params = {...current.params(), ...params};
    try {
      const job = await api("/api/jobs", {method: "POST", body: {kind: current.form.kind, params}});
      replace(note, el("p", {}, "Started job ", el("a", {href: route("jobs", {id: job.id})}, job.id),
        `: output in ${job.out}.`));
      onStarted(job);
    } catch (err) {
      replace(note, errorBox(err));
    }
  }},
  el("h2", {}, "Start a job"),
  el("label", {for: kind.id}, "Kind of job"), kind,
  fieldsHost,
  el("details", {}, el("summary", {}, "Other parameters"),
    el("label", {for: extra.id}, "Other parameters (JSON object, optional)"), extra,
    el("p", {class: "muted"}, "Any parameter of the kind (see /api/docs, POST /api/jobs); these win over the fields above.")),
  el("div", {}, el("button", {type: "submit", id: "job-start"}, "Start")), note);
  return card;
}
