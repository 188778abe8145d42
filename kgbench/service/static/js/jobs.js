// Jobs: start one (the forms of jobforms.js), list jobs, follow one live (server-sent
// events from /api/jobs/{id}/events), cancel or resume it, open what it wrote (a
// report.html in a tab of its own, the rest downloaded).
import {api, el, errorBox, replace, route} from "./dom.js";
import {startForm} from "./jobforms.js";

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

function shortTime(iso) {
  // "2025-01-02T10:11:12Z" -> "2025-01-02 10:11" (the full time in the title)
  return iso ? iso.replace("T", " ").slice(0, 16) : "";
}

function jobRow(job) {
  return el("tr", {dataset: {job: job.id}},
    el("td", {}, el("a", {href: route("jobs", {id: job.id})}, job.id)),
    el("td", {}, job.kind), el("td", {}, stateBadge(job)),
    el("td", {class: "job-out mono"}, job.out || ""),
    el("td", {}, progressBar(job), " ", el("span", {class: "muted"}, progressText(job))),
    el("td", {class: "muted", title: job.created || ""}, shortTime(job.created)));
}

async function jobList(host) {
  try {
    const doc = await api("/api/jobs");
    const jobs = doc.jobs || [];
    replace(host, jobs.length ? el("div", {class: "table-box"}, el("table", {class: "rows job-list", id: "job-list"},
      el("caption", {}, "Jobs (newest first)"),
      el("thead", {}, el("tr", {}, ...["job", "kind", "state", "output", "progress", "created"].map((h) =>
        el("th", {scope: "col"}, h)))),
      el("tbody", {}, ...jobs.map(jobRow)))) : el("p", {class: "muted"}, "No jobs yet."));
  } catch (err) {
    replace(host, errorBox(err));
  }
}

function fileLink(id, path) {
  const href = `/api/jobs/${encodeURIComponent(id)}/files/${path.split("/").map(encodeURIComponent).join("/")}`;
  // A page (report.html) opens in a tab of its own; anything else downloads.
  return /\.html?$/i.test(path) ? el("a", {href, target: "_blank", rel: "noopener"}, path)
    : el("a", {href, download: path.split("/").pop()}, path);
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
      const hasReport = list.some((f) => (f.path || f) === "report.html");
      replace(files, el("h3", {}, "Files"), el("ul", {class: "plain", id: "job-files"},
        ...list.map((f) => {
          const path = f.path || f;
          return el("li", {}, fileLink(id, path), f.size !== undefined ? el("span", {class: "muted"}, ` ${f.size} bytes`) : "");
        })),
        isBench && job.out ? el("p", {class: "inline", id: "job-links"}, el("a", {href: route("bench", {name: job.out})}, "Browse its samples"),
          hasReport ? fileLink(id, "report.html") : "") : "");
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

export async function render(main, params) {
  closeStream();
  const detail = el("div", {});
  const list = el("div", {id: "job-list-box"});
  const formHost = el("div", {}, el("p", {class: "muted"}, "Loading the form…"));
  // The list spans the page under the form and the job: in a column its rows ran
  // under the job's files (issue 38).
  replace(main, el("h1", {}, "Jobs"), el("div", {class: "two-col"},
    el("div", {class: "col-left"}, formHost),
    el("div", {class: "col-right"}, detail)), list);
  jobList(list);
  const id = params.get("id");
  if (id) jobDetail(detail, id, () => jobList(list));
  replace(formHost, await startForm((job) => { location.hash = route("jobs", {id: job.id}); }));
}

export function leave() {
  closeStream();
}
