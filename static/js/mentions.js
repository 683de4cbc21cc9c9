// "@" and letters in a comment box offer people of the workspace
// (objects/comments.py mention_candidates): the box becomes an ARIA
// combobox, the server renders the options (a debounced htmx GET, a
// background request), Up/Down choose, Enter or Tab mention, Escape closes,
// and a status line says what happened. Without scripts the box is a plain
// textarea and a typed @name works the same.
(function () {
  "use strict";
  // Django's JavaScript catalog (templates/base.html); English words without it.
  var gettext = window.gettext || String;
  var ngettext = window.ngettext || function (one, many, n) { return n === 1 ? one : many; };
  var interpolate = window.interpolate || function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

  var BOX = "#comments textarea";
  // The "@name" being typed just before the caret (a username's characters; not an e-mail address's "@").
  var TYPED = /(?:^|[^\w@.+-])@([\w.+-]{0,150})$/;
  var open = null; // {box, at}: the box whose "@" the options answer, and where that "@" is

  function listbox() { return document.getElementById("mention-options"); }
  function status(text) { var s = document.getElementById("mention-status"); if (s) { s.textContent = text; } }
  function options() { var list = listbox(); return list ? Array.prototype.slice.call(list.querySelectorAll("[role=option]")) : []; }
  function active() { return options().filter(function (o) { return o.getAttribute("aria-selected") === "true"; })[0] || null; }

  function prepare(root) {
    Array.prototype.forEach.call((root || document).querySelectorAll(BOX), function (box) {
      if (box.hasAttribute("role")) { return; }
      box.setAttribute("role", "combobox");
      box.setAttribute("aria-autocomplete", "list");
      box.setAttribute("aria-controls", "mention-options");
      box.setAttribute("aria-expanded", "false");
    });
  }

  function close() {
    var list = listbox();
    if (list) { list.hidden = true; }
    if (open) {
      open.box.setAttribute("aria-expanded", "false");
      open.box.removeAttribute("aria-activedescendant");
    }
    open = null;
  }

  function choose(option) {
    options().forEach(function (o) { o.setAttribute("aria-selected", o === option ? "true" : "false"); });
    if (open && option) {
      open.box.setAttribute("aria-activedescendant", option.id);
      option.scrollIntoView({ block: "nearest" });
    }
  }

  function pick(option) {
    if (!open || !option) { return; }
    var box = open.box, name = option.getAttribute("data-mention");
    var caret = box.selectionStart, before = box.value.slice(0, open.at), after = box.value.slice(caret);
    var inserted = "@" + name + (after.charAt(0) === " " ? "" : " ");
    box.value = before + inserted + after;
    box.selectionStart = box.selectionEnd = before.length + inserted.length;
    close();
    box.focus();
    status(interpolate(gettext("Mentioned @%(name)s."), { name: name }, true));
  }

  function asked(box) {
    var typed = TYPED.exec(box.value.slice(0, box.selectionStart));
    var query = document.querySelector("[data-mention-query]");
    if (!typed || !query || !window.htmx) { close(); return; }
    open = { box: box, at: box.selectionStart - typed[1].length - 1 };
    query.value = typed[1];
    window.htmx.trigger(query, "mention-query");
  }

  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches(BOX)) { asked(event.target); }
  });

  document.addEventListener("keydown", function (event) {
    if (!open || event.target !== open.box || listbox().hidden) { return; }
    var all = options(), now = all.indexOf(active());
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      var step = event.key === "ArrowDown" ? 1 : -1;
      choose(all[(now + step + all.length) % all.length]);
    } else if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey && active()) {
      event.preventDefault();
      pick(active());
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close();
      status(gettext("Suggestions closed."));
    }
  });

  // A press on an option keeps the focus in the box; the click mentions.
  document.addEventListener("mousedown", function (event) {
    if (event.target.closest && event.target.closest("#mention-options")) { event.preventDefault(); }
  });
  document.addEventListener("click", function (event) {
    var option = event.target.closest && event.target.closest("#mention-options [role=option]");
    if (option) { pick(option); }
  });
  document.addEventListener("focusout", function (event) {
    if (open && event.target === open.box) { close(); }
  });

  // The server's options arrived: shown under the box that asked, the first one chosen.
  document.addEventListener("htmx:afterSwap", function (event) {
    var list = listbox();
    if (!list || event.target !== list) { return; }
    if (!open || document.activeElement !== open.box) { close(); return; }
    var all = options();
    if (!all.length) {
      close();
      status(gettext("No one of this workspace is called that."));
      return;
    }
    if (open.box.nextElementSibling !== list) { open.box.insertAdjacentElement("afterend", list); }
    list.hidden = false;
    open.box.setAttribute("aria-expanded", "true");
    choose(all[0]);
    status(interpolate(ngettext(
      "%(count)s person to mention: Up and Down to choose, Enter to pick, Escape to close.",
      "%(count)s people to mention: Up and Down to choose, Enter to pick, Escape to close.",
      all.length
    ), { count: all.length }, true));
  });

  // New content (the page, a swapped comments region): its boxes become comboboxes.
  document.addEventListener("htmx:load", function (event) { prepare(event.target.parentNode || document); });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { prepare(document); });
  } else {
    prepare(document);
  }
})();
