// Records pages: paint choice chips in their option colour (CSP forbids
// style attributes, the CSSOM is allowed) and keep empty filters out of the
// records URL. (An image or file address's preview is rendered by the server
// as it is typed: templates/objects/widgets/address.html.)
(function () {
  "use strict";

  var HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;

  // WCAG relative luminance of one sRGB channel (0-255).
  function channel(value) {
    var c = value / 255;
    return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
  }

  // Black or white, whichever contrasts more with the chip's colour: one of
  // them always reaches 4.5:1 (WCAG AA for the chips' small text), which a
  // rounded brightness threshold did not (white on orange or green failed).
  function textColourFor(hex) {
    var h = hex.length === 4
      ? hex.replace(/^#(.)(.)(.)$/, "#$1$1$2$2$3$3")
      : hex;
    var luminance = 0.2126 * channel(parseInt(h.substr(1, 2), 16)) +
      0.7152 * channel(parseInt(h.substr(3, 2), 16)) +
      0.0722 * channel(parseInt(h.substr(5, 2), 16));
    var onBlack = (luminance + 0.05) / 0.05;
    var onWhite = 1.05 / (luminance + 0.05);
    return onBlack >= onWhite ? "#000000" : "#ffffff";
  }

  // One CSS rule per option colour, in a constructed stylesheet: the CSSOM is
  // allowed by the strict CSP, and unlike style attributes it leaves nothing
  // in the markup that htmx snapshots for the back button (restoring inline
  // styles from a snapshot is what the CSP blocks). Chips use their own
  // data-c attribute because they also need a readable text colour.
  var sheet = null;
  var painted = {};

  function paint(root) {
    var chips = root.querySelectorAll ? root.querySelectorAll(".chip[data-c]") : [];
    Array.prototype.forEach.call(chips, function (el) {
      var colour = (el.getAttribute("data-c") || "").trim().toLowerCase();
      if (!HEX.test(colour) || painted[colour]) { return; }
      if (!sheet) {
        sheet = new CSSStyleSheet();
        document.adoptedStyleSheets = document.adoptedStyleSheets.concat([sheet]);
      }
      painted[colour] = true;
      sheet.insertRule(
        '.chip[data-c="' + colour + '" i] { background-color: ' + colour + "; border-color: " + colour +
        "; color: " + textColourFor(colour) + "; font-weight: 600; }",
        sheet.cssRules.length
      );
    });
  }

  // The records query form sends every filter input, most of them empty;
  // leave the empty ones out so the pushed URL (the shareable state) stays short.
  document.addEventListener("htmx:configRequest", function (event) {
    var detail = event.detail;
    var elt = detail.elt;
    if (detail.verb !== "get" || !elt || !elt.closest || !elt.closest("[data-drop-empty-params]")) { return; }
    var data = detail.formData;
    var names = [];
    data.forEach(function (value, name) { if (names.indexOf(name) === -1) { names.push(name); } });
    names.forEach(function (name) {
      var all = data.getAll(name);
      var kept = all.filter(function (value) { return value !== ""; });
      if (kept.length === all.length) { return; }
      delete detail.parameters[name];
      kept.forEach(function (value) { data.append(name, value); });
    });
    // A condition's operator (`op.<key>`) with nothing to compare is no
    // condition: leave it out too, except "is empty" and "is not empty".
    names.forEach(function (name) {
      if (name.indexOf("op.") !== 0) { return; }
      var op = data.get(name);
      var key = name.slice(3);
      if (op === "empty" || op === "not_empty") { return; }
      if (data.get("f." + key) || data.get("to." + key) || data.get("days." + key)) { return; }
      delete detail.parameters[name];
    });
  });

  // Back and Forward put back htmx's copy of the page, whose query form shows
  // the values it was first rendered with, not the ones of the table shown:
  // set the form from the address, which holds the whole state.
  document.addEventListener("htmx:historyRestore", function () {
    var form = document.getElementById("records-query");
    if (!form) { return; }
    var params = new URLSearchParams(window.location.search);
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.type === "hidden" || el.type === "submit") { return; }
      var values = params.getAll(el.name);
      if (el.type === "checkbox") {
        el.checked = values.indexOf(el.value) !== -1;
      } else if (el.tagName === "SELECT") {
        // An operator left out of the address: "is" when a value is there (the older links), else the first.
        var missing = el.name.indexOf("op.") === 0 && params.has("f." + el.name.slice(3)) ? "is" : null;
        if (values.length || missing) { el.value = values.length ? values[0] : missing; } else { el.selectedIndex = 0; }
      } else {
        el.value = values.length ? values[0] : "";
      }
    });
  });

  function start() {
    paint(document);
    if (window.htmx) {
      window.htmx.onLoad(function (el) { paint(el); });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

// Presence (objects/presence.py): the presence region polls while the page
// is visible, and each poll is this page's heartbeat: its token, and the
// record and field of the grid's inline editor when one is open. A hidden or
// left page ends its presence at once (a beacon); the grid marks the rows
// others have open from the region's list.
(function () {
  "use strict";

  var active = null; // {token, leave}: the page's presence last sent

  function region() { return document.querySelector("[data-presence]"); }

  // The grid's open inline editor: its record and field, read from its address.
  function editing() {
    var form = document.querySelector("[data-grid] form[data-cell-editor]");
    var match = form && new URL(form.action, window.location.href).pathname.match(/\/records\/([^/]+)\/cells\/([^/]+)\/$/);
    return match ? { record: decodeURIComponent(match[1]), field: decodeURIComponent(match[2]) } : null;
  }

  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || ""; } catch (e) { return ""; }
  }

  function leave() {
    if (!active) { return; }
    var data = new FormData();
    data.append("token", active.token);
    data.append("csrfmiddlewaretoken", csrfToken());
    if (navigator.sendBeacon) { navigator.sendBeacon(active.leave, data); }
    active = null;
  }

  function beatNow() {
    var el = region();
    if (el && window.htmx && document.visibilityState === "visible") { window.htmx.trigger(el, "presence:now"); }
  }

  document.addEventListener("htmx:configRequest", function (event) {
    var el = event.detail.elt;
    if (!el || !el.matches || !el.matches("[data-presence]")) { return; }
    var params = event.detail.parameters;
    var shown = el.getAttribute("data-presence-record");
    var open = editing();
    params.token = el.getAttribute("data-presence-token");
    if (shown) {
      params.record = shown;
      if (open && open.record === shown) { params.field = open.field; }
    } else if (open) {
      params.record = open.record;
      params.field = open.field;
    }
    active = { token: params.token, leave: el.getAttribute("data-presence-leave") };
  });

  // A hidden tab neither polls nor counts as there.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var el = event.detail.elt;
    if (el && el.matches && el.matches("[data-presence]") && document.visibilityState !== "visible") { event.preventDefault(); }
  });

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { beatNow(); } else { leave(); }
  });
  window.addEventListener("pagehide", leave);

  // The grid's rows others have open: a marker in the record's title cell.
  function mark() {
    var el = region();
    if (!el || el.getAttribute("data-presence-record")) { return; }
    var words = {};
    Array.prototype.forEach.call(el.querySelectorAll("[data-presence-of]"), function (item) {
      var id = item.getAttribute("data-presence-of");
      (words[id] = words[id] || []).push(item.textContent.trim());
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-grid] .presence-marker"), function (old) { old.remove(); });
    Array.prototype.forEach.call(document.querySelectorAll("[data-grid] tbody tr .record-title a[href]"), function (link) {
      var match = link.pathname.match(/\/records\/([^/]+)\/$/);
      var said = match && words[decodeURIComponent(match[1])];
      if (!said) { return; }
      var marker = document.createElement("span");
      marker.className = "presence-marker";
      marker.title = said.join("; ");
      var text = document.createElement("span");
      text.className = "visually-hidden";
      text.textContent = " (" + said.join("; ") + ")";
      marker.appendChild(text);
      link.parentElement.appendChild(marker);
    });
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    // An editor opened, saved or its cell shown again: others learn at once.
    if (target && target.closest && target.closest("[data-grid] tbody") && !target.matches("[data-presence]")) { beatNow(); }
    // Left by a swap of the whole page (a boosted link): this page's presence ends.
    if (active && !document.querySelector('[data-presence-token="' + active.token + '"]')) { leave(); }
    mark();
  });
  // A swapped-in region (or grid rows) is new content: htmx:load, on the connected new element.
  document.addEventListener("htmx:load", mark);
  document.addEventListener("objects:cell-closed", beatNow);
})();
