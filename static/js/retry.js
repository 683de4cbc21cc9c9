/* Workspace Console: Retry on remote error boxes, and the Retry-After countdown.
 *
 * The server marks each box (templates/errors/remote_error.html):
 * - [data-retry="link"]: a plain link to the same page (works without JS);
 * - [data-retry="request"]: the box was swapped into #messages in place of a
 *   failed htmx request; Retry issues that request again from the element
 *   that made it, into the region it targeted (which was left as it was);
 * - [data-retry="form"]: the box sits above a form; Retry sends the form
 *   again (a write keeps its Idempotency-Key when that is the same write).
 * - [data-retry-after]: the service asked to wait (429). The countdown is
 *   shown and, at zero, Retry happens once by itself. A request retried by
 *   itself that is refused again waits for the person to press Retry.
 *
 * Kept apart from console.js; strict CSP: no inline script, no eval.
 */
(function () {
  "use strict";

  var AUTO_KEY = "console:auto-retried:";
  var AUTO_MEMORY_MS = 5 * 60 * 1000;
  var autoRetried = {};  // request key -> time, for in-page requests

  function recentlyAutoRetried(key) {
    var now = Date.now();
    if (autoRetried[key] && now - autoRetried[key] < AUTO_MEMORY_MS) { return true; }
    try {
      var stored = Number(window.sessionStorage.getItem(AUTO_KEY + key) || 0);
      if (stored && now - stored < AUTO_MEMORY_MS) { return true; }
    } catch (ignored) { /* storage may be off: the in-page memory still holds */ }
    return false;
  }

  function rememberAutoRetry(key) {
    autoRetried[key] = Date.now();
    try { window.sessionStorage.setItem(AUTO_KEY + key, String(Date.now())); } catch (ignored) { /* see above */ }
  }

  function retryAction(box) {
    var button = box.querySelector("[data-retry]");
    if (!button) { return null; }
    var mode = button.getAttribute("data-retry");
    if (mode === "link") {
      return { key: "link " + button.getAttribute("href"), run: function () { window.location.assign(button.href); } };
    }
    if (mode === "request" && box.consoleRequest && window.htmx) {
      var failed = box.consoleRequest;
      return {
        key: failed.verb + " " + failed.path,
        run: function () {
          box.remove();
          var source = failed.source && failed.source.isConnected ? failed.source : null;
          var target = failed.target && failed.target.isConnected ? failed.target : null;
          window.htmx.ajax(failed.verb, failed.path, { source: source || target || document.body, target: target || undefined });
        }
      };
    }
    if (mode === "form") {
      var form = box.closest("form") || (box.parentElement && box.parentElement.querySelector("form"));
      if (!form) { return null; }
      return {
        key: "form " + (form.getAttribute("action") || window.location.pathname),
        run: function () { if (form.requestSubmit) { form.requestSubmit(); } else { form.submit(); } }
      };
    }
    return null;
  }

  function startCountdown(box, action) {
    var line = box.querySelector("[data-retry-after]");
    if (!line || !action) { return; }
    var seconds = Math.max(0, Math.ceil(Number(line.getAttribute("data-retry-after")) || 0));
    if (recentlyAutoRetried(action.key)) { return; }  // retried by itself once already: the person decides
    var shown = line.querySelector("[data-countdown]");
    line.hidden = false;
    var timer = window.setInterval(function () {
      if (!box.isConnected) { window.clearInterval(timer); return; }
      seconds -= 1;
      if (shown) { shown.textContent = String(Math.max(0, seconds)); }
      if (seconds <= 0) {
        window.clearInterval(timer);
        rememberAutoRetry(action.key);
        action.run();
      }
    }, 1000);
  }

  function setUp(box) {
    if (box.consoleRetryReady) { return; }
    box.consoleRetryReady = true;
    var action = retryAction(box);
    var button = box.querySelector("[data-retry]");
    if (button && action) {
      button.hidden = false;
      if (button.tagName === "BUTTON") {
        button.addEventListener("click", function () { action.run(); });
      }
    }
    startCountdown(box, action);
  }

  function setUpAll(root) {
    if (!root || !root.querySelectorAll) { return; }
    Array.prototype.forEach.call(root.querySelectorAll("[data-remote-error]"), setUp);
  }

  /* A box swapped in for a failed htmx request learns which request it was
   * (before it is set up, so Retry can repeat it). */
  document.addEventListener("htmx:afterSwap", function (event) {
    var detail = event.detail || {};
    var config = detail.requestConfig;
    var root = detail.target;
    if (config && root && root.querySelectorAll) {
      Array.prototype.forEach.call(root.querySelectorAll("[data-remote-error]"), function (box) {
        if (!box.consoleRequest && !box.consoleRetryReady) {
          box.consoleRequest = { verb: config.verb, path: config.path, source: config.elt, target: config.target };
        }
      });
    }
    setUpAll(root);
  });

  document.addEventListener("DOMContentLoaded", function () { setUpAll(document); });
})();
