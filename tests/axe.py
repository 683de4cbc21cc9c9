"""axe-core in every browser test: every document a test's page loads is
checked once it has loaded, and again after each htmx swap settles; the
page is checked once more at the end of the test. Serious and critical
violations fail the test.

axe-core comes with the axe-playwright-python package (its axe.min.js). It is
added with `add_init_script`, which Chromium runs in every new document
without consulting the page's Content Security Policy (the console's CSP
allows no inline script, so a script tag could not carry it); results come
back through an exposed function. Nothing of it is in the console itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

FAILING_IMPACTS = frozenset({"serious", "critical"})


def axe_source() -> str:
    import axe_playwright_python

    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


# Runs in each document: axe after load, and after htmx swaps settle (debounced).
WATCHER = """
(() => {
  if (window.top !== window || window.__consoleAxeWatching) { return; }
  window.__consoleAxeWatching = true;
  let timer = null;
  let queue = Promise.resolve();
  async function run() {
    if (!window.axe) { return; }
    let violations;
    try {
      violations = (await window.axe.run(document, { resultTypes: ["violations"] })).violations;
    } catch (error) {
      violations = [{ id: "axe-error", impact: "critical", help: String(error), nodes: [] }];
    }
    // A run that a navigation overtook read a document being torn down (its
    // styles detached mid-run: white header text measured on white): nobody
    // sees that page any more, and the next document gets its own check.
    if (leaving) { return; }
    await window.__consoleAxeReport(location.href, JSON.stringify(violations));
  }
  let leaving = false;
  window.addEventListener("beforeunload", () => { leaving = true; });
  window.addEventListener("pagehide", () => { leaving = true; });
  // One run at a time (axe refuses to overlap); the promise settles when this run has reported.
  function check() { queue = queue.then(run, run); return queue; }
  function schedule() { clearTimeout(timer); timer = setTimeout(check, 150); }
  window.__consoleAxeCheck = check;
  window.addEventListener("load", schedule);
  document.addEventListener("htmx:afterSettle", schedule);
})();
"""


@dataclass
class AxeFinding:
    url: str
    rule: str
    impact: str
    help: str
    targets: list[str]

    def __str__(self) -> str:
        return f"{self.impact} {self.rule} on {self.url}: {self.help} at {', '.join(self.targets[:5])}"


@dataclass
class AxeWatch:
    findings: list[AxeFinding] = field(default_factory=list)
    checked_urls: set[str] = field(default_factory=set)

    def report(self, url: str, violations_json: str) -> None:
        self.checked_urls.add(url)
        for violation in json.loads(violations_json):
            if violation.get("impact") in FAILING_IMPACTS:
                self.findings.append(
                    AxeFinding(
                        url=url,
                        rule=violation.get("id", ""),
                        impact=violation.get("impact", ""),
                        help=violation.get("help", ""),
                        targets=[", ".join(map(str, node.get("target", []))) for node in violation.get("nodes", [])],
                    )
                )

    def failures(self) -> list[str]:
        return sorted({str(finding) for finding in self.findings})


def watch_with_axe(page) -> AxeWatch:
    watch = AxeWatch()
    page.expose_function("__consoleAxeReport", watch.report)
    page.add_init_script(script=axe_source() + "\n;" + WATCHER)
    return watch


def check_now(page, watch: AxeWatch) -> None:
    """Run axe on the page as it is now (the end of a test); returns once it has reported."""
    try:
        if page.is_closed() or not page.url.startswith("http"):
            return
        page.evaluate("() => window.__consoleAxeCheck ? window.__consoleAxeCheck() : null")
    except Exception:  # the page went away meanwhile: what was checked before stands
        return
