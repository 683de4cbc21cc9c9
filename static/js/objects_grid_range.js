// The records grid's ranges, as a spreadsheet's (objects/grid_paste.py): a
// range of cells selected by Shift+arrow keys, a drag or Shift+click, shown
// and announced ("3 rows by 2 columns selected"); Ctrl/Cmd+C copies it as
// tab-separated text; Ctrl/Cmd+V sends a copied block, laid from the focused
// cell, to the dry run of one bulk job; Ctrl/Cmd+D fills the range's top row
// down through the same dry run. It comes after the page (objects.js, named
// by the page's data-range-src, as presence.js is): the grid's first load
// stays under its budget, so its words and its look are given here too.
(function () {
  "use strict";
  // Django's JavaScript catalog (templates/base.html); English words without it.
  var gettext = window.gettext || String;
  var ngettext = window.ngettext || function (one, many, n) { return n === 1 ? one : many; };
  var interpolate = window.interpolate || function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

  var range = null; // {table, anchor: [row, col], end: [row, col]}
  var painted = [];
  var drag = null;

  function cellOf(node) {
    return node && node.closest ? node.closest("[data-grid][data-editable] tbody td, [data-grid][data-editable] tbody th") : null;
  }

  function rowsOf(table) {
    return Array.prototype.filter.call(table.querySelectorAll("tbody > tr"), function (row) {
      return !row.hidden && !row.classList.contains("records-group-head") && !row.classList.contains("records-foot");
    });
  }

  function cellsOf(row) {
    return Array.prototype.filter.call(row.children, function (el) { return el.tagName === "TD" || el.tagName === "TH"; });
  }

  // The first column a range may hold: not the bulk selection's checkboxes.
  function firstColumn(table) {
    var head = table.tHead && table.tHead.rows[0].cells[0];
    return head && head.querySelector("[data-select-page]") ? 1 : 0;
  }

  function where(cell) {
    var table = cell.closest("[data-grid]");
    var row = rowsOf(table).indexOf(cell.parentElement);
    return row < 0 ? null : [row, cellsOf(cell.parentElement).indexOf(cell)];
  }

  function cellAt(table, r, c) {
    var row = rowsOf(table)[r];
    return row ? cellsOf(row)[c] : null;
  }

  function bounds() {
    return {
      top: Math.min(range.anchor[0], range.end[0]), bottom: Math.max(range.anchor[0], range.end[0]),
      left: Math.min(range.anchor[1], range.end[1]), right: Math.max(range.anchor[1], range.end[1])
    };
  }

  var HELP = " " + gettext("Shift with the arrow keys, a drag or Shift+click selects cells; Ctrl+C copies them, " +
    "Ctrl+V pastes a block from the focused cell, Ctrl+D fills the top row down: a paste or a fill shows its dry run first.");

  // The live region that announces a range, and the grid's help saying how: once per table swapped in.
  function ready() {
    var help = document.getElementById("records-grid-help");
    if (!help || document.getElementById("grid-range-status")) { return; }
    help.textContent += HELP;
    var status = document.createElement("p");
    status.id = "grid-range-status";
    status.className = "visually-hidden";
    status.setAttribute("role", "status"); // polite, and found by its role
    status.setAttribute("aria-live", "polite");
    help.after(status);
  }

  function announce(words) {
    ready();
    var status = document.getElementById("grid-range-status");
    if (status) { status.textContent = words; }
  }

  // The range's look, in a constructed stylesheet (the CSP allows the CSSOM; a style
  // attribute would be refused when htmx restores its snapshot): no byte in the first load.
  var sheet = new CSSStyleSheet();
  sheet.replaceSync(".records tbody .is-in-range { background: var(--color-primary-soft);" +
    " box-shadow: inset 0 0 0 2px var(--color-primary); }");
  document.adoptedStyleSheets = document.adoptedStyleSheets.concat([sheet]);

  function mark(cell, on) {
    cell.classList.toggle("is-in-range", on);
  }


  function paint() {
    painted.forEach(function (cell) { mark(cell, false); });
    painted = [];
    if (!range || !range.table.isConnected) { range = null; return; }
    var b = bounds();
    var rows = rowsOf(range.table);
    for (var r = b.top; r <= b.bottom; r++) {
      var cells = rows[r] ? cellsOf(rows[r]) : [];
      for (var c = b.left; c <= b.right; c++) {
        if (cells[c]) { mark(cells[c], true); painted.push(cells[c]); }
      }
    }
    var rowCount = b.bottom - b.top + 1;
    var columnCount = b.right - b.left + 1;
    announce(interpolate(gettext("%(rows)s by %(columns)s selected"), {
      rows: interpolate(ngettext("%(count)s row", "%(count)s rows", rowCount), { count: rowCount }, true),
      columns: interpolate(ngettext("%(count)s column", "%(count)s columns", columnCount), { count: columnCount }, true)
    }, true));
  }

  function clear() {
    if (!range) { return; }
    range = null;
    paint();
    announce("");
  }

  function focusCell(cell) {
    var link = cell.tagName === "TH" ? cell.querySelector("a") : null;
    if (!link && !cell.hasAttribute("tabindex")) { cell.tabIndex = -1; }
    (link || cell).focus();
    cell.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  // Shift+arrow: the range grows or shrinks from its anchor, as in a spreadsheet.
  function extend(cell, dRow, dCol) {
    var table = cell.closest("[data-grid]");
    var at = where(cell);
    if (!at) { return; }
    if (!range || range.table !== table) { range = { table: table, anchor: at, end: at }; }
    var rows = rowsOf(table);
    var r = Math.max(0, Math.min(rows.length - 1, range.end[0] + dRow));
    var width = cellsOf(rows[r]).length;
    var c = Math.max(firstColumn(table), Math.min(width - 1, range.end[1] + dCol));
    range.end = [r, c];
    paint();
    var next = cellAt(table, r, c);
    if (next) { focusCell(next); }
  }

  function select(table, from, to) {
    var lead = firstColumn(table);
    range = { table: table, anchor: [from[0], Math.max(lead, from[1])], end: [to[0], Math.max(lead, to[1])] };
    paint();
  }

  // ---- copying: tab-separated text, as a spreadsheet pastes it ----
  function quote(value) {
    return /[\t\n\r"]/.test(value) ? '"' + value.replace(/"/g, '""') + '"' : value;
  }

  function tsv(rows) {
    return rows.map(function (row) { return row.map(quote).join("\t"); }).join("\n");
  }

  // A cell's value as a person reads it: chips by "; ", a file or an image by its address, empty as nothing.
  function cellValue(cell) {
    if (cell.querySelector(".cell-empty")) { return ""; }
    var chips = cell.querySelectorAll(".chip");
    if (chips.length) {
      return Array.prototype.map.call(chips, function (chip) { return chip.textContent.trim(); }).join("; ");
    }
    var file = cell.querySelector("a.cell-file, .cell-image a, a:has(img)");
    if (file) { return file.href; }
    var long = cell.querySelector("[title]");
    if (long && long.classList.contains("cell-long")) { return long.getAttribute("title"); }
    var copy = cell.cloneNode(true);
    Array.prototype.forEach.call(copy.querySelectorAll("button, .record-title__edit"), function (b) { b.remove(); });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }

  function rangeText() {
    var b = bounds();
    var out = [];
    for (var r = b.top; r <= b.bottom; r++) {
      var line = [];
      for (var c = b.left; c <= b.right; c++) {
        var cell = cellAt(range.table, r, c);
        line.push(cell ? cellValue(cell) : "");
      }
      out.push(line);
    }
    return tsv(out);
  }

  // ---- pasting and filling: one dry run of one job (objects/views/grid_paste.py) ----
  function header(table, c) {
    return table.tHead ? table.tHead.rows[0].cells[c] : null;
  }

  function columnLabel(th) {
    var holder = th.querySelector(".sort-link") || th;
    var first = holder.firstChild;
    return (first && first.nodeType === 3 ? first.textContent : holder.textContent).replace(/[\u25B2\u25BC]/g, "").trim();
  }

  function rowId(row) {
    var box = row.querySelector('input[name="ids"]');
    return box ? box.value : "";
  }

  // Sent as a plain form post: the dry run is a page of its own, with its Confirm and Cancel.
  // Its address is the bulk actions' sibling (objects:grid_paste beside objects:bulk, one
  // address fewer in the page), there only for a person who may write.
  function send(table, mode, top, bottom, left, right, block) {
    var bulk = document.getElementById("bulk-form");
    var token = document.querySelector('input[name="csrfmiddlewaretoken"]');
    if (!bulk || !token) { return; }
    var url = bulk.getAttribute("action").replace(/bulk\/$/, "paste/");
    var form = document.createElement("form");
    form.method = "post";
    form.action = url;
    form.hidden = true;
    function add(name, value) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = value;
      form.appendChild(input);
    }
    add("csrfmiddlewaretoken", token.value);
    add("mode", mode);
    if (block !== null) { add("tsv", block); }
    var query = document.querySelector('#bulk-form input[name="query"]');
    add("query", query ? query.value : "");
    rowsOf(table).slice(top, bottom + 1).forEach(function (row) { add("ids", rowId(row)); });
    for (var c = left; c <= right; c++) {
      var th = header(table, c);
      add("keys", th ? th.getAttribute("data-key") || "" : "");
      add("labels", th ? columnLabel(th) : "");
    }
    document.body.appendChild(form);
    announce(mode === "fill" ? gettext("Preparing the dry run of the fill") : gettext("Preparing the dry run of the paste"));
    form.submit();
  }

  function paste(cell, text) {
    var table = cell.closest("[data-grid]");
    var at = range && range.table === table ? [bounds().top, bounds().left] : where(cell);
    if (!at) { return; }
    var rows = rowsOf(table);
    var width = cellsOf(rows[at[0]]).length;
    send(table, "paste", at[0], rows.length - 1, Math.max(firstColumn(table), at[1]), width - 1, text);
  }

  function fill() {
    var b = bounds();
    if (b.bottom === b.top) { announce(gettext("Select two rows or more to fill down")); return; }
    send(range.table, "fill", b.top, b.bottom, b.left, b.right, null);
  }

  function inEditor(target) {
    return target.closest && target.closest("form[data-cell-editor], input, select, textarea");
  }

  var moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

  function keydown(event) {
    var cell = cellOf(event.target);
    if (!cell || inEditor(event.target)) { return; }
    var command = event.ctrlKey || event.metaKey;
    if (event.shiftKey && !command && moves[event.key]) {
      event.preventDefault();
      event.stopImmediatePropagation();
      extend(cell, moves[event.key][0], moves[event.key][1]);
    } else if (command && (event.key === "d" || event.key === "D") && range) {
      event.preventDefault(); // the browser's bookmark
      event.stopImmediatePropagation();
      fill();
    } else if (event.key === "Escape" || (moves[event.key] && !command)) {
      clear(); // a plain arrow moves the focus (objects_grid.js) and drops the range
    }
  }

  document.addEventListener("keydown", keydown, true);

  document.addEventListener("copy", function (event) {
    var cell = cellOf(event.target) || cellOf(document.activeElement);
    if (!cell || inEditor(event.target)) { return; }
    var selected = window.getSelection && window.getSelection().toString();
    if (!range && selected) { return; } // text chosen by hand inside a cell: the browser copies it
    if (!range) { select(cell.closest("[data-grid]"), where(cell), where(cell)); }
    event.clipboardData.setData("text/plain", rangeText());
    event.preventDefault();
  });

  document.addEventListener("paste", function (event) {
    var cell = cellOf(event.target) || cellOf(document.activeElement);
    if (!cell || inEditor(event.target)) { return; }
    event.preventDefault();
    paste(cell, event.clipboardData.getData("text/plain"));
  });

  // ---- the pointer: a drag, or Shift+click from the focused cell ----
  document.addEventListener("mousedown", function (event) {
    var cell = cellOf(event.target);
    if (!cell || event.button !== 0 || inEditor(event.target)) { return; }
    var at = where(cell);
    if (!at) { return; }
    var table = cell.closest("[data-grid]");
    if (event.shiftKey) {
      var from = cellOf(document.activeElement);
      var start = range && range.table === table ? range.anchor : from && from.closest("[data-grid]") === table ? where(from) : at;
      event.preventDefault(); // no text selection
      select(table, start, at);
      return;
    }
    clear();
    drag = { table: table, from: at, moved: false };
  }, true);

  document.addEventListener("mouseover", function (event) {
    if (!drag || !(event.buttons & 1)) { drag = null; return; }
    var cell = cellOf(event.target);
    var at = cell && cell.closest("[data-grid]") === drag.table ? where(cell) : null;
    if (!at) { return; }
    if (at[0] !== drag.from[0] || at[1] !== drag.from[1]) { drag.moved = true; }
    if (drag.moved) {
      if (window.getSelection) { window.getSelection().removeAllRanges(); }
      select(drag.table, drag.from, at);
    }
  });

  document.addEventListener("mouseup", function (event) {
    if (drag && drag.moved) {
      var cell = cellAt(drag.table, range.end[0], range.end[1]);
      if (cell) { focusCell(cell); }
    }
  }, true);

  // A drag or Shift+click chooses a range: it opens no cell editor, follows no link.
  document.addEventListener("click", function (event) {
    var cell = cellOf(event.target);
    if (!cell) { drag = null; return; }
    if (event.shiftKey || (drag && drag.moved)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
    drag = null;
  }, true);

  // The table swapped (a sort, a page, a filter): the range went with it; the new one gets the help.
  document.addEventListener("htmx:afterSwap", function () {
    if (range && !range.table.isConnected) { clear(); }
    ready();
  });
  ready();

  window.objectsGridRange = { tsv: tsv }; // the copy's quoting, for its test
})();
