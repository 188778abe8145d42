// Jobs: start a generate job, list jobs, follow one live (server-sent events from
// /api/jobs/{id}/events), cancel it, download what it wrote.
import {api, el, errorBox, qs, replace, route} from "./dom.js";

const FINISHED = new Set(["succeeded", "failed", "cancelled", "interrupted"]);

function progressText(job) {
  const p = job.progress || {};
  const parts = [];
  if (p.total) parts.push(`${p.done ?? 0} / ${p.total}`);
  else if (p.done) parts.push(`${p.done} done`);
  if (p.rate_per_s) parts.push(`${Number(p.rate_per_s).toFixed(1)}/s`);
  if (p.eta_s !== null && p.eta_s !== undefined && !FINISHED.has(job.state)) parts.push(`ETA ${Math.round(p.eta_s)} s`);
  if (p.description) parts.push(p.description);
  return parts.join(" · ");
}

function progressBar(job) {
  const p = job.progress || {};
  const attrs = {class: "job-progress", "aria-label": `progress of job ${job.id}`};
  if (p.total) { attrs.max = p.total; attrs.value = Math.min(p.done ?? 0, p.total); }
  else if (job.state === "succeeded") { attrs.max = 1; attrs.value = 1; }
  return el("progress", attrs);
}

function stateBadge(job) {
  return el("span", {class: `state state-${job.state}`, "data-state": job.state}, job.state);
}

function startForm(onStarted) {
  const questions = el("input", {id: "job-questions", type: "text", required: true,
    placeholder: "questions.jsonl", spellcheck: "false"});
  const limit = el("input", {id: "job-limit", type: "number", min: 1, placeholder: "all"});
  const seed = el("input", {id: "job-seed", type: "number", value: 0});
  const extra = el("textarea", {id: "job-extra", rows: 2, class: "mono", spellcheck: "false",
    placeholder: '{"test_fraction": 0.15}'});
  const note = el("div", {"aria-live": "polite"});
  const form = el("form", {class: "stack card", onsubmit: async (evt) => {
    evt.preventDefault();
    let params = {};
    try {
      params = extra.value.trim() ? JSON.parse(extra.value) : {};
    } catch {
      replace(note, errorBox(new Error("other parameters: not JSON (write an object such as {\"seed\": 1})")));
      return;
    }
    params.questions = questions.value.trim();
    if (limit.value) params.limit = Number(limit.value);
    if (seed.value !== "") params.seed = Number(seed.value);
    try {
      const job = await api("/api/jobs", {method: "POST", body: {kind: "generate", params}});
      replace(note, el("p", {}, "Started job ", el("a", {href: route("jobs", {id: job.id})}, job.id), "."));
      onStarted(job);
    } catch (err) {
      replace(note, errorBox(err));
    }
  }},
  el("h2", {}, "Generate a benchmark"),
  el("label", {for: questions.id}, "Questions file (relative to the server's --data directory)"), questions,
  el("div", {class: "inline"}, el("label", {for: limit.id}, "Questions at most"), limit,
    el("label", {for: seed.id}, "Seed"), seed),
  el("label", {for: extra.id}, "Other parameters (JSON object, optional)"), extra,
  el("div", {}, el("button", {type: "submit", id: "job-start"}, "Start")), note);
  return form;
}

function jobRow(job) {
  return el("tr", {dataset: {job: job.id}},
    el("td", {}, el("a", {href: route("jobs", {id: job.id})}, job.id)),
    el("td", {}, job.kind), el("td", {}, stateBadge(job)),
    el("td", {}, progressBar(job), " ", el("span", {class: "muted"}, progressText(job))),
    el("td", {class: "muted"}, job.created || ""));
}

async function jobList(host) {
  try {
    const doc = await api("/api/jobs");
    const jobs = doc.jobs || [];
    replace(host, jobs.length ? el("table", {class: "rows job-list", id: "job-list"},
      el("caption", {}, "Jobs (newest first)"),
      el("thead", {}, el("tr", {}, ...["job", "kind", "state", "progress", "created"].map((h) =>
        el("th", {scope: "col"}, h)))),
      el("tbody", {}, ...jobs.map(jobRow))) : el("p", {class: "muted"}, "No jobs yet."));
  } catch (err) {
    replace(host, errorBox(err));
  }
}

