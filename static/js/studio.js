// Studio message boxes: the maxlength follows the chosen studio (3,800 for
// website/image/video, 18,000 for document/app), with a live counter. The
// limit comes from the studio select's option, else from the box itself.
(function () {
  "use strict";
  function wire(form) {
    var select = form.querySelector("[data-studio-select]");
    var message = form.querySelector("[data-studio-message]");
    var counter = form.querySelector("[data-studio-counter]");
    if (!message) return;
    function limit() {
      if (select) {
        var option = select.options[select.selectedIndex];
        var fromOption = option ? parseInt(option.getAttribute("data-max-length"), 10) : 0;
        if (fromOption) return fromOption;
      }
      return parseInt(message.getAttribute("data-max-length"), 10) || 0;
    }
    function update() {
      var max = limit();
      if (max) message.setAttribute("maxlength", String(max));
      if (counter) {
        var used = message.value.length;
        counter.textContent = max ? used.toLocaleString() + " / " + max.toLocaleString() + " characters" : "";
        counter.classList.toggle("is-over", max > 0 && used > max);
      }
    }
    if (select) select.addEventListener("change", update);
    message.addEventListener("input", update);
    update();
  }
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
    var forms = document.querySelectorAll("form[data-studio-form], #turn-form");
    for (var i = 0; i < forms.length; i++) wire(forms[i]);
    var boards = document.querySelectorAll("[data-show-board]");
    for (var j = 0; j < boards.length; j++) wireBoard(boards[j]);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
