// Studio forms: a Content App's board select shows the chosen board's images
// at once. The length-limited boxes are counted by static/js/counted.js.
(function () {
  "use strict";
  // A Content App's board select: choosing a board shows its images at once
  // (the "Show its images" button, which works without JavaScript too).
  function wireBoard(button) {
    // The button names its select (data-show-board="<field name>").
    var select = button.form ? button.form.elements.namedItem(button.getAttribute("data-show-board")) : null;
    if (!select) return;
    select.addEventListener("change", function () {
      if (button.form.requestSubmit) button.form.requestSubmit(button);
      else button.click();
    });
  }
  function init() {
    var boards = document.querySelectorAll("[data-show-board]");
    for (var j = 0; j < boards.length; j++) wireBoard(boards[j]);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