let stream = null;

function closeStream() {
  if (stream) { stream.close(); stream = null; }
}

async function jobDetail(host, id, onChange) {
  closeStream();
  const box = el("section", {class: "card", id: "job-detail", "aria-live": "polite"});
  const files = el("div", {});
  const note = el("div", {});
  replace(host, box, files, note);
  let job;
  try {
    job = await api(`/api/jobs/${encodeURIComponent(id)}`);
  } catch (err) {
    replace(box, errorBox(err));
    return;
  }
  const draw = (j) => {
    const changed = !job || job.state !== j.state;
    job = j;
    if (changed && onChange) onChange(j);
    const cancel = el("button", {type: "button", id: "job-cancel", onclick: async () => {
      try { draw(await api(`/api/jobs/${encodeURIComponent(id)}/cancel`, {method: "POST"})); }
      catch (err) { replace(note, errorBox(err)); }
    }}, "Cancel");
    const resume = el("button", {type: "button", id: "job-resume", onclick: async () => {
      try { draw(await api(`/api/jobs/${encodeURIComponent(id)}/resume`, {method: "POST"})); follow(); }
      catch (err) { replace(note, errorBox(err)); }
    }}, "Resume");
    replace(box, el("h2", {}, `Job ${j.id} (${j.kind})`),
      el("p", {}, "State: ", stateBadge(j)),
      el("p", {}, progressBar(j), " ", el("span", {id: "job-progress-text"}, progressText(j))),
      j.error ? el("p", {class: "error", role: "alert"}, j.error) : "",
      el("p", {class: "muted"}, `output: ${j.out || "—"} · attempts ${j.attempts ?? 1}`),
      el("div", {class: "inline"}, FINISHED.has(j.state) ? "" : cancel,
        j.resumable && ["cancelled", "failed", "interrupted"].includes(j.state) ? resume : ""));
    if (FINISHED.has(j.state)) loadFiles();
  };
  const loadFiles = async () => {
    try {
      const doc = await api(`/api/jobs/${encodeURIComponent(id)}/files`);
      const list = doc.files || doc;
      const isBench = list.some((f) => (f.path || f) === "samples.jsonl");
      replace(files, el("h3", {}, "Files"), el("ul", {class: "plain", id: "job-files"},
        ...list.map((f) => {
          const path = f.path || f;
          return el("li", {}, el("a", {href: `/api/jobs/${encodeURIComponent(id)}/files/${path.split("/").map(encodeURIComponent).join("/")}`,
            download: path.split("/").pop()}, path), f.size !== undefined ? el("span", {class: "muted"}, ` ${f.size} bytes`) : "");
        })),
        isBench && job.out ? el("p", {}, el("a", {href: route("bench", {name: job.out})}, "Browse its samples")) : "");
    } catch (err) {
      replace(files, errorBox(err));
    }
  };
  const follow = () => {
    closeStream();
    if (FINISHED.has(job.state)) return;
    stream = new EventSource(`/api/jobs/${encodeURIComponent(id)}/events`);
    stream.addEventListener("progress", (evt) => draw(JSON.parse(evt.data)));
    stream.addEventListener("end", (evt) => {
      closeStream();   // else EventSource would reconnect to a finished stream
      draw(JSON.parse(evt.data));
    });
    stream.onerror = async () => {
      // The stream broke (server restart, network): read the job once and stop following.
      closeStream();
      try { draw(await api(`/api/jobs/${encodeURIComponent(id)}`)); } catch (err) { replace(note, errorBox(err)); }
    };
  };
  draw(job);
  follow();
}

export function render(main, params) {
  closeStream();
  const detail = el("div", {});
  const list = el("div", {});
  replace(main, el("h1", {}, "Jobs"), el("div", {class: "two-col"},
    el("div", {class: "col-left"}, startForm((job) => { location.hash = route("jobs", {id: job.id}); }), list),
    el("div", {class: "col-right"}, detail)));
  jobList(list);
  const id = params.get("id");
  if (id) jobDetail(detail, id, () => jobList(list));
}

export function leave() {
  closeStream();
}
