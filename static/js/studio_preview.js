/* A website's or app's desktop preview (templates/studio/_pane.html):
 * the frame is drawn at a laptop's viewport (the stage's data-viewport-width
 * and -height, studio/preview.py DESKTOP_VIEWPORT) and scaled down to the
 * pane, so "Desktop" shows the desktop layout, not the one a 400 px pane
 * would get. Re-fitted when the pane is swapped or resized. Without this
 * script the frame simply fills the pane.
 * No inline script: the CSP allows only this origin's files.
 */
(function () {
  "use strict";

  function fit(stage) {
    var frame = stage.querySelector("iframe");
    var width = parseInt(stage.getAttribute("data-viewport-width"), 10);
    var height = parseInt(stage.getAttribute("data-viewport-height"), 10);
    if (!frame || !width || !height || !stage.clientWidth) { return; }
    var scale = Math.min(1, stage.clientWidth / width);
    frame.style.width = width + "px";
    frame.style.height = height + "px";
    frame.style.transform = "scale(" + scale + ")";
    stage.style.height = Math.round(height * scale) + "px";
    stage.classList.add("is-scaled");
    var note = stage.parentNode.querySelector("[data-preview-scale-note]");
    if (note) { note.hidden = false; }
  }

  var observer = window.ResizeObserver ? new ResizeObserver(function (entries) {
    entries.forEach(function (entry) { fit(entry.target); });
  }) : null;

  function wire(root) {
    (root || document).querySelectorAll("[data-preview-stage]").forEach(function (stage) {
      if (stage.hasAttribute("data-preview-wired")) { return; }
      stage.setAttribute("data-preview-wired", "");
      fit(stage);
      if (observer) { observer.observe(stage); }
    });
  }

  document.addEventListener("htmx:load", function (event) { wire(event.target); });
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", function () { wire(); }); } else { wire(); }
})();
