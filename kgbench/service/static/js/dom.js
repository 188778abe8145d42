// DOM and API helpers shared by every page. Data from the API only ever enters the
// page as text (textContent / text nodes): no markup is ever parsed from data, so a name like
// "<img src=x onerror=...>" is shown, never run.

/** el("a", {href: "#/x", class: "btn"}, "text", child) -> element. Strings are text nodes;
 *  attributes starting with "on" take functions (listeners), others are set as strings. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(node, children);
  return node;
}

/** Append children (strings become text nodes; null/undefined/false are skipped). */
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replace every child of `node` with `children`. */
export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/** An error the API answered with: `message` is its one line, `hint` what to do. */
export class ApiFailure extends Error {
  constructor(status, message, hint) {
    super(message);
    this.status = status;
    this.hint = hint || null;
  }
}

/** fetch + JSON. Non-2xx answers become ApiFailure with the server's message. */
export async function api(path, {method = "GET", body, signal} = {}) {
  const init = {method, signal, headers: {Accept: "application/json"}, credentials: "same-origin"};
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new ApiFailure(0, "the server did not answer (is kgbench serve running?)");
  }
  let doc = null;
  try {
    doc = await response.json();
  } catch {
    doc = null;
  }
  if (!response.ok) {
    const error = (doc && doc.error) || {};
    const hint = error.hint || (response.status === 401 ? "log in with the server's token" : null);
    throw new ApiFailure(response.status, error.message || `HTTP ${response.status}`, hint);
  }
  return doc;
}

/** An alert box for an error (message as text; a login link after a 401). */
export function errorBox(err) {
  const box = el("div", {class: "error", role: "alert"}, el("strong", {}, "Error: "), err.message || String(err));
  if (err.hint) append(box, [el("div", {class: "hint"}, err.hint)]);
  if (err.status === 401 && location.pathname !== "/login") {
    const next = location.pathname + location.hash;
    append(box, [" ", el("a", {href: `/login?next=${encodeURIComponent(next)}`}, "Log in")]);
  }
  return box;
}

/** URL query string from an object, leaving out empty values. */
export function qs(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  return search.toString();
}

/** The hash route link for a page: route("entity", {id}) -> "#/entity?id=..." */
export function route(page, params = {}) {
  const query = qs(params);
  return `#/${page}${query ? "?" + query : ""}`;
}

/** A fact's object as text: an entity's name (else id), or a literal's value. */
export function objectText(object, names) {
  if (object && typeof object === "object") {
    const suffix = object.lang ? `@${object.lang}` : object.datatype ? ` (${object.datatype})` : "";
    return `"${object.value}"${suffix}`;
  }
  return (names && names[object]) || object;
}

/** How a listing shows entity `id`: its name; else, for a CVT (mediator node, in the API's
 *  `cvts` map of id -> types), "CVT · education.education"; else the id. */
export function entityText(id, names, cvts) {
  if (names && names[id]) return names[id];
  if (cvts && cvts[id]) return `CVT · ${cvts[id].join(", ") || "mediator"}`;
  return id;
}

/** Debounce: call `fn` once calls stop for `ms`. */
export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
