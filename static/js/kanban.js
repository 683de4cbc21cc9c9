// The kanban board (templates/objects/kanban.html): drag a card with the
// vendored Sortable.js, or use its "Move to…" form from the keyboard. The
// card moves at once; the move is then sent (PATCH of the one field through
// objects:kanban_move). When the service refuses it (a 422 names why), the
// card goes back where it was and the message is shown on it and announced.
(function () {
  "use strict";

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
      option.textContent = isCurrent ? "Move to…" : option.getAttribute("data-label") || option.textContent;
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
      return response.json().catch(function () { return { ok: false, message: "The console answered " + response.status + "." }; })
        .then(function (body) { return { ok: response.ok && body.ok, body: body }; });
    }).catch(function () {
      return { ok: false, body: { message: "The console could not be reached." } };
    }).then(function (result) {
      card.removeAttribute("aria-busy");
      if (result.ok) {
        announce("Moved “" + title + "” to " + to.getAttribute("data-label") + ".");
        return;
      }
      putBack(card, from, oldIndex);
      syncSelect(card, from);
      refreshCounts(board);
      var message = (result.body && result.body.message) || "The move was refused.";
      if (error) { error.textContent = "Not moved: " + message; error.hidden = false; }
      announce("“" + title + "” was put back in " + from.getAttribute("data-label") + ": " + message);
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
