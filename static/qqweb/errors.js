// One handler for every htmx request that fails: a 4xx/5xx answer or no answer at all.
// htmx does not swap error responses, so without this a button that was refused looks
// dead. The message the server sent is shown in #request-error (base.html): the text of
// the answer's [role=alert] / .error element for HTML, error.message or detail for JSON,
// the body itself for plain text; the status line when the body says nothing.
(function () {
  "use strict";

  function textOf(html) {
    const doc = new DOMParser().parseFromString(html, "text/html");
    const el = doc.querySelector("[role=alert], .error, .error-box") || doc.querySelector("main") || doc.body;
    return el ? el.textContent.replace(/\s+/g, " ").trim() : "";
  }

  function messageOf(xhr) {
    const type = xhr.getResponseHeader("Content-Type") || "";
    const body = xhr.responseText || "";
    let text = "";
    try {
      if (type.includes("json")) {
        const data = JSON.parse(body);
        const error = data.error || {};
        text = error.message || data.detail || data.message || "";
        if (typeof text !== "string") text = JSON.stringify(text);
      } else if (type.includes("html")) {
        text = textOf(body);
      } else {
        text = body.trim();
      }
    } catch (e) {
      text = body.trim();
    }
    const status = xhr.status + (xhr.statusText ? " " + xhr.statusText : "");
    return { status: status, text: text.slice(0, 600) };
  }

  function show(title, text) {
    const box = document.getElementById("request-error");
    if (!box) return;
    box.querySelector("[data-title]").textContent = title;
    box.querySelector("[data-text]").textContent = text;
    box.hidden = false;
  }

  document.addEventListener("htmx:beforeRequest", function () {
    const box = document.getElementById("request-error");
    if (box) box.hidden = true;
  });
  document.addEventListener("htmx:responseError", function (event) {
    const m = messageOf(event.detail.xhr);
    show("Not done (" + m.status + ")", m.text || "The server gave no reason.");
  });
  document.addEventListener("htmx:sendError", function () {
    show("Not sent", "The server could not be reached. Check that qqweb is running, then try again.");
  });
  document.addEventListener("click", function (event) {
    if (event.target.closest("#request-error [data-dismiss]")) {
      document.getElementById("request-error").hidden = true;
    }
  });
})();
