/* Workspace Console: the little behaviour the pages need.
 *
 * The CSP allows scripts only from our own origin and forbids inline
 * styles and eval, so behaviour lives here and styling in CSS classes.
 */
(function () {
  "use strict";
  // Django's JavaScript catalog (templates/base.html); English words without it.
  var gettext = window.gettext || String;

  /* Colours that come from data (object or option colours): markup carries
   * data-color="#3366ff" (or a colour name). Each distinct colour gets one
   * rule in a constructed stylesheet that sets --item-color. The CSSOM is
   * allowed by the CSP, and unlike element.style it leaves nothing in the
   * markup: htmx's history snapshot would otherwise save style="" attributes
   * whose restore (the back button) the CSP refuses. */
  var colourSheet = null;
  var paintedColours = {};

  function applyDataColors(root) {
    var nodes = root.querySelectorAll ? root.querySelectorAll("[data-color]") : [];
    Array.prototype.forEach.call(nodes, function (node) {
      var value = (node.getAttribute("data-color") || "").trim();
      if (!value || paintedColours[value] || !(window.CSS && CSS.supports("color", value))) { return; }
      if (!colourSheet) {
        colourSheet = new CSSStyleSheet();
        document.adoptedStyleSheets = document.adoptedStyleSheets.concat([colourSheet]);
      }
      paintedColours[value] = true;
      colourSheet.insertRule(
        '[data-color="' + CSS.escape(value) + '"] { --item-color: ' + value + "; }",
        colourSheet.cssRules.length
      );
    });
  }

  /* Chromium leaves empty style="" attributes on some form inputs; the
   * history snapshot would keep them and the CSP would refuse the restore.
   * Take every snapshot without them. */
  document.addEventListener("htmx:beforeHistorySave", function (event) {
    var root = (event.detail && event.detail.historyElt) || document.body;
    Array.prototype.forEach.call(root.querySelectorAll("[style]"), function (node) {
      if (!node.getAttribute("style").trim()) { node.removeAttribute("style"); }
    });
  });

  /* The header's Menu button on a phone (templates/base.html): it opens and
   * closes the rest of the header; Escape closes it and gives the focus back. */
  function menuSet(button, open) {
    var menu = document.getElementById(button.getAttribute("aria-controls"));
    if (!menu) { return; }
    button.setAttribute("aria-expanded", open ? "true" : "false");
    menu.classList.toggle("is-open", open);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-menu-toggle]");
    if (button) { menuSet(button, button.getAttribute("aria-expanded") !== "true"); }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") { return; }
    // The innermost first: an open switcher or theme menu closes, the header's menu stays.
    if (document.querySelector("details[data-dismissable][open]")) { return; }
    var button = document.querySelector('[data-menu-toggle][aria-expanded="true"]');
    var menu = button && document.getElementById(button.getAttribute("aria-controls"));
    if (button && menu && (menu.contains(document.activeElement) || document.activeElement === button)) {
      menuSet(button, false);
      button.focus();
    }
  });

  /* <details data-dismissable> menus (the workspace switcher) close on
   * Escape and on a click elsewhere, like a normal menu. */
  function closeMenus(except) {
    document.querySelectorAll("details[data-dismissable][open]").forEach(function (menu) {
      if (menu !== except) { menu.removeAttribute("open"); }
    });
  }

  document.addEventListener("click", function (event) {
    var inside = event.target.closest && event.target.closest("details[data-dismissable]");
    closeMenus(inside);
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") { return; }
    var open = document.querySelector("details[data-dismissable][open]");
    if (open) {
      open.removeAttribute("open");
      var summary = open.querySelector("summary");
      if (summary) { summary.focus(); }
    }
  });

  /* The console itself unreachable (server stopped, network gone): say so
   * instead of letting the page look live. Shown when an htmx request or
   * status poll gets no answer (or a proxy's 502/503/504); hidden as soon as
   * any request gets an answer again. Polling regions keep retrying by
   * themselves; on a page without one, /healthz is asked every few seconds.
   * While lost, "Updating live…" reads "Connection lost, retrying…". */
  var LOST_TEXT = gettext("Connection to the console lost, retrying…");
  var LIVE_LOST_TEXT = gettext("Connection lost, retrying… last refreshed") + " ";
  var RETRY_MS = 4000;
  var lost = false;
  var retryTimer = null;

  function liveLabels() { return document.querySelectorAll(".live-updating"); }

  function showLiveLabels(offline) {
    Array.prototype.forEach.call(liveLabels(), function (label) {
      var first = label.firstChild;
      if (!first || first.nodeType !== Node.TEXT_NODE) { return; }
      if (offline && label.getAttribute("data-live-text") === null) {
        label.setAttribute("data-live-text", first.nodeValue);
        first.nodeValue = LIVE_LOST_TEXT;
      } else if (!offline && label.getAttribute("data-live-text") !== null) {
        first.nodeValue = label.getAttribute("data-live-text");
        label.removeAttribute("data-live-text");
      }
    });
  }

  function retryHealth() {
    var box = document.getElementById("connection-status");
    var url = box && box.getAttribute("data-health-url");
    if (!lost || !url) { return; }
    fetch(url, { cache: "no-store", credentials: "same-origin" }).then(function (response) {
      // Any answer from the console itself (503 names a broken part, but the console answers).
      if ([502, 504].indexOf(response.status) === -1) { connectionState(false); }
    }, function () { /* still unreachable: the timer tries again */ });
  }

  function connectionState(offline) {
    if (offline === lost) { return; }
    lost = offline;
    var box = document.getElementById("connection-status");
    if (box) {
      box.textContent = offline ? LOST_TEXT : "";
      box.classList.toggle("is-lost", offline);
    }
    document.documentElement.classList.toggle("console-offline", offline);
    showLiveLabels(offline);
    if (offline && retryTimer === null) {
      retryTimer = window.setInterval(retryHealth, RETRY_MS);
    } else if (!offline && retryTimer !== null) {
      window.clearInterval(retryTimer);
      retryTimer = null;
    }
  }

  function unreachableStatus(status) { return status === 0 || status === 502 || status === 503 || status === 504; }

  document.addEventListener("htmx:sendError", function () { connectionState(true); });
  document.addEventListener("htmx:timeout", function () { connectionState(true); });
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (!xhr) { return; }
    connectionState(unreachableStatus(xhr.status));
  });
  // A region swapped in while offline (it cannot be, but a history restore can) gets the same wording.
  document.addEventListener("htmx:load", function () { if (lost) { showLiveLabels(true); } });

  // Copy buttons: a [data-copy-button] copies the [data-copy-source] of its
  // [data-copy-scope] and says so in its [data-copy-status]. Hidden in the
  // markup: without JavaScript the read-only field itself is the copy.
  function showCopyButtons(root) {
    root.querySelectorAll("[data-copy-button][hidden]").forEach(function (button) { button.hidden = false; });
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-copy-button]");
    var scope = button && button.closest("[data-copy-scope]");
    var source = scope && scope.querySelector("[data-copy-source]");
    if (!source) return;
    var status = scope.querySelector("[data-copy-status]");
    function say(text) { if (status) status.textContent = text; }
    source.select();
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(source.value).then(function () { say(gettext("Copied.")); }, function () { say(gettext("Selected: press Ctrl+C to copy.")); });
    } else {
      say(gettext("Selected: press Ctrl+C to copy."));
    }
  });

  /* Focus after a swap, for every page: what a swap replaces loses the focus
   * it held (focus falls to BODY, and a keyboard or screen reader user is
   * back at the top). So, once the new content settles:
   * 1. an element the answer marks [data-focus-after-swap] takes it (an
   *    error summary, the link just made; a container gives it to its first
   *    control);
   * 2. else, if the focus was inside what was replaced, the same control in
   *    the new content (by its data-focus-key, id, a pager link's rel, or a
   *    header cell's place in a table with an id: a sort link);
   * 3. else the new content's [data-focus-fallback], or the region itself.
   * Nothing moves when the focus was elsewhere (typing in a search box that
   * swaps a table keeps the focus where it is). A full page with a marked
   * element (a form posted without JavaScript) focuses it on load. */
  var FOCUSABLE = "a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]";
  var focusWanted = new Map(); // per swap's target: {region, selector}; a poll settling elsewhere keeps a sort's

  function describeFocus(active) {
    if (active.getAttribute("data-focus-key")) { return '[data-focus-key="' + CSS.escape(active.getAttribute("data-focus-key")) + '"]'; }
    if (active.id) { return "#" + CSS.escape(active.id); }
    if (active.tagName === "A" && active.getAttribute("rel")) { return 'a[rel="' + CSS.escape(active.getAttribute("rel")) + '"]'; }
    var header = active.closest("thead th");  // a column's control (a sort link): columns keep their place
    if (header && header.parentElement.closest("table[id]")) {
      return "#" + CSS.escape(header.parentElement.closest("table").id) + " thead th:nth-child(" + (header.cellIndex + 1) + ") " + active.tagName.toLowerCase();
    }
    return null;
  }

  function visible(node) { return !!(node && node.getClientRects().length); }

  function focusNode(node) {
    if (!node) { return false; }
    var target = node.matches(FOCUSABLE) ? node : node.querySelector(FOCUSABLE);
    if (!target) {
      target = node;
      target.setAttribute("tabindex", "-1");
    }
    target.focus();
    return document.activeElement === target;
  }

  function focusMarked(root) {
    var marked = (root || document).querySelector("[data-focus-after-swap]");
    if (!marked) { return false; }
    marked.removeAttribute("data-focus-after-swap");
    return focusNode(marked);
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    var active = document.activeElement;
    if (event.detail.shouldSwap && target && active && active !== document.body && target.contains(active)) {
      focusWanted.set(target, { region: target.id || "", selector: describeFocus(active) });
    }
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    var wanted = target ? focusWanted.get(target) : null;
    if (target) { focusWanted.delete(target); }
    if (focusMarked(document)) { return; }
    var active = document.activeElement;
    if (!wanted || (active && active !== document.body && active.isConnected)) { return; }
    var region = wanted.region ? document.getElementById(wanted.region) : null;
    var scope = region || document;
    var same = wanted.selector ? scope.querySelector(wanted.selector) : null;
    if (visible(same) && focusNode(same)) { return; }
    if (region) { focusNode(region.querySelector("[data-focus-fallback]") || region); }
  });

  document.addEventListener("DOMContentLoaded", function () { applyDataColors(document); showCopyButtons(document); focusMarked(document); });
  // Swapped-in content gets the same treatment.
  document.addEventListener("htmx:load", function (event) { applyDataColors(event.target); showCopyButtons(event.target); });
})();

