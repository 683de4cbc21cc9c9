// Row selection of the records table for bulk actions (objects/bulk.py): the
// header checkbox selects every row of this page; the count of selected rows
// is announced. Rows are swapped in by htmx, so events are delegated.
(function () {
  "use strict";

  function rowBoxes() {
    return document.querySelectorAll('input[type="checkbox"][name="ids"][form="bulk-form"]');
  }

  function refresh() {
    var boxes = rowBoxes();
    var checked = 0;
    boxes.forEach(function (box) { if (box.checked) { checked += 1; } });
    var all = document.querySelector("[data-select-page]");
    if (all) {
      all.checked = boxes.length > 0 && checked === boxes.length;
      all.indeterminate = checked > 0 && checked < boxes.length;
    }
    var scope = document.querySelector('#bulk-form input[name="scope"]');
    var count = document.getElementById("bulk-count");
    if (count) {
      count.textContent = scope && scope.checked
        ? "Every matching record selected"
        : checked ? checked + " selected" : "";
    }
  }

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches && target.matches("[data-select-page]")) {
      rowBoxes().forEach(function (box) { box.checked = target.checked; });
    }
    if (target.matches && (target.matches("[data-select-page]") || target.matches('input[name="ids"], #bulk-form input[name="scope"]'))) {
      refresh();
    }
  });
  document.addEventListener("htmx:afterSettle", refresh);
})();
