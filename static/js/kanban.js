// The kanban board (templates/objects/kanban.html): drag a card with the
// vendored Sortable.js, or use its "Move to…" form from the keyboard. The
// card moves at once; the move is then sent (PATCH of the one field through
// objects:kanban_move). When the service refuses it (a 422 names why), the
// card goes back where it was and the message is shown on it and announced.
(function () {
  "use strict";
  // Django's JavaScript catalog (templates/base.html); English words without it.
  var gettext = window.gettext || String;
  var interpolate = window.interpolate || function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) { return window.crypto.randomUUID(); }
    return "move-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 14);
  }

  function announce(text) {
    var status = document.getElementById("kanban-status");
    if (status) { status.textContent = text; }
  }

  function refreshCounts(board) {
    board.querySelectorAll(".kanban-column").forEach(function (column) {
      var count = column.querySelector(".kanban-count");
      var cards = column.querySelectorAll(".kanban-card").length;
      if (!count) { return; }
      var shown = String(cards) + (count.getAttribute("data-more") === "true" ? "+" : "");
      var total = count.getAttribute("data-total");
      if (total !== null) {
        // The counted total (every record), moved by the cards moved in or out since.
        shown = String(parseInt(total, 10) + cards - parseInt(count.getAttribute("data-cards") || "0", 10));
      }
      count.textContent = shown;
      count.setAttribute("aria-label", shown + " cards");
    });
  }

  function syncSelect(card, list) {
    var select = card.querySelector(".kanban-move select");
    if (!select) { return; }
    var current = list.getAttribute("data-option");
    Array.prototype.forEach.call(select.options, function (option) {
      var isCurrent = option.value === current;
      option.selected = isCurrent;
      option.textContent = isCurrent ? gettext("Move to…") : option.getAttribute("data-label") || option.textContent;
    });
  }

  function putBack(card, list, index) {
    var sibling = list.children[index] || null;
    if (sibling === card) { return; }
    list.insertBefore(card, sibling);
  }

  function send(board, card, from, to, oldIndex) {
    var form = card.querySelector(".kanban-move");
    var error = card.querySelector(".kanban-card__error");
    var title = card.querySelector(".kanban-card__title").textContent;
    if (error) { error.hidden = true; error.textContent = ""; }
    syncSelect(card, to);
    refreshCounts(board);
    card.setAttribute("aria-busy", "true");
    var data = new FormData(form);
    data.set("option", to.getAttribute("data-option"));
    data.set("idempotency_key", newKey());
    fetch(board.getAttribute("data-move-url"), {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRFToken": data.get("csrfmiddlewaretoken") }
    }).then(function (response) {
      return response.json().catch(function () { return { ok: false, message: interpolate(gettext("The console answered %(status)s."), { status: response.status }, true) }; })
        .then(function (body) { return { ok: response.ok && body.ok, body: body }; });
    }).catch(function () {
      return { ok: false, body: { message: gettext("The console could not be reached.") } };
    }).then(function (result) {
      card.removeAttribute("aria-busy");
      if (result.ok) {
        announce(interpolate(gettext("Moved “%(title)s” to %(column)s."), { title: title, column: to.getAttribute("data-label") }, true));
        return;
      }
      putBack(card, from, oldIndex);
      syncSelect(card, from);
      refreshCounts(board);
      var message = (result.body && result.body.message) || gettext("The move was refused.");
      if (error) { error.textContent = interpolate(gettext("Not moved: %(why)s"), { why: message }, true); error.hidden = false; }
      announce(interpolate(gettext("“%(title)s” was put back in %(column)s: %(why)s"), {
        title: title, column: from.getAttribute("data-label"), why: message
      }, true));
    });
  }

  function setUp(board) {
    board.querySelectorAll(".kanban-move select option").forEach(function (option) {
      var list = board.querySelector('.kanban-cards[data-option="' + CSS.escape(option.value) + '"]');
      if (list) { option.setAttribute("data-label", list.getAttribute("data-label")); }
    });
    board.querySelectorAll(".kanban-cards").forEach(function (list) {
      if (window.Sortable) {
        window.Sortable.create(list, {
          group: "kanban",
          animation: 150,
          filter: "select, button, input, label",
          preventOnFilter: false,
          onEnd: function (event) {
            if (event.from !== event.to) { send(board, event.item, event.from, event.to, event.oldIndex); }
          }
        });
      }
    });
    board.addEventListener("submit", function (event) {
      var form = event.target.closest(".kanban-move");
      if (!form) { return; }
      event.preventDefault();
      var card = form.closest(".kanban-card");
      var from = card.parentElement;
      var option = form.querySelector("select").value;
      var to = board.querySelector('.kanban-cards[data-option="' + CSS.escape(option) + '"]');
      if (!to || to === from) { return; }
      var oldIndex = Array.prototype.indexOf.call(from.children, card);
      to.insertBefore(card, to.firstChild);
      send(board, card, from, to, oldIndex);
      form.querySelector("select").focus();
    });
  }

  function start() {
    document.querySelectorAll(".kanban[data-move-url]").forEach(setUp);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
