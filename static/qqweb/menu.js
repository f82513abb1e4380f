// The header's "Menu" button on phones (the stylesheet shows it below 600 px and hides the
// sections until it is pressed): it opens and closes the list of every section.
(function () {
  "use strict";
  var button = document.getElementById("menu-toggle");
  if (!button) return;
  var bar = button.closest(".topbar");
  button.addEventListener("click", function () {
    var open = bar.classList.toggle("menu-open");
    button.setAttribute("aria-expanded", open ? "true" : "false");
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && bar.classList.contains("menu-open")) button.click();
  });
})();
