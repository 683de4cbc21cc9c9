/* Workspace Console: the little behaviour the pages need.
 *
 * The CSP allows scripts only from our own origin and forbids inline
 * styles and eval, so behaviour lives here and styling in CSS classes.
 */
(function () {
  "use strict";

  /* Colours that come from data (object or option colours): markup carries
   * data-color="#3366ff" (or a colour name) and we set it through the CSSOM,
   * which the CSP allows, as the --item-color custom property. */
  function applyDataColors(root) {
    var nodes = root.querySelectorAll ? root.querySelectorAll("[data-color]") : [];
    Array.prototype.forEach.call(nodes, function (node) {
      var value = node.getAttribute("data-color");
      if (value && window.CSS && CSS.supports("color", value)) {
        node.style.setProperty("--item-color", value);
      }
    });
  }

  /* <details data-dismissable> menus (the workspace switcher) close on
   * Escape and on a click elsewhere, like a normal menu. */
  function closeMenus(except) {
    document.querySelectorAll("details[data-dismissable][open]").forEach(function (menu) {
      if (menu !== except) { menu.removeAttribute("open"); }
    });
  }

  document.addEventListener("click", function (event) {
    var inside = event.target.closest && event.target.closest("details[data-dismissable]");
    closeMenus(inside);
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") { return; }
    var open = document.querySelector("details[data-dismissable][open]");
    if (open) {
      open.removeAttribute("open");
      var summary = open.querySelector("summary");
      if (summary) { summary.focus(); }
    }
  });

  document.addEventListener("DOMContentLoaded", function () { applyDataColors(document); });
  // Swapped-in content gets the same treatment.
  document.addEventListener("htmx:load", function (event) { applyDataColors(event.target); });
})();
