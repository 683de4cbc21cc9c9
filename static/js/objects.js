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

// After the page, once, named by it: presence.js (objects/presence.py; its region beats
// without it meanwhile) and the grid's ranges (objects_grid_range.js).
(function () {
  ["presence", "range"].forEach(function (name) {
    var el = document.querySelector("[data-" + name + "-src]");
    if (el) { document.head.appendChild(document.createElement("script")).src = el.getAttribute("data-" + name + "-src"); }
  });
})();
