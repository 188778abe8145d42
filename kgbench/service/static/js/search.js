// Entity search with autocomplete (GET /api/search: words and parts of names, accents
// and case ignored, best first) following the ARIA combobox pattern: arrow keys move
// through the suggestions, Enter opens one, Escape closes the list; text that matches
// nothing says so under the box. Enter with nothing chosen looks the text up
// (GET /api/lookup: id, then name, then search) and lists what it found.
import {api, debounce, el, errorBox, qs, replace, route} from "./dom.js";

let counter = 0;

/** What to tell a person whose text matches no entity. */
export function nothingMatches(text) {
  return `No entity name or alias holds “${text}”. Check the spelling, or type one word of the name.`;
}

/** An autocomplete box; onPick(entity) is called with the chosen entity. `status`
 * (placed by the caller, e.g. under the box) says when the text matches nothing. */
export function entityCombobox({onPick, onSubmit, label = "Find an entity", autofocus = false}) {
  const n = ++counter;
  const listId = `suggest-${n}`;
  const input = el("input", {type: "search", id: `entity-q-${n}`, role: "combobox",
    "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": listId,
    autocomplete: "off", spellcheck: "false", placeholder: "a name, a word of one, or an id: e.g. godfather",
    autofocus});
  const list = el("ul", {id: listId, role: "listbox", class: "suggestions", hidden: true,
    "aria-label": "Suggestions"});
  const box = el("div", {class: "combobox"},
    el("label", {for: input.id}, label), input, list);
  const status = el("p", {class: "search-status", id: `search-status-${n}`, role: "status",
    "aria-live": "polite"});
  input.setAttribute("aria-describedby", status.id);
  let items = [];
  let active = -1;
  let pending = null;

  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }

  function show(entities) {
    items = entities;
    active = -1;
    replace(list, ...entities.map((e, i) => el("li", {
      id: `${listId}-${i}`, role: "option", "aria-selected": "false", class: "suggestion",
      dataset: {id: e.id},
      onmousedown: (evt) => evt.preventDefault(),   // keep focus in the input
      onclick: () => pick(i),
    }, el("span", {class: "s-name"}, e.name || e.id), " ",
       el("span", {class: "s-id"}, e.id),
       e.types && e.types.length ? el("span", {class: "s-types"}, e.types.slice(0, 2).join(", ")) : "")));
    const open = entities.length > 0;
    list.hidden = !open;
    input.setAttribute("aria-expanded", String(open));
  }

  function move(delta) {
    if (!items.length) return;
    active = (active + delta + items.length) % items.length;
    [...list.children].forEach((li, i) => li.setAttribute("aria-selected", String(i === active)));
    const current = list.children[active];
    input.setAttribute("aria-activedescendant", current.id);
    current.scrollIntoView({block: "nearest"});
  }

  function pick(i) {
    const entity = items[i];
    close();
    if (entity) onPick(entity);
  }

  const suggest = debounce(async () => {
    const prefix = input.value.trim();
    if (pending) pending.abort();
    if (!prefix) { close(); status.textContent = ""; return; }
    pending = new AbortController();
    try {
      const doc = await api(`/api/search?${qs({q: prefix, limit: 12})}`, {signal: pending.signal});
      if (input.value.trim() === prefix) {
        const found = doc.entities || [];
        show(found);
        status.textContent = found.length ? "" : nothingMatches(prefix);
      }
    } catch (err) {
      if (err.name !== "AbortError") { close(); box.dispatchEvent(new CustomEvent("searcherror", {detail: err})); }
    }
  }, 120);

  input.addEventListener("input", suggest);
  input.addEventListener("keydown", (evt) => {
    if (evt.key === "ArrowDown") { evt.preventDefault(); if (list.hidden && items.length) show(items); move(1); }
    else if (evt.key === "ArrowUp") { evt.preventDefault(); move(-1); }
    else if (evt.key === "Escape") { close(); }
    else if (evt.key === "Enter") {
      evt.preventDefault();
      if (active >= 0) pick(active);
      else if (onSubmit) { close(); onSubmit(input.value.trim()); }
    }
  });
  input.addEventListener("blur", () => setTimeout(close, 150));
  return {box, input, status};
}

/** The search page. */
export function render(main) {
  const results = el("div", {class: "results", "aria-live": "polite"});
  const {box, input, status} = entityCombobox({
    autofocus: true,
    onPick: (e) => { location.hash = route("entity", {id: e.id}); },
    onSubmit: async (q) => {
      if (!q) return;
      try {
        const doc = await api(`/api/lookup?${qs({q, limit: 50})}`);
        const found = [...(doc.results || []).map((r) => r.entity), ...(doc.candidates || [])];
        replace(results, found.length
          ? el("ul", {class: "plain"}, ...found.map((e) => el("li", {},
              el("a", {href: route("entity", {id: e.id})}, e.name || e.id), " ",
              el("span", {class: "s-id"}, e.id))))
          : el("p", {class: "nothing"}, nothingMatches(q)));
      } catch (err) {
        // Nothing found is an answer, not an error: say it as the suggestions do.
        replace(results, err.status === 404 ? el("p", {class: "nothing"}, nothingMatches(q))
          : errorBox(err));
      }
    },
  });
  box.addEventListener("searcherror", (evt) => replace(results, errorBox(evt.detail)));
  replace(main, el("h1", {}, "Search the knowledge graph"),
    el("p", {class: "lead"}, "Type a name or a word of one (“coppola”, “godfa”): suggestions " +
      "appear as you type, best first (↓ ↑ to move, Enter to open)."),
    box, status, results);
  input.focus();
}
