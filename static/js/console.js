/* Workspace Console: the little behaviour the pages need.
 *
 * The CSP allows scripts only from our own origin and forbids inline
 * styles and eval, so behaviour lives here and styling in CSS classes.
 */
(function () {
  "use strict";

  /* Colours that come from data (object or option colours): markup carries
   * data-color="#3366ff" (or a colour name). Each distinct colour gets one
   * rule in a constructed stylesheet that sets --item-color. The CSSOM is
   * allowed by the CSP, and unlike element.style it leaves nothing in the
   * markup: htmx's history snapshot would otherwise save style="" attributes
   * whose restore (the back button) the CSP refuses. */
  var colourSheet = null;
  var paintedColours = {};

  function applyDataColors(root) {
    var nodes = root.querySelectorAll ? root.querySelectorAll("[data-color]") : [];
    Array.prototype.forEach.call(nodes, function (node) {
      var value = (node.getAttribute("data-color") || "").trim();
      if (!value || paintedColours[value] || !(window.CSS && CSS.supports("color", value))) { return; }
      if (!colourSheet) {
        colourSheet = new CSSStyleSheet();
        document.adoptedStyleSheets = document.adoptedStyleSheets.concat([colourSheet]);
      }
      paintedColours[value] = true;
      colourSheet.insertRule(
        '[data-color="' + CSS.escape(value) + '"] { --item-color: ' + value + "; }",
        colourSheet.cssRules.length
      );
    });
  }

  /* Chromium leaves empty style="" attributes on some form inputs; the
   * history snapshot would keep them and the CSP would refuse the restore.
   * Take every snapshot without them. */
  document.addEventListener("htmx:beforeHistorySave", function (event) {
    var root = (event.detail && event.detail.historyElt) || document.body;
    Array.prototype.forEach.call(root.querySelectorAll("[style]"), function (node) {
      if (!node.getAttribute("style").trim()) { node.removeAttribute("style"); }
    });
  });

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
