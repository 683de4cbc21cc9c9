// Agents: copy a revealed webhook address (buttons may arrive by htmx swap,
// so the click is handled on the document).
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-copy-button]");
    if (!button) return;
    var box = button.closest(".toolbar");
    var source = box && box.querySelector("[data-copy-source]");
    var status = box && box.querySelector("[data-copy-status]");
    if (!source) return;
    function say(text) { if (status) status.textContent = text; }
    source.select();
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(source.value).then(function () { say("Copied."); }, function () { say("Selected: press Ctrl+C to copy."); });
    } else {
      say("Selected: press Ctrl+C to copy.");
    }
  });
})();