/* The header's theme menu without a page load (templates/base.html,
 * dashboard/people/views_theme.py); in this file, not one of its own: one
 * request fewer on every page.
 *
 * Without JavaScript the menu's form posts and the page comes back rendered
 * in the new theme. With htmx the post answers with an event instead
 * ("consoleTheme", HX-Trigger), applied here to the page in hand, so nothing
 * typed in a form on it is lost. What the server would render is set the same
 * way: data-theme on <html> (console.css reads it), the color-scheme meta,
 * the menu's label and pressed button; the change is said in the status
 * region, as the server's message would be.
 */
(function () {
  "use strict";
  // Django's JavaScript catalog (templates/base.html); English words without it.
  var gettext = window.gettext || String;
  var interpolate = window.interpolate || function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

  function apply(theme, label) {
    document.documentElement.setAttribute("data-theme", theme);
    var meta = document.querySelector('meta[name="color-scheme"]');
    if (meta) { meta.setAttribute("content", theme === "system" ? "light dark" : theme); }

    var menu = document.querySelector(".theme-menu");
    if (!menu) { return; }
    var summary = menu.querySelector("summary");
    var name = menu.querySelector(".theme-menu__name");
    if (summary) { summary.setAttribute("aria-label", interpolate(gettext("Theme: %(theme)s. Change theme"), { theme: label }, true)); }
    if (name) { name.textContent = label; }
    menu.querySelectorAll("button[name=theme]").forEach(function (button) {
      button.setAttribute("aria-pressed", button.value === theme ? "true" : "false");
    });
    menu.removeAttribute("open");
    if (summary) { summary.focus(); }

    var messages = document.getElementById("messages");
    if (messages) {
      var note = document.createElement("div");
      note.className = "alert alert-success";
      note.textContent = interpolate(gettext("Theme: %(theme)s."), { theme: label }, true);
      messages.replaceChildren(note);
    }
  }

  document.addEventListener("consoleTheme", function (event) {
    var detail = event.detail || {};
    if (typeof detail.theme === "string" && typeof detail.label === "string") {
      apply(detail.theme, detail.label);
    }
  });
})();

