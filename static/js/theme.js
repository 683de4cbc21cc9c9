/* The header's theme menu without a page load (templates/base.html,
 * dashboard/people/views_theme.py).
 *
 * Without JavaScript the menu's form posts and the page comes back rendered
 * in the new theme. With htmx the post answers with an event instead
 * ("consoleTheme", HX-Trigger), applied here to the page in hand, so nothing
 * typed in a form on it is lost. What the server would render is set the same
 * way: data-theme on <html> (console.css reads it), the color-scheme meta,
 * the menu's label and pressed button; the change is said in the status
 * region, as the server's message would be.
 */
(function () {
  "use strict";

  function apply(theme, label) {
    document.documentElement.setAttribute("data-theme", theme);
    var meta = document.querySelector('meta[name="color-scheme"]');
    if (meta) { meta.setAttribute("content", theme === "system" ? "light dark" : theme); }

    var menu = document.querySelector(".theme-menu");
    if (!menu) { return; }
    var summary = menu.querySelector("summary");
    var name = menu.querySelector(".theme-menu__name");
    if (summary) { summary.setAttribute("aria-label", "Theme: " + label + ". Change theme"); }
    if (name) { name.textContent = label; }
    menu.querySelectorAll("button[name=theme]").forEach(function (button) {
      button.setAttribute("aria-pressed", button.value === theme ? "true" : "false");
    });
    menu.removeAttribute("open");
    if (summary) { summary.focus(); }

    var messages = document.getElementById("messages");
    if (messages) {
      var note = document.createElement("div");
      note.className = "alert alert-success";
      note.textContent = "Theme: " + label + ".";
      messages.replaceChildren(note);
    }
  }

  document.addEventListener("consoleTheme", function (event) {
    var detail = event.detail || {};
    if (typeof detail.theme === "string" && typeof detail.label === "string") {
      apply(detail.theme, detail.label);
    }
  });
})();
