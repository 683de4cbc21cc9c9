/* Studio layout (issue #21, item 7), apart from studio.js (the message boxes):
 * - the conversation's Chat / Result switch: at a phone's width only one
 *   column shows and the other is one tap away. The links are anchors that
 *   work without JavaScript (they scroll to the column); here they switch
 *   `data-showing` on the workspace, which CSS reads only at narrow widths
 *   (a wide screen shows both columns and hides the switch);
 * - the home form's "pick it from the library" link follows the chosen studio.
 * No inline script: the CSP allows only this origin's files.
 */
(function () {
  "use strict";

  function show(workspace, which) {
    workspace.setAttribute("data-showing", which);
    document.querySelectorAll("[data-studio-switch]").forEach(function (tab) {
      if (tab.getAttribute("data-studio-switch") === which) { tab.setAttribute("aria-current", "true"); }
      else { tab.removeAttribute("aria-current"); }
    });
  }

  function wireSwitch() {
    var workspace = document.querySelector("[data-studio-workspace]");
    if (!workspace) { return; }
    show(workspace, window.location.hash === "#artifact-pane" ? "result" : "chat");
    document.addEventListener("click", function (event) {
      var tab = event.target.closest && event.target.closest("[data-studio-switch]");
      if (!tab) { return; }
      event.preventDefault();
      show(workspace, tab.getAttribute("data-studio-switch"));
      workspace.scrollIntoView({ block: "start" });
    });
  }

  function wireLibraryLink() {
    var link = document.querySelector("[data-studio-library-link]");
    var select = document.querySelector("[data-studio-select]");
    if (!link || !select) { return; }
    var label = link.querySelector("[data-studio-library-label]");
    function follow() {
      var url = link.getAttribute("data-library-" + select.value);
      if (url) { link.setAttribute("href", url); }
      var words = link.getAttribute("data-library-label-" + select.value);
      if (label && words) { label.textContent = words; }
    }
    select.addEventListener("change", follow);
    follow();
  }

  function init() { wireSwitch(); wireLibraryLink(); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
})();
