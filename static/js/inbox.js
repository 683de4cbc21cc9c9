/* The inbox on every page (dashboard/inbox):
 * - the page title shows the header's count ("(3) Agents · Workspace Console");
 * - toasts (news of the person's own work, from the header's poll) can be
 *   dismissed, and also become a browser notification once the person allowed
 *   it with a click ("Also notify me in the browser", Notification API); they
 *   never cover the focused field or its form's submit button (keepClear);
 * - on the inbox page, j / k move between items and Enter opens the focused one,
 *   and a header count that no longer matches the list offers the latest.
 * No inline script anywhere: the CSP allows only this origin's files.
 */
(function () {
  "use strict";

  function showCount() {
    var region = document.getElementById("inbox-header");
    var count = region ? parseInt(region.getAttribute("data-inbox-count"), 10) || 0 : 0;
    var base = document.title.replace(/^\(\d+\) /, "");
    document.title = (count > 0 ? "(" + count + ") " : "") + base;
  }

  function canNotify() { return "Notification" in window; }

  function notify(toast) {
    if (!canNotify() || Notification.permission !== "granted" || toast.hasAttribute("data-notified")) { return; }
    toast.setAttribute("data-notified", "");
    try {
      var note = new Notification("Workspace Console", {
        body: toast.getAttribute("data-notice-text") || "",
        tag: "notice-" + toast.getAttribute("data-notice"),
      });
      var url = toast.getAttribute("data-notice-url");
      note.onclick = function () { window.focus(); if (url) { window.location.href = url; } };
    } catch (error) { /* a browser that only notifies from a service worker: the toast is enough */ }
  }

  function newToasts() {
    document.querySelectorAll("#toasts .toast").forEach(notify);
    // At most four at once: the oldest go first.
    var toasts = document.querySelectorAll("#toasts .toast");
    for (var i = 0; i < toasts.length - 4; i++) { toasts[i].remove(); }
    keepClear();
  }

  /* Toasts never cover what the person is filling in: the focused field and
   * its form's submit buttons. Where they would, the toasts move to the top
   * of the screen; where that covers it too, they stand aside (hidden) until
   * the focus leaves the field. Rectangles are read, nothing is guessed. */
  function overlaps(a, b) {
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }

  function guarded() {
    var active = document.activeElement;
    if (!active || !active.closest || !active.closest("input, textarea, select, button, [contenteditable]")) { return []; }
    if (active.closest("#toasts")) { return []; }
    var rects = [active.getBoundingClientRect()];
    var form = active.form || active.closest("form");
    if (form) {
      form.querySelectorAll('button[type="submit"], button:not([type]), input[type="submit"]').forEach(function (button) {
        rects.push(button.getBoundingClientRect());
      });
    }
    return rects.filter(function (rect) { return rect.width || rect.height; });
  }

  function keepClear() {
    var box = document.getElementById("toasts");
    if (!box) { return; }
    box.classList.remove("toasts--top", "toasts--aside");
    if (!box.querySelector(".toast")) { return; }
    var rects = guarded();
    var covers = function () {
      var own = box.getBoundingClientRect();
      return rects.some(function (rect) { return overlaps(own, rect); });
    };
    if (!rects.length || !covers()) { return; }
    box.classList.add("toasts--top");
    if (covers()) { box.classList.add("toasts--aside"); }
  }

  document.addEventListener("focusin", keepClear);
  document.addEventListener("focusout", function () { window.setTimeout(keepClear, 0); });
  var clearing = false;
  function keepClearSoon() {
    if (clearing) { return; }
    clearing = true;
    window.requestAnimationFrame(function () { clearing = false; keepClear(); });
  }
  window.addEventListener("resize", keepClearSoon);
  window.addEventListener("scroll", keepClearSoon, { passive: true });

  function offerNotifications() {
    document.querySelectorAll("[data-notify-enable]").forEach(function (button) {
      button.hidden = !canNotify() || Notification.permission !== "default";
    });
  }

  document.addEventListener("click", function (event) {
    var close = event.target.closest && event.target.closest("[data-toast-close]");
    if (close) {
      var toast = close.closest(".toast");
      if (toast) { toast.remove(); }
      return;
    }
    var enable = event.target.closest && event.target.closest("[data-notify-enable]");
    if (enable && canNotify()) {
      Notification.requestPermission().then(offerNotifications, offerNotifications);
    }
  });

  /* j / k / Enter on the inbox page; never while typing. */
  function typing(target) {
    return target.closest && target.closest("input, textarea, select, [contenteditable], summary, button");
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) { return; }
    var items = Array.prototype.slice.call(document.querySelectorAll("[data-inbox-item]"));
    if (!items.length) { return; }
    var current = event.target.closest ? event.target.closest("[data-inbox-item]") : null;
    var index = items.indexOf(current);
    if (event.key === "j" || event.key === "k") {
      var next = event.key === "j" ? Math.min(index + 1, items.length - 1) : Math.max(index - 1, 0);
      if (index === -1) { next = 0; }
      items[next].focus();
      items[next].scrollIntoView({ block: "nearest" });
      event.preventDefault();
    } else if (event.key === "Enter" && current && event.target === current) {
      var primary = current.querySelector("[data-inbox-primary]");
      if (primary) { primary.click(); event.preventDefault(); }
    }
  });

  /* On the inbox page, a count that no longer matches the list offers the
   * latest (the list itself never reloads under a half-typed note). */
  function offerLatest() {
    var list = document.getElementById("inbox-list");
    var region = document.getElementById("inbox-header");
    var notice = document.querySelector("[data-inbox-changed]");
    if (!list || !region || !notice) { return; }
    notice.hidden = list.getAttribute("data-inbox-total") === region.getAttribute("data-inbox-count");
  }

  /* A dismissed item has left the list: the list's own total follows, so
   * the header's next count does not read as news. */
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail && event.detail.elt;
    var list = document.getElementById("inbox-list");
    if (!form || !form.hasAttribute || !form.hasAttribute("data-inbox-dismiss") || !list || !event.detail.successful) { return; }
    var total = parseInt(list.getAttribute("data-inbox-total"), 10) || 0;
    list.setAttribute("data-inbox-total", String(Math.max(0, total - 1)));
  });

  /* The header's poll says which tracked operations this page shows (any
   * element's data-on-screen-operations, ids separated by commas): their news
   * is not toasted over the very thing the person is looking at
   * (dashboard/inbox/views.py on_screen_operations). Read at each poll, so a
   * region that re-rendered with a new turn is counted. */
  document.addEventListener("htmx:configRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (!elt || elt.id !== "inbox-header") { return; }
    var ids = [];
    document.querySelectorAll("[data-on-screen-operations]").forEach(function (node) {
      node.getAttribute("data-on-screen-operations").split(",").forEach(function (id) {
        if (/^\d+$/.test(id.trim())) { ids.push(id.trim()); }
      });
    });
    if (ids.length) { event.detail.headers["X-On-Screen-Operations"] = ids.join(","); }
  });

  function refresh() { showCount(); newToasts(); offerNotifications(); offerLatest(); }
  document.addEventListener("DOMContentLoaded", refresh);
  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("htmx:oobAfterSwap", newToasts);
})();
