/* The command palette's combobox (dashboard/palette), loaded by
 * static/js/console.js on the first Ctrl/Cmd-K or click of the header's
 * Search (the palette's own page loads it at once). Opening and closing the
 * dialog is console.js's.
 *
 * The field is a WAI-ARIA combobox (APG "list autocomplete, manual selection"):
 * htmx asks GET /palette/?q= as the person types and swaps #palette-results;
 * here the first option of each answer is chosen (so Enter opens the top hit),
 * the arrows move aria-activedescendant over the listbox's options, Enter opens
 * the chosen one (pressed before the answer to what is typed has come, it
 * opens that answer's top hit when it comes; with no option at all, the form
 * goes to the palette's page), Esc closes (the dialog's own cancel) and focus
 * goes back where it was.
 * #palette-count (role=status) is filled by the server's answer, out of band.
 * No inline script or style: the CSP allows only this origin's files.
 */
(function () {
  "use strict";

  // console.js loads this file only while this is unset.
  window.consolePalette = window.consolePalette || {};
  window.consolePalette.loaded = true;

  function dialog() { return document.getElementById("palette"); }

  function field(root) { return (root || document).querySelector("[data-palette-input]"); }

  function options(input) {
    var listbox = document.getElementById(input.getAttribute("aria-controls"));
    return listbox ? Array.prototype.slice.call(listbox.querySelectorAll("[role=option]")) : [];
  }

  function choose(input, option) {
    options(input).forEach(function (each) {
      var chosen = each === option;
      each.setAttribute("aria-selected", chosen ? "true" : "false");
      each.classList.toggle("is-active", chosen);
    });
    if (option) {
      input.setAttribute("aria-activedescendant", option.id);
      input.setAttribute("data-palette-chosen", option.getAttribute("href") || "");
      option.scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
      input.removeAttribute("data-palette-chosen");
    }
  }

  /* After each answer: options out of the tab order (focus stays in the
   * field), the list said to be open when it has options, and the first
   * option chosen, unless the option the person chose with the arrows is in
   * the new answer too (an answer to a keystroke typed before the arrow lands
   * after it: the choice stays where the person put it). An Enter that waited
   * for this answer opens its choice now. */
  function settle(input) {
    var found = options(input);
    found.forEach(function (option) { option.setAttribute("tabindex", "-1"); });
    input.setAttribute("aria-expanded", found.length ? "true" : "false");
    var chosen = input.hasAttribute("data-palette-moved") ? input.getAttribute("data-palette-chosen") : null;
    var again = chosen ? found.filter(function (option) { return option.getAttribute("href") === chosen; })[0] : null;
    if (!again) { input.removeAttribute("data-palette-moved"); }
    choose(input, again || found[0] || null);
    // Only the answer to what the field holds: an older keystroke's answer landing after the Enter waits on.
    if (input.hasAttribute("data-palette-enter") && answered(input)) {
      input.removeAttribute("data-palette-enter");
      go(input);
    }
  }

  /* Whether the results shown answer what the field holds now (the server
   * folds white space as this does). The dialog's region before its first
   * answer answers nothing typed yet. */
  function answered(input) {
    var region = document.getElementById("palette-results");
    var typed = input.value.replace(/\s+/g, " ").trim();
    if (!region) { return true; }
    var shown = region.getAttribute("data-palette-query");
    return shown === null ? typed === "" : shown === typed;
  }

  /* Enter: the chosen option's page, or (nothing found) the palette's own page. */
  function go(input) {
    var found = options(input);
    var current = found.indexOf(document.getElementById(input.getAttribute("aria-activedescendant") || ""));
    if (current >= 0) {
      window.location.assign(found[current].href);
    } else if (input.form) {
      input.form.submit();
    }
  }

  function ask(input) {
    // The field's own trigger ("search"): the current text, even when unchanged.
    input.dispatchEvent(new Event("search", { bubbles: true }));
  }

  document.addEventListener("keydown", function (event) {
    var input = event.target;
    if (!input || !input.hasAttribute || !input.hasAttribute("data-palette-input")) { return; }
    var found = options(input);
    var current = found.indexOf(document.getElementById(input.getAttribute("aria-activedescendant") || ""));
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (!found.length) { return; }
      event.preventDefault();
      var next = event.key === "ArrowDown" ? current + 1 : current - 1;
      if (next >= found.length) { next = 0; }
      if (next < 0) { next = found.length - 1; }
      input.setAttribute("data-palette-moved", "");
      choose(input, found[next]);
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (answered(input)) {
        go(input);
      } else {
        // The answer to what was just typed is on its way: its top hit opens when it comes.
        input.setAttribute("data-palette-enter", "");
        ask(input);
      }
    }
  });

  /* Whether the palette's results are a new answer: each answer's listbox (or
   * the results region, when nothing was found) is marked once settled, so
   * another region's swap (the header's inbox poll, a live status) never
   * takes back the option the person chose with the arrows. */
  function freshAnswer(input) {
    var region = document.getElementById(input.getAttribute("aria-controls")) || document.getElementById("palette-results");
    var expanded = input.getAttribute("aria-expanded") === "true";
    if (region && !region.hasAttribute("data-palette-settled")) {
      region.setAttribute("data-palette-settled", "");
      return true;
    }
    return expanded !== (options(input).length > 0);
  }

  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll("[data-palette-input]").forEach(function (input) {
      if (freshAnswer(input)) { settle(input); }
    });
  });

  function start() {
    document.querySelectorAll("[data-palette-input]").forEach(function (input) { freshAnswer(input); settle(input); });
    var box = dialog();
    if (box) {
      box.addEventListener("close", function () {
        var input = field(box);
        if (input) {
          input.setAttribute("aria-expanded", "false");
          input.removeAttribute("data-palette-moved");
          input.removeAttribute("data-palette-enter");
          choose(input, null);
        }
      });
    }
  }

  // Loaded late (the first opening) or at once (the palette's own page).
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
