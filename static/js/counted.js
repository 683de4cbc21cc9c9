// Length-limited text boxes of every area (dashboard.web.counted.CountedCharField):
// the Studio's composer, home message and Content App fields, the Agents'
// messages, builder answers and approval notes.
//
// Never lose a word (issue #21): the boxes have no maxlength, which made the
// browser cut a long paste at the limit and send the cut text without a word.
// The limit is data instead (data-max-length and, for the refusal's words,
// data-limit-noun; a box with data-limit-select="<name>" takes both from the
// chosen option of that select in its form, as the Studio home's message
// follows the chosen studio).
// The counter shows "3,801 / 3,800 — 1 character over" in the error colour,
// a quiet status announces the change once the typing pauses (not every
// keystroke), and sending is refused in words next to the box, which gets
// the focus. The server refuses with the same sentence when this script did
// not run (dashboard.web.counted.over_limit_words): keep the two in step.
// A submit button marked data-skip-limits (a redraw that sends nothing,
// like a Content App's "Show its images") is let through.
(function () {
  "use strict";
  var gettext = window.gettext || String;
  var BOXES = "textarea[data-max-length], input[data-max-length]";
  var ANNOUNCE_AFTER_MS = 800;

  // "18,001": the server's `{:,}` grouping whatever the browser's locale, so both say the same words.
  function formatCount(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }
  function characters(n) {
    return formatCount(n) + (n === 1 ? " character" : " characters");
  }
  function refusal(noun, max, used) {
    return (
      noun + " can be at most " + formatCount(max) + " characters; this one has " + formatCount(used) + ", " +
      characters(used - max) + " over. Shorten it to send it."
    );
  }
  function counterText(used, max) {
    if (used > max) return formatCount(used) + " / " + formatCount(max) + " — " + characters(used - max) + " over";
    return formatCount(used) + " / " + formatCount(max) + " characters";
  }

  function wire(box) {
    if (box.textCounted) return;
    var form = box.form;
    var selectName = box.getAttribute("data-limit-select");
    var select = form && selectName ? form.elements.namedItem(selectName) : null;
    if (select && !select.options) select = null;
    var counter = document.getElementById(box.id + "_counter");
    var status = document.getElementById(box.id + "_status");
    var errorId = box.id + "_error";
    var refused = false;
    var announced = false; // whether the last thing said was "over"
    var timer = null;

    function limit() {
      var option = select ? select.options[select.selectedIndex] : null;
      var fromOption = option ? parseInt(option.getAttribute("data-max-length"), 10) : 0;
      if (fromOption) return { max: fromOption, noun: option.getAttribute("data-limit-noun") || "This text" };
      return {
        max: parseInt(box.getAttribute("data-max-length"), 10) || 0,
        noun: box.getAttribute("data-limit-noun") || "This text",
      };
    }
    function isOver() {
      var max = limit().max;
      return max > 0 && box.value.length > max;
    }
    function describedBy(add) {
      var ids = (box.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (id) {
        return id && id !== errorId;
      });
      if (add) ids.push(errorId);
      if (ids.length) box.setAttribute("aria-describedby", ids.join(" "));
      else box.removeAttribute("aria-describedby");
    }
    // The refusal where the server puts its errors (templates/forms/field.html): after the box, in the field.
    function showRefusal() {
      var l = limit();
      var error = document.getElementById(errorId);
      if (!error) {
        error = document.createElement("div");
        error.className = "field-error";
        error.id = errorId;
        error.setAttribute("role", "alert");
        (box.closest(".form-field") || box.parentNode).appendChild(error);
      }
      var words = document.createElement("p");
      words.textContent = refusal(l.noun, l.max, box.value.length);
      error.replaceChildren(words);
      var field = box.closest(".form-field");
      if (field) field.classList.add("has-error");
      box.setAttribute("aria-invalid", "true");
      describedBy(true);
      refused = true;
    }
    function clearRefusal() {
      if (!refused) return;
      var error = document.getElementById(errorId);
      if (error) error.remove();
      var field = box.closest(".form-field");
      if (field) field.classList.remove("has-error");
      box.removeAttribute("aria-invalid");
      describedBy(false);
      refused = false;
    }
    function announce() {
      timer = null;
      if (!status) return;
      var l = limit();
      var over = isOver();
      // Say it when the box goes over, when it comes back within, and a new excess after a pause.
      if (over) status.textContent = counterText(box.value.length, l.max) + " the limit.";
      else if (announced) status.textContent = gettext("Within the limit: %s.").replace("%s", counterText(box.value.length, l.max));
      announced = over;
    }
    function update(event) {
      var l = limit();
      var used = box.value.length;
      var over = l.max > 0 && used > l.max;
      if (counter) {
        counter.textContent = l.max ? counterText(used, l.max) : "";
        counter.classList.toggle("is-over", over);
      }
      if (!over) clearRefusal();
      else if (refused) showRefusal(); // keep its count true as the box is edited
      if (event && (over || announced)) {
        if (timer) clearTimeout(timer);
        timer = setTimeout(announce, ANNOUNCE_AFTER_MS);
      }
    }

    box.textCounted = true;
    // Checked on sending: true when refused (the refusal shown).
    box.textRefuse = function () {
      if (!isOver()) return false;
      showRefusal();
      return true;
    };
    if (select) select.addEventListener("change", update);
    box.addEventListener("input", update);
    // A page the server sent back with its refusal: the script takes it over (it goes once within the limit).
    if (isOver() && document.getElementById(errorId)) {
      refused = true;
      announced = true;
    }
    update();
  }

  function wireWithin(root) {
    if (!root || !root.querySelectorAll) return;
    if (root.matches && root.matches(BOXES)) wire(root);
    var boxes = root.querySelectorAll(BOXES);
    for (var i = 0; i < boxes.length; i++) wire(boxes[i]);
  }

  // Capture phase: refused before anything else (htmx included) acts on the submit.
  document.addEventListener(
    "submit",
    function (event) {
      var form = event.target;
      if (!form || !form.querySelectorAll) return;
      // A redraw that sends nothing (data-skip-limits) keeps everything typed: let it through.
      if (event.submitter && event.submitter.hasAttribute("data-skip-limits")) return;
      var first = null;
      var boxes = form.querySelectorAll(BOXES);
      for (var i = 0; i < boxes.length; i++) {
        if (boxes[i].textRefuse && boxes[i].textRefuse() && !first) first = boxes[i];
      }
      if (!first) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      first.focus();
    },
    true
  );

  // Boxes htmx swaps in later are counted too.
  document.addEventListener("htmx:load", function (event) {
    wireWithin(event.detail && event.detail.elt);
  });
  function init() {
    wireWithin(document);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
