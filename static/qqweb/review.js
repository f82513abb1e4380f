// Review queue shortcuts: m = merge, u = keep the newer text, n = not a duplicate,
// s = skip, b = back (take back the last verdict); not while typing.
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (target instanceof HTMLElement && target.closest("input, textarea, select")) return;
  const button = document.querySelector(
    `#verdict-form button[data-key="${event.key}"], #review-back-form button[data-key="${event.key}"]`
  );
  if (button) { event.preventDefault(); button.click(); }
});
