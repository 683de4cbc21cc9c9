// Records pages: paint choice chips in their option colour (CSP forbids
// style attributes, the CSSOM is allowed), and keep image/file previews in
// step with the typed address. Runs on load and on every htmx swap.
(function () {
  "use strict";

  var HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;

  function textColourFor(hex) {
    var h = hex.length === 4
      ? hex.replace(/^#(.)(.)(.)$/, "#$1$1$2$2$3$3")
      : hex;
    var r = parseInt(h.substr(1, 2), 16);
    var g = parseInt(h.substr(3, 2), 16);
    var b = parseInt(h.substr(5, 2), 16);
    // Relative luminance, rounded: dark text on light chips, white on dark.
    return (0.299 * r + 0.587 * g + 0.114 * b) > 150 ? "#111827" : "#ffffff";
  }

  function paint(root) {
    var chips = root.querySelectorAll ? root.querySelectorAll("[data-color]") : [];
    Array.prototype.forEach.call(chips, function (el) {
      var colour = (el.getAttribute("data-color") || "").trim();
      if (!HEX.test(colour) || el.classList.contains("object-icon")) { return; }
      el.style.backgroundColor = colour;
      el.style.borderColor = colour;
      el.style.color = textColourFor(colour);
      el.classList.add("chip--painted");
    });
  }

  function isWebAddress(value) {
    return /^https?:\/\/[^\s/]+/i.test(value || "");
  }

  function updatePreview(input) {
    var box = document.querySelector('[data-preview-for="' + input.id + '"]');
    if (!box) { return; }
    var kind = box.getAttribute("data-kind");
    var value = input.value.trim();
    box.textContent = "";
    if (!isWebAddress(value)) { return; }
    if (kind === "image") {
      var img = document.createElement("img");
      img.src = value;
      img.alt = "Preview";
      img.width = 96;
      img.height = 96;
      box.appendChild(img);
    } else {
      var link = document.createElement("a");
      link.href = value;
      link.rel = "noopener noreferrer";
      link.target = "_blank";
      link.textContent = "Open the file";
      box.appendChild(link);
    }
  }

  document.addEventListener("input", function (event) {
    var target = event.target;
    if (target && target.matches && target.matches("input[data-preview]")) {
      updatePreview(target);
    }
  });

  function start() {
    paint(document);
    if (window.htmx) {
      window.htmx.onLoad(function (el) { paint(el); });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
