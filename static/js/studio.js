// Studio turn form: the message box's maxlength follows the chosen studio
// (3,800 for website/image/video, 18,000 for document/app), with a counter.
(function () {
  "use strict";
  function wire(form) {
    var select = form.querySelector("[data-studio-select]");
    var message = form.querySelector("[data-studio-message]");
    var counter = form.querySelector("[data-studio-counter]");
    if (!select || !message) return;
    function limit() {
      var option = select.options[select.selectedIndex];
      return option ? parseInt(option.getAttribute("data-max-length"), 10) || 0 : 0;
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
    select.addEventListener("change", update);
    message.addEventListener("input", update);
    update();
  }
  function init() {
    var form = document.getElementById("turn-form");
    if (form) wire(form);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
