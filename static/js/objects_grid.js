// The records grid: arrow keys move between cells, Enter or a click opens a
// cell's editor (the server's typed input, swapped into the cell), Enter
// saves, Esc cancels. The title is a link to the record: F2 (on any cell) or
// its "Edit" button, shown on the title under the pointer or focus, edits it.
// And the density toggle (remembered in this browser), and the rows'
// selection for bulk actions (below; one file with the grid: one request fewer).
// A static file: the CSP allows no inline script.
(function () {
  "use strict";
  // Django's JavaScript catalog (templates/base.html); English words without it.
  var gettext = window.gettext || String;
  var interpolate = window.interpolate || function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

  var DENSITY_KEY = "objects.records.density";
  var saved = new WeakMap(); // cell -> its markup before the editor opened

  function cellOf(node) {
    return node && node.closest ? node.closest("[data-grid] tbody td, [data-grid] tbody th") : null;
  }

  // A cell's editor: its record's address (the row's title link) plus its
  // column's field key (the markup carries them once per row and column,
  // not once per cell).
  function editUrl(cell) {
    var table = cell.closest("[data-grid]");
    if (!table || !table.hasAttribute("data-editable")) { return null; }
    var header = table.tHead && table.tHead.rows[0].cells[cell.cellIndex];
    var key = header && header.getAttribute("data-key");
    var row = cell.parentElement;
    var link = row.querySelector(".record-title a[href]");
    var base = link ? link.pathname : null;
    var titleEditor = !link && row.querySelector(".record-title form[data-cell-editor]");
    if (titleEditor) { base = new URL(titleEditor.action).pathname.replace(/cells\/[^/]*\/$/, ""); } // the title is being edited
    return key && base ? base + "cells/" + encodeURIComponent(key) + "/" : null;
  }

  // A phone shows each row as a card whose cells are headed by their
  // column's label: read from the header row once per table and given to
  // the cells here, instead of sent in every cell of every row.
  function labelCells(root) {
    var grids = root.querySelectorAll ? root.querySelectorAll("[data-grid]") : [];
    Array.prototype.forEach.call(grids, function (table) {
      if (!table.tHead || !table.tBodies[0]) { return; }
      var labels = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) {
        return th.querySelector("input") ? "" : th.textContent.replace(/[\u25B2\u25BC]/g, "").trim();
      });
      // Every body (one per group when grouped) and the footer row.
      Array.prototype.forEach.call(table.querySelectorAll("tbody > tr, tfoot > tr"), function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, index) {
          if (cell.tagName === "TD" && labels[index]) { cell.setAttribute("data-label", labels[index]); }
        });
      });
    });
  }

  function focusCell(cell) {
    var target = focusTarget(cell);
    if (target === cell && !cell.hasAttribute("tabindex")) { cell.tabIndex = -1; }
    target.focus();
  }

  // The element that takes focus for a cell: the title's link, else the cell.
  function focusTarget(cell) {
    if (cell.tagName === "TH") { return cell.querySelector("a") || cell; }
    return cell;
  }

  // The records' rows, across the groups' bodies: not a group's header or
  // footer, nor the rows of a collapsed group.
  function rowsOf(cell) {
    var table = cell.closest("[data-grid]");
    return Array.prototype.filter.call(table.querySelectorAll("tbody > tr"), function (row) {
      return !row.hidden && !row.classList.contains("records-group-head") && !row.classList.contains("records-foot");
    });
  }

  // A group's button collapses or opens its records (its header stays).
  document.addEventListener("click", function (event) {
    var toggle = event.target.closest && event.target.closest("[data-group-toggle]");
    if (!toggle) { return; }
    var open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    var body = toggle.closest("tbody");
    Array.prototype.forEach.call(body.rows, function (row) {
      if (!row.classList.contains("records-group-head")) { row.hidden = !open; }
    });
  });

  function cellsOf(row) {
    return Array.prototype.filter.call(row.children, function (el) { return el.tagName === "TD" || el.tagName === "TH"; });
  }

  function move(cell, dRow, dCol) {
    var rows = rowsOf(cell);
    var row = cell.parentElement;
    var r = rows.indexOf(row);
    var c = cellsOf(row).indexOf(cell);
    var nextRow = rows[Math.max(0, Math.min(rows.length - 1, r + dRow))];
    var cells = cellsOf(nextRow);
    var next = cells[Math.max(0, Math.min(cells.length - 1, c + dCol))];
    if (next) {
      focusCell(next);
      next.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
  }

  function editorOf(cell) {
    return cell.querySelector("form[data-cell-editor]");
  }

  // One "Edit" button for the title cells, moved to the one under the pointer
  // or focus (a button in each of 100 rows would weigh on every page).
  var titleButton = null;

  function titleButtonFor(cell) {
    if (!titleButton) {
      titleButton = document.createElement("button");
      titleButton.type = "button";
      titleButton.className = "btn btn-small record-title__edit";
      titleButton.textContent = gettext("Edit");
      titleButton.setAttribute("data-title-edit", "");
    }
    var link = cell.querySelector("a");
    var table = cell.closest("[data-grid]");
    var header = table.tHead && table.tHead.rows[0].cells[cell.cellIndex];
    var label = header ? header.textContent.replace(/[\u25B2\u25BC]/g, "").trim() : gettext("name"); // without the sort mark
    titleButton.setAttribute("aria-label", link
      ? interpolate(gettext("Edit %(field)s of %(record)s"), { field: label, record: link.textContent.trim() }, true)
      : interpolate(gettext("Edit %(field)s of this record"), { field: label }, true));
    return titleButton;
  }

  function offerTitleEdit(target) {
    var cell = cellOf(target);
    if (!cell || cell.tagName !== "TH" || cell.classList.contains("is-editing") || !editUrl(cell)) { return; }
    var button = titleButtonFor(cell);
    if (button.parentElement === cell) { return; }
    if (button.parentElement) { withoutTitleButton(button.parentElement); }
    cell.classList.add("has-title-edit");
    cell.appendChild(button);
  }

  function withoutTitleButton(cell) {
    if (titleButton && titleButton.parentElement === cell) { cell.removeChild(titleButton); }
    cell.classList.remove("has-title-edit");
  }

  function close(cell, focus) {
    if (saved.has(cell)) {
      cell.innerHTML = saved.get(cell);
      saved.delete(cell);
    }
    cell.classList.remove("is-editing");
    if (focus) { focusCell(cell); }
    document.dispatchEvent(new CustomEvent("objects:cell-closed")); // presence: no longer editing (objects.js)
  }

  function open(cell) {
    var url = editUrl(cell);
    if (!url || editorOf(cell) || !window.htmx) { return; }
    Array.prototype.forEach.call(document.querySelectorAll("[data-grid] .is-editing"), function (other) {
      if (other !== cell) { close(other, false); }
    });
    withoutTitleButton(cell);
    saved.set(cell, cell.innerHTML);
    cell.classList.add("is-editing");
    window.htmx.ajax("GET", url, { target: cell, swap: "innerHTML" });
  }

  document.addEventListener("keydown", function (event) {
    var editor = event.target.closest && event.target.closest("form[data-cell-editor]");
    if (editor) {
      var cell = cellOf(editor);
      if (event.key === "Escape" && cell) {
        event.preventDefault();
        close(cell, true);
      } else if (event.key === "Enter" && event.target.tagName !== "BUTTON" &&
        !(event.target.tagName === "TEXTAREA" && event.shiftKey)) {
        // Enter saves, even from a checkbox or a select; Shift+Enter is a new line in a long text.
        event.preventDefault();
        editor.requestSubmit();
      }
      return;
    }
    var current = cellOf(event.target);
    if (!current) { return; }
    if (event.key === "F2" && editUrl(current)) {
      // Spreadsheets' "edit this cell", the title's link included.
      event.preventDefault();
      open(current);
      return;
    }
    var moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[event.key]) {
      event.preventDefault();
      move(current, moves[event.key][0], moves[event.key][1]);
    } else if (event.key === "Enter" && event.target === current && editUrl(current)) {
      event.preventDefault();
      open(current);
    }
  });

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (target.closest("[data-title-edit]")) {
      var titled = cellOf(target);
      if (titled) { open(titled); }
      return;
    }
    if (target.closest("[data-cell-cancel]")) {
      var cancelled = cellOf(target);
      if (cancelled) { close(cancelled, true); }
      return;
    }
    var cell = cellOf(target);
    // A click on a link in a cell follows the link; inside an editor it is the editor's.
    if (!cell || target.closest("a, form[data-cell-editor]") || !editUrl(cell)) { return; }
    open(cell);
  });

  // Links to other sites open in a new tab, as the record page's do: said
  // here once for the grid instead of by a target and rel in every cell.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("[data-grid] tbody a[href]");
    if (link && /^https?:$/.test(link.protocol) && link.host !== window.location.host) {
      link.target = "_blank";
      link.rel = "noopener noreferrer";
    }
  }, true);

  document.addEventListener("mouseover", function (event) { offerTitleEdit(event.target); });
  document.addEventListener("focusin", function (event) { offerTitleEdit(event.target); });

  // A saved title: the link to the record again (its address as before, the new name).
  function relink(cell, before) {
    var holder = document.createElement("div");
    holder.innerHTML = before;
    var link = holder.querySelector("a");
    if (!link) { return; }
    link.textContent = cell.textContent.trim() || gettext("Untitled");
    cell.replaceChildren(link);
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    var cell = event.detail.target;
    if (!cell || !cell.matches || !cell.matches("[data-grid] tbody td, [data-grid] tbody th")) { return; }
    var editor = editorOf(cell);
    if (editor) {
      // The editor (or its refusal): focus its input; a conflict: its first choice.
      var input = editor.querySelector(".cell-conflict button") ||
        editor.querySelector("input:not([type=hidden]), select, textarea");
      if (input) { input.focus(); }
      if (input && input.select && input.type !== "checkbox" && input.type !== "radio") { input.select(); }
    } else {
      // Saved: the cell shows the stored value again.
      if (cell.tagName === "TH" && saved.has(cell)) { relink(cell, saved.get(cell)); }
      saved.delete(cell);
      cell.classList.remove("is-editing");
      focusCell(cell);
    }
  });

  // ---- density ----
  function applyDensity(root) {
    var compact = false;
    try { compact = window.localStorage.getItem(DENSITY_KEY) === "compact"; } catch (e) { compact = false; }
    var grids = root.querySelectorAll ? root.querySelectorAll("[data-records-grid]") : [];
    Array.prototype.forEach.call(grids, function (grid) {
      grid.classList.toggle("is-compact", compact);
      var button = grid.querySelector("[data-density-toggle]");
      if (button) { button.setAttribute("aria-pressed", compact ? "true" : "false"); }
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-density-toggle]");
    if (!button) { return; }
    var compact = button.getAttribute("aria-pressed") !== "true";
    try { window.localStorage.setItem(DENSITY_KEY, compact ? "compact" : "comfortable"); } catch (e) { /* private mode */ }
    applyDensity(document);
  });

  // ---- the grid's box fits the screen ----
  // Its own scrollbars (sideways above all) must be on screen: the box is as
  // tall as the window below its top, which depends on what is above it (the
  // filter bar open or not), so that top is measured and given to the CSS
  // (--records-grid-top on the root element: outside what htmx snapshots).
  function fitGrid() {
    var wrap = document.querySelector(".records-wrap");
    if (!wrap) { return; }
    var top = Math.max(0, Math.round(wrap.getBoundingClientRect().top + window.scrollY));
    document.documentElement.style.setProperty("--records-grid-top", top + "px");
  }
  var fitPending = false;
  function fitSoon() {
    if (fitPending) { return; }
    fitPending = true;
    window.requestAnimationFrame(function () { fitPending = false; fitGrid(); });
  }
  window.addEventListener("resize", fitSoon);
  document.addEventListener("toggle", fitSoon, true); // a <details> above it opened or closed
  document.addEventListener("htmx:afterSettle", fitSoon);

  // At 100 rows a task over 50 ms is felt on a phone (tests/objects/test_grid_long_tasks_browser.py):
  // the cells are labelled once, and the box is measured in the next frame, where the
  // browser lays the page out anyway (measured here, it forced that layout inside this script).
  function start() {
    applyDensity(document);
    labelCells(document);
    fitSoon();
    if (window.htmx) {
      window.htmx.onLoad(function (el) {
        if (el === document.body) { return; }  // htmx's own start: the page, done above
        applyDensity(el.parentElement || el);
        labelCells(el.parentElement || el);
      });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

// Row selection of the records table for bulk actions (objects/bulk.py): the
// header checkbox selects every row of this page; the count of selected rows
// is announced. Rows are swapped in by htmx, so events are delegated.
(function () {
  "use strict";
  // Django's JavaScript catalog (templates/base.html); English words without it.
  var gettext = window.gettext || String;
  var ngettext = window.ngettext || function (one, many, n) { return n === 1 ? one : many; };
  var interpolate = window.interpolate || function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

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
        ? gettext("Every matching record selected")
        : checked ? interpolate(ngettext("%(count)s selected", "%(count)s selected", checked), { count: checked }, true) : "";
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
