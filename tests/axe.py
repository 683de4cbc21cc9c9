"""axe-core in every browser test: every document a test's page loads is
checked once it has loaded, and again after each htmx swap settles; the
page is checked once more at the end of the test. Serious and critical
violations fail the test.

axe-core comes with the axe-playwright-python package (its axe.min.js). It is
added with `add_init_script`, which Chromium runs in every new document
without consulting the page's Content Security Policy (the console's CSP
allows no inline script, so a script tag could not carry it); results come
back through an exposed function. Nothing of it is in the console itself.

Both themes (issue #22): each check runs every rule in the colour scheme the
page is shown in, then switches the browser to the other one
(`page.emulate_media(color_scheme=...)`, asked for by the page through an
exposed function), runs only the rules colours decide (THEME_RULES: the
other rules read markup, which a theme does not change, so running them
twice would double the time for nothing) and switches back. A page whose
person chose Light or Dark (`data-theme` on <html>) looks the same in both
schemes: it is checked once. A check that a navigation cut short between
the switch and the switch back is put right when the next document starts.
Checks run while the test goes on, so the page's `screenshot` and
`emulate_media` first wait for the check in hand to end: a screenshot never
catches the other theme, and a test's own scheme is not undone by a check's
switch back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

FAILING_IMPACTS = frozenset({"serious", "critical"})
# The axe rules whose answer depends on colours: checked again in the other theme.
THEME_RULES = ("color-contrast", "link-in-text-block")


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
  async function otherTheme(shown) {
    // The person's own choice looks the same under either scheme: nothing more to see.
    const chosen = document.documentElement.getAttribute("data-theme");
    if (chosen === "light" || chosen === "dark") { return []; }
    const other = shown === "dark" ? "light" : "dark";
    await window.__consoleAxeScheme(other, shown);
    try {
      const only = { type: "rule", values: window.__consoleAxeThemeRules };
      const found = (await window.axe.run(document, { runOnly: only, resultTypes: ["violations"] })).violations;
      return found.map((violation) => Object.assign(violation, { help: violation.help + " (" + other + " theme)" }));
    } finally {
      await window.__consoleAxeScheme(shown, null);
    }
  }
  async function run() {
    if (!window.axe) { return; }
    let violations;
    try {
      const shown = window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
      violations = (await window.axe.run(document, { resultTypes: ["violations"] })).violations;
      violations = violations.concat(await otherTheme(shown));
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
  // Settles once no check is running (the scheme is the page's own again).
  window.__consoleAxeIdle = () => queue;
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
    # The scheme to go back to while a check has the other one on (None: none has).
    restore_scheme: str | None = None
    schemes_checked: set[str] = field(default_factory=set)

    def switch_scheme(self, emulate, scheme: str, back_to: str | None) -> None:
        """The page asks for a colour scheme: the other one for a check
        (`back_to` its own), then its own back (`back_to` None)."""
        self.restore_scheme = back_to
        self.schemes_checked.add(scheme)
        emulate(color_scheme=scheme)

    def put_back(self, emulate) -> None:
        """A navigation cut a check short while the other scheme was on."""
        if self.restore_scheme is not None:
            scheme, self.restore_scheme = self.restore_scheme, None
            emulate(color_scheme=scheme)

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
    emulate = page.emulate_media  # the page's own: the wrapped one below waits for checks, these are theirs
    page.expose_function("__consoleAxeScheme", lambda scheme, back_to: watch.switch_scheme(emulate, scheme, back_to))
    page.on("framenavigated", lambda frame: watch.put_back(emulate) if frame == page.main_frame else None)
    rules = "window.__consoleAxeThemeRules = " + json.dumps(list(THEME_RULES)) + ";\n"
    page.add_init_script(script=axe_source() + "\n;" + rules + WATCHER)
    page.screenshot = _after_checks(page, page.screenshot)
    page.emulate_media = _after_checks(page, page.emulate_media)
    return watch


def _after_checks(page, method):
    """`method` of the page, called once no check has the other theme on."""

    def call(*args, **kwargs):
        try:
            if not page.is_closed() and page.url.startswith("http"):
                page.evaluate("() => window.__consoleAxeIdle ? window.__consoleAxeIdle() : null")
        except Exception:  # a page between documents: no check of it is running
            pass
        return method(*args, **kwargs)

    return call


def check_now(page, watch: AxeWatch) -> None:
    """Run axe on the page as it is now (the end of a test); returns once it has reported."""
    try:
        if page.is_closed() or not page.url.startswith("http"):
            return
        page.evaluate("() => window.__consoleAxeCheck ? window.__consoleAxeCheck() : null")
    except Exception:  # the page went away meanwhile: what was checked before stands
        return
