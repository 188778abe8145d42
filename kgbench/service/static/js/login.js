// The login page: POST /api/session sets the HttpOnly token cookie; DELETE clears it.
import {api, el, errorBox, replace} from "./dom.js";

const form = document.getElementById("login-form");
const result = document.getElementById("login-result");
const token = document.getElementById("token");

form.addEventListener("submit", async (evt) => {
  evt.preventDefault();
  try {
    await api("/api/session", {method: "POST", body: {token: token.value}});
    token.value = "";
    replace(result, el("p", {class: "ok"}, "Logged in. ", el("a", {href: "/"}, "Continue to the app")));
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
