/* Objects schema editor (new object, object settings): the little behaviour
 * the fields builder needs. The CSP forbids inline scripts, so it lives here
 * and works through event delegation (rows are swapped in by htmx).
 */
(function () {
  "use strict";

  var CHOICE_TYPES = ["select", "multi_select", "stage"];

  /* The options editor is shown only for choice types. */
  function syncOptionsEditor(select) {
    var row = select.closest("[data-field-row]");
    if (!row) { return; }
    var editor = row.querySelector("[data-options-editor]");
    if (!editor) { return; }
    editor.hidden = CHOICE_TYPES.indexOf(select.value) === -1;
  }

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches && target.matches("[data-field-row] select[name$='-type']")) {
      syncOptionsEditor(target);
    }
  });

  /* Removing an option row needs no server: options are parallel lists, so
   * dropping the row's inputs is enough. (Without JavaScript the button
   * submits and the server removes it.) */
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-remove-option]");
    if (!button) { return; }
    event.preventDefault();
    var row = button.closest(".option-row");
    var list = row && row.parentElement;
    if (row) { row.remove(); }
    if (list && list.firstElementChild) {
      var next = list.querySelector("input[type='text']");
      if (next) { next.focus(); }
    }
  });

  /* A newly added field row gets the focus on its label. */
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (!target) { return; }
    if (target.id === "field-rows") {
      var rows = target.querySelectorAll("[data-field-row]");
      var last = rows[rows.length - 1];
      var label = last && last.querySelector("input[name$='-label']");
      if (label) { label.focus(); }
    } else if (target.classList && target.classList.contains("option-rows")) {
      var inputs = target.querySelectorAll("input[name$='-option_label']");
      if (inputs.length) { inputs[inputs.length - 1].focus(); }
    }
  });
})();
