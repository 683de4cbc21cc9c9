// Presence (objects/presence.py): the presence region polls while the page
// is visible, and each poll is this page's heartbeat: its token, and the
// record and field of the grid's inline editor when one is open. A hidden or
// left page ends its presence at once (a beacon); the grid marks the rows
// others have open from the region's list.
(function () {
  "use strict";

  var active = null; // {token, leave}: the page's presence last sent

  // Its styles, once: the region names them (a hashed name in production).
  var first = document.querySelector("[data-presence]");
  if (first) {
    var sheet = document.createElement("link");
    sheet.rel = "stylesheet";
    sheet.href = first.getAttribute("data-presence-css");
    document.head.appendChild(sheet);
    active = { token: first.getAttribute("data-presence-token"), leave: first.getAttribute("data-presence-leave") };
  }

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
    // The token and the record page's record are the region's hx-vals.
    if (shown) {
      if (open && open.record === shown) { params.field = open.field; }
    } else if (open) {
      params.record = open.record;
      params.field = open.field;
    }
    active = { token: el.getAttribute("data-presence-token"), leave: el.getAttribute("data-presence-leave") };
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
  mark(); // the region's first answer may have come before this file
})();
