// A document version's "Copy the content" button (templates/studio/document_version.html).
// Without this script the button stays hidden and the read-only textarea is the copy.
(function () {
  "use strict";
  document.querySelectorAll("[data-copy-button]").forEach(function (button) { button.hidden = false; });
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-copy-button]");
    if (!button) return;
    var section = button.closest("section");
    var source = section && section.querySelector("[data-copy-source]");
    var status = section && section.querySelector("[data-copy-status]");
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