/* Opening the command palette (dashboard/palette): Ctrl/Cmd-K or the header's
 * Search, on every page (in this file: no request of its own). The dialog is in every page's markup, so opening it is
 * showModal() and a focus; what is typed goes into the field at once (htmx asks
 * for the answers). The combobox (palette.js) and the dialog's styles
 * (palette.css) come on the first opening; an arrow or Enter pressed before
 * then is queued and handed to palette.js when it has come.
 */
(function () {
  "use strict";

  var state = window.consolePalette = window.consolePalette || { loaded: false, loading: false };
  var queued = [];

  function dialog() { return document.getElementById("palette"); }

  function field(root) { return (root || document).querySelector("[data-palette-input]"); }

  /* palette.css and palette.js once; queued keys are handed to palette.js when it has come. */
  function load() {
    var box = dialog();
    var source = box && box.getAttribute("data-palette-src");
    var styles = box && box.getAttribute("data-palette-css");
    if (state.loaded || state.loading || !source) { return; }
    state.loading = true;
    if (styles) {
      var link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = styles;
      // Not come (offline): the dialog shown unstyled rather than left invisible (console.css).
      link.onerror = function () { var box = dialog(); if (box) { box.style.opacity = "1"; } };
      document.head.appendChild(link);
    }
    var script = document.createElement("script");
    script.src = source;
    script.onload = function () {
      state.loaded = true;
      var keys = queued;
      queued = [];
      keys.forEach(function (key) {
        var input = field(dialog() || document);
        if (input) { input.dispatchEvent(new KeyboardEvent("keydown", { key: key, bubbles: true, cancelable: true })); }
      });
    };
    script.onerror = function () { state.loading = false; };
    document.head.appendChild(script);
  }

  function open() {
    var box = dialog();
    var input = field(box || document);
    if (!input) { return; }
    load();
    if (!box) { input.focus(); input.select(); return; }  // the palette's own page
    if (!box.open) {
      box.showModal();
      // The field's own trigger ("search"): the current text, even when unchanged.
      input.dispatchEvent(new Event("search", { bubbles: true }));
    }
    input.focus();
    input.select();
  }

  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && (event.key === "k" || event.key === "K")) {
      event.preventDefault();
      var box = dialog();
      if (box && box.open) { box.close(); } else { open(); }
      return;
    }
    var target = event.target;
    if (state.loaded || !target || !target.hasAttribute || !target.hasAttribute("data-palette-input")) { return; }
    if (event.key === "ArrowDown" || event.key === "ArrowUp" || event.key === "Enter") {
      event.preventDefault();  // palette.js does what it means, once it has come
      queued.push(event.key);
      load();
    }
  });

  document.addEventListener("click", function (event) {
    var opener = event.target.closest && event.target.closest("[data-palette-open]");
    if (opener && dialog() && !(event.ctrlKey || event.metaKey || event.shiftKey || event.button)) {
      event.preventDefault();  // a modified click still opens the palette's page in a new tab
      open();
      return;
    }
    var box = dialog();
    if (!box) { return; }
    if ((event.target.closest && event.target.closest("[data-palette-close]")) || event.target === box) {
      box.close();  // the Close button, or a click on the backdrop around the dialog
    }
  });
})();
