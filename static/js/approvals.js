/* The approvals queue (templates/agents/approvals.html):
 * - j / k select the next or previous approval (its detail opens in the pane);
 * - a approves the selected one (a destructive or spend action opens its
 *   "Approve…" confirmation instead: the confirmation is kept), r rejects it;
 * - on a narrow screen an approval opens as its own page rather than in the pane;
 * - the bulk form's "Select all on this page", and "All N matching this filter"
 *   (Gmail's: every line ticked and locked, the count said, a Clear; the
 *   server reads the matching approvals again when the form is sent).
 * Never while typing. Without JavaScript every approval is a link to its page. */
(function () {
  "use strict";
  // Django's JavaScript catalog (templates/base.html); English words without it.
  var gettext = window.gettext || String;
  var ngettext = window.ngettext || function (one, many, n) { return n === 1 ? one : many; };
  var interpolate = window.interpolate || function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

  var NARROW = "(max-width: 47.99rem)";

  function typing(target) {
    return target.closest && target.closest("input, textarea, select, [contenteditable], summary, button");
  }

  function items() {
    return Array.prototype.slice.call(document.querySelectorAll("#approval-queue [data-queue-item]"));
  }

  function mark(item) {
    items().forEach(function (other) {
      other.classList.toggle("approval-item--selected", other === item);
      var link = other.querySelector("[data-detail-link]");
      if (link) {
        if (other === item) { link.setAttribute("aria-current", "true"); } else { link.removeAttribute("aria-current"); }
      }
    });
  }

  function narrow() {
    return window.matchMedia && window.matchMedia(NARROW).matches;
  }

  /* A narrow screen has no pane: the approval opens as its own page. */
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (!elt || !elt.hasAttribute || !elt.hasAttribute("data-detail-link")) { return; }
    if (narrow()) {
      event.preventDefault();
      window.location.href = elt.getAttribute("href");
      return;
    }
    /* While the next approval loads, a and r wait: they never act on the one leaving. */
    var pane = document.getElementById("approval-detail");
    if (pane) { pane.setAttribute("aria-busy", "true"); }
  });

  function settled(event) {
    var elt = event.detail && event.detail.requestConfig && event.detail.requestConfig.elt;
    if (!elt || !elt.hasAttribute || !elt.hasAttribute("data-detail-link")) { return; }
    if (event.type === "htmx:afterSettle") { mark(elt.closest("[data-queue-item]")); }
    var pane = document.getElementById("approval-detail");
    if (pane) { pane.removeAttribute("aria-busy"); }
  }
  document.addEventListener("htmx:afterSettle", settled);
  document.addEventListener("htmx:responseError", settled);
  document.addEventListener("htmx:sendError", settled);

  function busy() {
    var pane = document.getElementById("approval-detail");
    return pane && pane.getAttribute("aria-busy") === "true";
  }

  function detailButton(value) {
    return document.querySelector("#approval-detail form.approval__actions button[name=decision][value=" + value + "]");
  }

  /* A decision made elsewhere on the page (a bulk batch over): the pane
   * reads again the approval it shows if that one was among them, so it never
   * offers buttons for an approval already decided. */
  document.body.addEventListener("approvals-decided", function (event) {
    var ids = (event.detail && event.detail.ids) || [];
    var pane = document.getElementById("approval-detail");
    var card = pane && pane.querySelector("[data-approval-card]");
    if (!card || ids.indexOf(card.getAttribute("data-approval-card")) === -1 || !window.htmx) { return; }
    window.htmx.ajax("GET", card.getAttribute("data-approval-url"), { target: "#approval-detail", swap: "innerHTML" });
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) { return; }
    var list = items();
    if (!list.length) { return; }
    if (event.key === "j" || event.key === "k") {
      var current = document.querySelector("#approval-queue .approval-item--selected");
      var focused = event.target.closest ? event.target.closest("[data-queue-item]") : null;
      var index = list.indexOf(focused || current);
      var next = index === -1 ? 0 : (event.key === "j" ? Math.min(index + 1, list.length - 1) : Math.max(index - 1, 0));
      var link = list[next].querySelector("[data-detail-link]");
      link.focus();
      list[next].scrollIntoView({ block: "nearest" });
      if (!narrow() && list[next] !== current) { link.click(); }
      event.preventDefault();
    } else if ((event.key === "a" || event.key === "r") && busy()) {
      event.preventDefault();
    } else if (event.key === "a") {
      var confirm = document.querySelector("#approval-detail details.approval__confirm");
      if (confirm) {
        confirm.open = true;
        var yes = confirm.querySelector("button[value=approve-confirmed]");
        if (yes) { yes.focus(); }
        event.preventDefault();
        return;
      }
      var approve = detailButton("approve");
      if (approve) { approve.click(); event.preventDefault(); }
    } else if (event.key === "r") {
      var reject = detailButton("reject");
      if (reject) { reject.click(); event.preventDefault(); }
    }
  });

  /* Bulk selection. The list is swapped by htmx: events are delegated, the page control shown on each settle. */
  function pageBoxes() {
    return Array.prototype.slice.call(document.querySelectorAll('input[name="approval"][form="bulk-decide-form"]'));
  }

  function showBulkState() {
    var matching = document.querySelector("[data-bulk-matching]");
    var page = document.querySelector("[data-bulk-page]");
    if (page) { page.closest("label").hidden = false; }
    var state = document.querySelector("[data-bulk-state]");
    var on = Boolean(matching && matching.checked);
    pageBoxes().forEach(function (box) {
      if (on) { box.checked = true; }
      box.disabled = on;
    });
    if (page) {
      var boxes = pageBoxes();
      page.checked = on || (boxes.length > 0 && boxes.every(function (box) { return box.checked; }));
      page.disabled = on;
    }
    if (state) {
      state.hidden = !on;
      var words = state.querySelector("[data-bulk-state-words]");
      if (words && on) {
        var count = matching.getAttribute("data-count");
        var n = parseInt(count, 10) || 0;
        words.textContent = interpolate(ngettext(
          "All %(count)s approval matching this filter is selected.",
          "All %(count)s approvals matching this filter are selected.",
          n
        ), { count: count }, true);
      }
    }
  }

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches && target.matches("[data-bulk-page]")) {
      pageBoxes().forEach(function (box) { box.checked = target.checked; });
    }
    if (target.matches && target.matches('[data-bulk-matching], [data-bulk-page], input[name="approval"]')) { showBulkState(); }
  });

  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest("[data-bulk-clear]")) { return; }
    var matching = document.querySelector("[data-bulk-matching]");
    if (matching) { matching.checked = false; }
    pageBoxes().forEach(function (box) { box.checked = false; });
    showBulkState();
    if (matching) { matching.focus(); }
  });

  document.addEventListener("htmx:afterSettle", showBulkState);
  document.addEventListener("DOMContentLoaded", showBulkState);
})();
