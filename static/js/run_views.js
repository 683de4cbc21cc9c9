/* The runs page's "Save this view" form (templates/agents/_run_views.html):
 * the status tabs, the agent filter and the search change the address by
 * htmx without reloading the page, so the form's query is read from the
 * address as it is when the form is sent. Without JavaScript every change is
 * a page of its own and the form already carries its query.
 * No inline script: the CSP allows only this origin's files.
 */
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("[data-run-view-save]")) { return; }
    var query = form.querySelector("input[name=query]");
    if (query) { query.value = window.location.search.replace(/^\?/, ""); }
  }, true);
})();
