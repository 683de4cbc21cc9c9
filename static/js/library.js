/* The Studio library's images (issue #21, item 5):
 * - Shift ranges: the tiles' "Select" boxes are plain checkboxes in a GET
 *   form (they work without JavaScript); here a Shift-click on a second box
 *   sets every box between it and the last one clicked to the same state.
 * - The lightbox: a tile's picture is a link to the image's own page (its
 *   details and actions, without JavaScript); here a click opens it large in
 *   the page's <dialog> instead. Left and Right arrows move between images,
 *   Escape closes (the dialog's own), and focus returns to the tile.
 * Delegated listeners: the list is swapped by htmx when paging.
 * No inline script: the CSP allows only this origin's files.
 */
(function () {
  "use strict";

  var lastPicked = null;
  // With this script each box (and a Shift range, sent with the box's own
  // change) is saved as it changes: the no-JS "Update the selection" button
  // is hidden by the stylesheet (studio.css) while this class is on.
  document.documentElement.classList.add("library-live");

  document.addEventListener("click", function (event) {
    var box = event.target.closest && event.target.closest("[data-library-pick]");
    if (!box) { return; }
    var boxes = Array.prototype.slice.call(document.querySelectorAll("[data-library-pick]"));
    if (event.shiftKey && lastPicked && boxes.indexOf(lastPicked) !== -1) {
      var from = boxes.indexOf(lastPicked), to = boxes.indexOf(box);
      var low = Math.min(from, to), high = Math.max(from, to);
      for (var i = low; i <= high; i += 1) { boxes[i].checked = box.checked; }
    }
    lastPicked = box;
  });

  var opener = null;

  function tiles() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-lightbox]"));
  }

  function show(dialog, link) {
    var picture = link.querySelector("img");
    var image = dialog.querySelector("[data-lightbox-image]");
    image.src = picture.getAttribute("src");
    image.alt = picture.getAttribute("alt") || "";
    dialog.querySelector("[data-lightbox-caption]").textContent = link.getAttribute("data-lightbox") || "";
    dialog.querySelector("[data-lightbox-details]").setAttribute("href", link.getAttribute("href"));
    opener = link;
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-lightbox]");
    var dialog = document.getElementById("library-lightbox");
    if (!link || !dialog || !dialog.showModal || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    event.preventDefault();
    show(dialog, link);
    dialog.showModal();
  });

  document.addEventListener("keydown", function (event) {
    var dialog = document.getElementById("library-lightbox");
    if (!dialog || !dialog.open || (event.key !== "ArrowLeft" && event.key !== "ArrowRight")) { return; }
    var all = tiles(), at = all.indexOf(opener);
    var next = all[at + (event.key === "ArrowRight" ? 1 : -1)];
    if (next) { event.preventDefault(); show(dialog, next); }
  });

  document.addEventListener("close", function (event) {
    if (event.target.id === "library-lightbox" && opener) { opener.focus(); }
  }, true);
})();
