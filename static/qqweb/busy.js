// Slow buttons say they are working and cannot be pressed twice.
// - A plain form post (save, merge, restore, run...): the pressed button is disabled and
//   marked aria-busy (the stylesheet shows a spinner) until the next page arrives.
// - A form with data-busy ("Renaming…") says so on its button with the seconds since it
//   was pressed ("Renaming… (3 s)"), and its data-busy-line ("Re-embedding the entity and
//   moving its relationships") in a line under it: the graph's rename, merge, delete and
//   the undos, which can take seconds (graph_app/views_curation.py says why not a job).
// - htmx forms declare it themselves: hx-disabled-elt and hx-indicator.
(function () {
  "use strict";
  function elapsed(button, what, started) {
    var seconds = Math.floor((Date.now() - started) / 1000);
    button.textContent = what + " (" + seconds + " s)";
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement)) return;
    if (form.hasAttribute("hx-post") || form.hasAttribute("hx-get")) return;
    var button = event.submitter || form.querySelector("button:not([type=button])");
    if (!button) return;
    // after the browser has read the pressed button's name and value into the request
    window.setTimeout(function () {
      button.disabled = true;
      button.setAttribute("aria-busy", "true");
      var what = form.getAttribute("data-busy");
      if (!what) return;
      var started = Date.now();
      button.setAttribute("data-idle-text", button.textContent);
      elapsed(button, what, started);
      button.setAttribute("data-busy-timer", String(window.setInterval(function () {
        elapsed(button, what, started);
      }, 1000)));
      var said = form.getAttribute("data-busy-line");
      if (said) {
        var line = document.createElement("span");
        line.className = "busy-line muted";
        line.setAttribute("role", "status");
        line.textContent = said;
        button.insertAdjacentElement("afterend", line);
      }
    }, 0);
  });
  // Back to a page the browser kept in memory: its buttons work again.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("button[aria-busy=true]").forEach(function (button) {
      button.removeAttribute("aria-busy");
      button.disabled = false;
      if (button.hasAttribute("data-busy-timer")) {
        window.clearInterval(Number(button.getAttribute("data-busy-timer")));
        button.textContent = button.getAttribute("data-idle-text");
        button.removeAttribute("data-busy-timer");
      }
    });
    document.querySelectorAll(".busy-line").forEach(function (line) { line.remove(); });
  });
})();
