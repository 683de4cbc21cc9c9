// A long records table scrolls on without paging (#39, "Large tables"). The
// page's rows come from the server and its pager works without JavaScript;
// its last row asked htmx for the next slice (objects/views/records.py
// records_rows), which brought this script. From here on the script loads
// the next slices as one scrolls near the end, keeps at most WINDOW_ROWS
// rows in the DOM (the slices farthest from the view give way to a spacer of
// their measured height) and puts a slice back, by the very address that
// read it, when one scrolls near it again, or straight to it when one drags
// the scrollbar far. Rows carry aria-rowindex and the table aria-rowcount
// (the table's total once its background count has it, in #records-total's
// data-total, or once the last slice is read; -1 until then), so a screen
// reader tells the position; the toolbar's "N shown" counts the rows loaded;
// a selected row that gives way stays selected (its box is kept, hidden, in
// the bulk form), and arrow keys go on past the rows loaded. Apart from
// objects_grid.js on purpose: loaded only by a table longer than its page.
(function () {
  "use strict";
  // Django's JavaScript catalog (templates/base.html); English words without it.
  var gettext = window.gettext || String;

  var WINDOW_ROWS = 150; // near a 100-row page's DOM however far one scrolls
  var MARGIN = 1200; // px beyond the view loaded ahead, in both directions
  var GAP_MS = 400; // between two slices: a fast scroll stays within fair use (dashboard/fair_use.py)
  var RETRY_MS = 5000; // after a slice that could not be read

  var me = document.currentScript;
  if (me && me.parentNode) { me.parentNode.removeChild(me); } // it came inside the table's rows

  if (window.recordsWindow) { window.recordsWindow.start(); return; } // a new table (sorted, filtered)

  var state = null;

  function spacer(columns) {
    var body = document.createElement("tbody");
    body.setAttribute("aria-hidden", "true");
    body.setAttribute("data-spacer", "");
    var row = body.insertRow();
    var cell = document.createElement("th");
    cell.colSpan = columns;
    cell.style.padding = "0";
    cell.style.border = "0";
    row.appendChild(cell);
    body.hidden = true;
    return body;
  }

  function setHeight(body, height) {
    body.hidden = height <= 0;
    body.rows[0].cells[0].style.height = Math.round(height) + "px";
  }

  // The cards' labels on a phone, as objects_grid.js gives the page's rows.
  function headerLabels(table) {
    return Array.prototype.map.call(table.tHead.rows[0].cells, function (th) {
      return th.querySelector("input") ? "" : th.textContent.replace(/[\u25B2\u25BC]/g, "").trim();
    });
  }

  function start() {
    var table = document.getElementById("records-grid");
    var loader = table && table.querySelector("tbody.records-more");
    var first = loader && loader.previousElementSibling;
    var page = table && table.tBodies[0];
    if (!loader || !first || !first.hasAttribute("data-slice") || !page || page === first) { return; }
    if (state && state.table === table) { return; }
    var columns = loader.rows[0].cells[0].colSpan;
    var top = spacer(columns);
    var bottom = spacer(columns);
    table.insertBefore(top, page);
    table.insertBefore(bottom, loader);
    var firstUrl = (loader.getAttribute("hx-get") || "").replace("&start=1", "");
    var firstAt = Number(first.getAttribute("data-at")) || 0;
    state = {
      table: table, top: top, bottom: bottom, loader: loader, slices: [], lo: 0, hi: -1,
      busy: false, last: 0, pausedUntil: 0, labels: headerLabels(table), focus: null, timer: 0
    };
    loader.rows[0].cells[0].removeAttribute("data-label");
    table.tHead.rows[0].setAttribute("aria-rowindex", "1");
    table.setAttribute("aria-rowcount", "-1");
    page.setAttribute("data-slice", "");
    page.setAttribute("data-at", String(Math.max(0, firstAt - page.rows.length)));
    page.setAttribute("data-next", firstUrl);
    adopt(page, 0, loader.getAttribute("data-first") || "");
    adopt(first, 1, firstUrl);
    // The pager would page from where the page began: the rows go on instead.
    var pager = table.closest("[data-records-grid]").querySelector("nav.pager");
    if (pager) {
      var previous = pager.querySelector('[rel="prev"]');
      var next = pager.querySelector('[rel="next"]');
      if (previous) { if (next) { next.hidden = true; } } else { pager.hidden = true; }
    }
    soon(0);
  }

  function loadedRows() {
    var count = 0;
    for (var i = state.lo; i <= state.hi; i += 1) { count += state.slices[i].rows; }
    return count;
  }

  // A slice's rows placed: their positions, the phone's labels, their selection.
  function adopt(body, index, url) {
    var slice = state.slices[index] || (state.slices[index] = { url: url, height: 0 });
    slice.el = body;
    slice.at = Number(body.getAttribute("data-at")) || 0;
    slice.rows = body.rows.length;
    slice.next = body.getAttribute("data-next") || "";
    if (index > state.hi) { state.hi = index; }
    if (index < state.lo || state.lo > state.hi) { state.lo = index; }
    var parked = parkedBoxes();
    Array.prototype.forEach.call(body.rows, function (row, r) {
      row.setAttribute("aria-rowindex", String(slice.at + r + 2));
      Array.prototype.forEach.call(row.cells, function (cell, c) {
        if (cell.tagName === "TD" && state.labels[c]) { cell.setAttribute("data-label", state.labels[c]); }
      });
      var box = row.querySelector('input[name="ids"]');
      if (box && parked[box.value]) {
        box.checked = true;
        parked[box.value].parentNode.removeChild(parked[box.value]);
      }
    });
    counts();
    spacers();
  }

  // How many rows: the total once known (the last slice read, else the background count), and the rows loaded.
  function counts() {
    var lastKnown = state.slices[state.slices.length - 1];
    var ended = !lastKnown.next; // the last slice was read (it may have given way since)
    var total = document.getElementById("records-total");
    var counted = total && total.getAttribute("data-total");
    if (ended) {
      state.table.setAttribute("aria-rowcount", String(lastKnown.at + lastKnown.rows + 1));
    } else if (counted && /^\d+$/.test(counted)) {
      state.table.setAttribute("aria-rowcount", String(Number(counted) + 1)); // and the header row
    }
    var shown = document.querySelector("[data-records-grid] .records-shown");
    if (!shown) { return; }
    var loaded = lastKnown.at + lastKnown.rows - state.slices[0].at;
    var words = shown.getAttribute(ended ? "data-end" : "data-more") || "{shown}";
    shown.textContent = words.replace("{shown}", loaded.toLocaleString(document.documentElement.lang || undefined));
  }

  function spacers() {
    var above = 0;
    var below = 0;
    state.slices.forEach(function (slice, i) {
      if (i < state.lo) { above += slice.height; } else if (i > state.hi) { below += slice.height; }
    });
    setHeight(state.top, above);
    setHeight(state.bottom, below);
    var more = state.hi < state.slices.length - 1 || (state.slices[state.hi] && state.slices[state.hi].next);
    state.loader.hidden = !more;
  }

  // ---- selection of rows that give way ----
  function bulkForm() { return document.getElementById("bulk-form"); }

  function parkedBoxes() {
    var kept = {};
    var form = bulkForm();
    if (!form) { return kept; }
    Array.prototype.forEach.call(form.querySelectorAll("input[data-parked]"), function (box) { kept[box.value] = box; });
    return kept;
  }

  function park(body) {
    var form = bulkForm();
    if (!form) { return; }
    Array.prototype.forEach.call(body.querySelectorAll('input[name="ids"]:checked'), function (box) {
      var kept = document.createElement("input");
      kept.type = "checkbox";
      kept.name = "ids";
      kept.value = box.value;
      kept.checked = true;
      kept.hidden = true;
      kept.setAttribute("form", "bulk-form");
      kept.setAttribute("data-parked", "");
      form.appendChild(kept);
    });
  }

  document.addEventListener("change", function (event) {
    // "Select every row" cleared: the selection of rows out of view goes with it.
    if (event.target.matches && event.target.matches("[data-select-page]") && !event.target.checked) {
      var parked = parkedBoxes();
      Object.keys(parked).forEach(function (id) { parked[id].parentNode.removeChild(parked[id]); });
    }
  });

  function holdsFocus(body) {
    return body.contains(document.activeElement) || body.querySelector(".is-editing");
  }

  function drop(index) {
    var slice = state.slices[index];
    slice.height = slice.el.getBoundingClientRect().height;
    park(slice.el);
    slice.el.parentNode.removeChild(slice.el);
    slice.el = null;
    if (index === state.lo) { state.lo += 1; } else { state.hi -= 1; }
  }

  function view() {
    var wrap = state.table.closest(".records-wrap") || state.table;
    var box = wrap.getBoundingClientRect();
    return { top: Math.max(box.top, 0), bottom: Math.min(box.bottom, window.innerHeight) };
  }

  // The slices farthest from the view give way while the window holds too many rows.
  function trim(seen) {
    while (loadedRows() > WINDOW_ROWS && state.hi > state.lo) {
      var above = seen.top - state.slices[state.lo].el.getBoundingClientRect().bottom;
      var below = state.slices[state.hi].el.getBoundingClientRect().top - seen.bottom;
      var index = above >= below ? state.lo : state.hi;
      var body = state.slices[index].el;
      if (Math.max(above, below) <= 0 || body.querySelector(".is-editing")) { break; } // an editor keeps what is typed
      if (body.contains(document.activeElement)) {
        // Scrolled far from the focused row: the focus goes to the grid's box, which stays.
        var wrap = state.table.closest(".records-wrap");
        if (wrap) { wrap.focus({ preventScroll: true }); }
      }
      drop(index);
    }
    spacers();
  }

  // Dragged far into a spacer: the slice under the view, straight (its neighbours then).
  function jumpTarget(seen) {
    var first = state.slices[state.lo].el.getBoundingClientRect();
    var last = state.slices[state.hi].el.getBoundingClientRect();
    var i;
    var y;
    if (first.top - seen.bottom > MARGIN && state.lo > 0) {
      y = state.top.getBoundingClientRect().top;
      for (i = 0; i < state.lo; i += 1) {
        if (y + state.slices[i].height > seen.top) { return i; }
        y += state.slices[i].height;
      }
    } else if (seen.top - last.bottom > MARGIN && state.hi < state.slices.length - 1) {
      y = state.bottom.getBoundingClientRect().top;
      for (i = state.hi + 1; i < state.slices.length; i += 1) {
        if (y + state.slices[i].height > seen.top) { return i; }
        y += state.slices[i].height;
      }
      return state.slices.length - 1;
    }
    return -1;
  }

  function check() {
    state.timer = 0;
    if (!state.table.isConnected || state.busy || Date.now() < state.pausedUntil) { return; }
    if (state.lo > state.hi) { load(state.lo); return; } // a jump's slice not read yet
    var seen = view();
    var jump = jumpTarget(seen);
    if (jump >= 0 && !holdsFocus(state.table)) {
      while (state.lo <= state.hi) { drop(state.lo); }
      state.lo = jump;
      state.hi = jump - 1;
      spacers();
      load(jump);
      return;
    }
    var first = state.slices[state.lo].el.getBoundingClientRect();
    var last = state.slices[state.hi].el.getBoundingClientRect();
    if (last.bottom < seen.bottom + MARGIN && canLoad(state.hi + 1)) { load(state.hi + 1); return; }
    if (first.top > seen.top - MARGIN && state.lo > 0) { load(state.lo - 1); return; }
    trim(seen);
  }

  function canLoad(index) {
    return index < state.slices.length || Boolean(state.slices[index - 1] && state.slices[index - 1].next);
  }

  function soon(delay) {
    if (!state || state.timer) { return; }
    state.timer = window.setTimeout(function () { window.requestAnimationFrame(check); }, delay);
  }

  function say(words) { state.loader.rows[0].cells[0].textContent = words; }

  function load(index) {
    var wait = state.last + GAP_MS - Date.now();
    if (wait > 0) { soon(wait); return; }
    var known = state.slices[index];
    var url = known ? known.url : state.slices[index - 1].next;
    var below = index > state.hi;
    var anchor = below ? state.bottom : state.top;
    var current = state;
    current.busy = true;
    current.last = Date.now();
    say(gettext("Loading more rows…"));
    window.htmx.ajax("GET", url, { source: anchor, target: anchor, swap: below ? "beforebegin" : "afterend" }).then(
      function () { placed(current, index, url, below); },
      function () { placed(current, index, url, below); }
    );
  }

  function placed(current, index, url, below) {
    if (current !== state) { return; }
    state.busy = false;
    var body = below ? state.bottom.previousElementSibling : state.top.nextElementSibling;
    var known = state.slices[index];
    if (!body || !body.hasAttribute("data-slice") || (known && known.el === body) || isLoaded(body)) {
      // Not read (the message box says why): tried again once the person scrolls, a little later.
      say(gettext("These rows could not be loaded; scroll to try again."));
      state.pausedUntil = Date.now() + RETRY_MS;
      return;
    }
    say(gettext("Loading more rows…"));
    adopt(body, index, url);
    var wanted = state.focus;
    if (wanted && wanted.index !== index && !(state.slices[wanted.index] || {}).el) {
      // An arrow key pressed past the rows while another slice was on its way: that one next.
      if (wanted.index === state.hi + 1 || wanted.index === state.lo - 1) {
        state.last = 0;
        load(wanted.index);
        return;
      }
      wanted = state.focus = null;
    }
    if (wanted) { landFocus(state.slices[wanted.index].el); }
    trim(view());
    if (body.rows.length === 0 && !known) {
      // A filter the console checks itself read its budget and found none: go on when asked.
      say(gettext("No matches in the records read just now; scroll on to read further."));
      state.pausedUntil = Date.now() + RETRY_MS;
    }
    soon(0);
  }

  function isLoaded(body) {
    for (var i = state.lo; i <= state.hi; i += 1) { if (state.slices[i] && state.slices[i].el === body) { return true; } }
    return false;
  }

  // ---- arrow keys past the rows loaded ----
  function landFocus(body) {
    var wanted = state.focus;
    state.focus = null;
    var row = wanted.down ? body.rows[0] : body.rows[body.rows.length - 1];
    var cell = row && row.cells[Math.min(wanted.column, row.cells.length - 1)];
    if (!cell) { return; }
    var target = cell.tagName === "TH" ? cell.querySelector("a") || cell : cell;
    if (target === cell && !cell.hasAttribute("tabindex")) { cell.tabIndex = -1; }
    target.focus();
    cell.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  document.addEventListener("keydown", function (event) {
    if (!state || (event.key !== "ArrowDown" && event.key !== "ArrowUp")) { return; }
    var cell = event.target.closest && event.target.closest("[data-grid] tbody td, [data-grid] tbody th");
    if (!cell || event.target.closest("form[data-cell-editor]") || !state.table.contains(cell)) { return; }
    var row = cell.parentElement;
    var body = row.parentElement;
    var down = event.key === "ArrowDown";
    var edge = down ? body === state.slices[state.hi].el && row === body.rows[body.rows.length - 1]
      : body === state.slices[state.lo].el && row === body.rows[0];
    if (!edge) { return; } // within the rows loaded: the grid moves it (objects_grid.js)
    event.preventDefault();
    event.stopImmediatePropagation();
    var index = down ? state.hi + 1 : state.lo - 1;
    if (index < 0 || !canLoad(index)) { return; }
    state.focus = { down: down, index: index, column: Array.prototype.indexOf.call(row.cells, cell) };
    if (state.busy) { return; } // the slice on its way first (placed)
    state.last = 0;
    load(index);
  }, true);

  // The background count's answer swapped in (htmx polls it): the table's total for aria-rowcount.
  document.addEventListener("htmx:afterSettle", function (event) {
    if (state && state.table.isConnected && event.target && event.target.id === "records-total") { counts(); }
  });

  document.addEventListener("scroll", function () { soon(50); }, true);
  window.addEventListener("resize", function () { soon(100); });

  window.recordsWindow = { start: start };
  start();
})();
