// Review queue shortcuts: m = merge, n = not a duplicate, s = skip (not while typing).
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (target instanceof HTMLElement && target.closest("input, textarea, select")) return;
  const button = document.querySelector(`#verdict-form button[data-key="${event.key}"]`);
  if (button) { event.preventDefault(); button.click(); }
});
