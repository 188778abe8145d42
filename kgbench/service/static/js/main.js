// The single-page app's router: "#/page?key=value" picks a page module and hands it
// the query. Each page draws into <main>; the nav marks the current page.
import {el, errorBox, replace} from "./dom.js";
import * as search from "./search.js";
import * as entity from "./entity.js";
import * as paths from "./paths.js";
import * as cypher from "./cypher.js";
import * as jobs from "./jobs.js";
import * as bench from "./bench.js";

const PAGES = {
  search: {render: search.render, title: "Search", nav: "search"},
  entity: {render: entity.render, title: "Entity", nav: "search"},
  paths: {render: paths.render, title: "Paths", nav: "paths"},
  cypher: {render: cypher.render, title: "Cypher", nav: "cypher"},
  jobs: {render: jobs.render, leave: jobs.leave, title: "Jobs", nav: "jobs"},
  bench: {render: bench.render, title: "Benchmarks", nav: "bench"},
  sample: {render: bench.renderSample, title: "Sample", nav: "bench"},
};

let current = null;

function parse() {
  const hash = location.hash.replace(/^#\/?/, "");
  const [page, query] = hash.split("?", 2);
  return {page: page || "search", params: new URLSearchParams(query || "")};
}

async function show() {
  const {page, params} = parse();
  const main = document.getElementById("main");
  if (current && current.leave) current.leave();
  current = PAGES[page] || null;
  for (const link of document.querySelectorAll("nav a[data-nav]")) {
    if (current && link.dataset.nav === current.nav) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (!current) {
    document.title = "kgbench";
    replace(main, errorBox(new Error(`no page “${page}”: use the links above`)));
    return;
  }
  document.title = `${current.title} · kgbench`;
  try {
    await current.render(main, params);
  } catch (err) {
    replace(main, errorBox(err));
  }
  // Focus the page for screen readers, unless it focused a control of its own (a search box).
  if (!main.contains(document.activeElement)) main.focus({preventScroll: true});
}

async function health() {
  const badge = document.getElementById("server-info");
  try {
    const r = await fetch("/api/health", {headers: {Accept: "application/json"}});
    const h = await r.json();
    replace(badge, `${h.backend} · v${h.version}`, h.auth ? el("span", {}, " · token required for jobs") : "");
    // Without a token (a loopback server) there is nothing to log in to.
    document.getElementById("nav-login").hidden = !h.auth;
  } catch {
    replace(badge, "server not reachable");
  }
}

window.addEventListener("hashchange", show);
show();
health();
