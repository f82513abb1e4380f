// Slow buttons say they are working and cannot be pressed twice.
// - A plain form post (save, merge, restore, run...): the pressed button is disabled and
//   marked aria-busy (the stylesheet shows a spinner) until the next page arrives.
// - htmx forms declare it themselves: hx-disabled-elt and hx-indicator.
(function () {
  "use strict";
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
    }, 0);
  });
  // Back to a page the browser kept in memory: its buttons work again.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("button[aria-busy=true]").forEach(function (button) {
      button.removeAttribute("aria-busy");
      button.disabled = false;
    });
  });
})();
