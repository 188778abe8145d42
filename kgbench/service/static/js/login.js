// The login page: POST /api/session sets the HttpOnly token cookie; DELETE clears it.
// After a login it returns to the page that sent here (?next=/path, same site only).
import {api, el, errorBox, replace} from "./dom.js";

const form = document.getElementById("login-form");
const result = document.getElementById("login-result");
const token = document.getElementById("token");

function nextPage() {
  const next = new URLSearchParams(location.search).get("next") || "/";
  if (!next.startsWith("/")) return "/";
  // Resolved as the browser will resolve the link: it drops tabs and newlines and reads
  // "\\" as "/", so "/\t/evil.example/" is "//evil.example/", another site. Only a path
  // of this origin is kept.
  let url;
  try {
    url = new URL(next, location.origin);
  } catch {
    return "/";
  }
  if (url.origin !== location.origin) return "/";
  // "/a/..//evil.example/" resolves to the path "//evil.example/": one leading slash only.
  return "/" + url.pathname.replace(/^\/+/, "") + url.search + url.hash;
}

form.addEventListener("submit", async (evt) => {
  evt.preventDefault();
  try {
    await api("/api/session", {method: "POST", body: {token: token.value}});
    token.value = "";
    replace(result, el("p", {class: "ok"}, "Logged in. ", el("a", {href: nextPage(), id: "continue"}, "Continue")));
    document.getElementById("continue").focus();
  } catch (err) {
    replace(result, errorBox(err));
  }
});

document.getElementById("logout").addEventListener("click", async () => {
  try {
    await api("/api/session", {method: "DELETE"});
    replace(result, el("p", {class: "ok"}, "Logged out."));
  } catch (err) {
    replace(result, errorBox(err));
  }
});
