"""Light and dark themes (issue #22): the colour tokens of static/css/console.css.

Every colour of every stylesheet is a token declared in console.css (a
literal elsewhere would stay light in the dark theme); a token that changes
with the theme holds both values as `light-dark(light, dark)`, so there is one
list of dark values, used for "System" on a dark device and for a person's
choice of Dark alike; and each pair of text and background
the pages use reads at 4.5:1 or better in both themes (WCAG AA for body
text). axe checks the rendered pages in both themes too (tests/axe.py); this
test covers pairs a browser test might never show (every badge tone, every
plan node kind)."""

from __future__ import annotations

import re

import pytest

from tests.helpers import PROJECT_DIR

CSS_DIR = PROJECT_DIR / "static" / "css"
CONSOLE_CSS = CSS_DIR / "console.css"

# (text, background) token pairs, as the stylesheets put them together.
TEXT_PAIRS = [
    *[("--color-text", bg) for bg in ("--color-bg", "--color-surface", "--color-surface-alt", "--color-row-alt")],
    ("--color-text", "--color-primary-soft"),  # a table row under the pointer
    *[("--color-text-muted", bg) for bg in ("--color-bg", "--color-surface", "--color-surface-alt", "--color-row-alt")],
    ("--color-text-muted", "--color-primary-soft"),  # a current menu option's small print
    *[("--color-link", bg) for bg in ("--color-bg", "--color-surface", "--color-surface-alt", "--color-primary-soft")],
    # A tone's plain token is text on surfaces (tabs, errors, marks) and on its own -soft (badges).
    *[(f"--color-{tone}", "--color-surface") for tone in ("primary", "danger", "success", "warning", "info")],
    *[(f"--color-{tone}", f"--color-{tone}-soft") for tone in ("danger", "success", "warning", "info")],
    *[
        (f"--color-{tone}-ink", f"--color-{tone}-soft")
        for tone in ("primary", "danger", "success", "warning", "info", "purple", "pink")
    ],
    # White text on a fill: buttons, the plan's issue count.
    *[
        ("--color-on-fill", fill)
        for fill in ("--color-primary-fill", "--color-primary-hover", "--color-danger-fill", "--color-danger-hover")
    ],
    ("--color-header-text", "--color-header-bg"),
    ("--color-header-muted", "--color-header-bg"),
    ("--color-on-attention", "--color-attention"),
    # The plan graph: names and kinds on every kind of node, edge labels on the graph.
    *[
        (text, f"--color-plan-{kind}")
        for text in ("--color-plan-name", "--color-plan-kind")
        for kind in ("node", "missing", "trigger", "agent", "email", "decide", "branch")
    ],
    ("--color-plan-label", "--color-surface-alt"),
]
MINIMUM = 4.5

HEX = r"#[0-9a-fA-F]{3,8}\b"
FUNCTION = r"\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\("
# CSS colour keywords a stylesheet might write (not every one of the 148: the likely ones).
NAMED = (
    r"(?<![\w-])(?:white|black|red|green|blue|gray|grey|silver|navy|orange|yellow|purple|pink|maroon|teal|olive|"
    r"lime|aqua|fuchsia|crimson|gold|indigo|violet|tomato|salmon|coral|khaki|beige|ivory|lavender|"
    r"darkgray|darkgrey|lightgray|lightgrey|whitesmoke|gainsboro|slategray|slategrey|dimgray|dimgrey)(?![\w-])"
)
COLOUR = re.compile(rf"{HEX}|{FUNCTION}|{NAMED}", re.IGNORECASE)


def without_comments(css: str) -> str:
    return re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)


def block_after(css: str, selector_pattern: str) -> str:
    """The declarations of the first rule whose selector matches (no nested braces inside a rule)."""
    found = re.search(selector_pattern + r"\s*\{([^{}]*)\}", css)
    assert found, selector_pattern
    return found.group(1)


def declarations(block: str) -> dict[str, str]:
    return {
        name.strip(): value.strip()
        for name, value in (part.split(":", 1) for part in block.split(";") if ":" in part)
        if name.strip().startswith("--") or name.strip() == "color-scheme"
    }


def in_theme(value: str, theme: str) -> str:
    """`value` with every `light-dark(light, dark)` replaced by the one `theme` takes."""
    while (start := value.find("light-dark(")) >= 0:
        depth, index, comma = 0, start + len("light-dark("), -1
        for index in range(start + len("light-dark("), len(value)):
            char = value[index]
            if char == "(":
                depth += 1
            elif char == ")":
                if depth == 0:
                    break
                depth -= 1
            elif char == "," and depth == 0 and comma < 0:
                comma = index
        assert comma > 0, f"light-dark() needs two values: {value}"
        light, dark = value[start + len("light-dark(") : comma], value[comma + 1 : index]
        value = value[:start] + (light if theme == "light" else dark).strip() + value[index + 1 :]
    return value


def themes() -> dict[str, dict[str, str]]:
    css = without_comments(CONSOLE_CSS.read_text(encoding="utf-8"))
    tokens = declarations(block_after(css, r"(?m)^:root"))
    chosen_dark = declarations(block_after(css, r":root\[data-theme=.dark.\]"))
    chosen_light = declarations(block_after(css, r":root\[data-theme=.light.\]"))
    return {
        "light": {**{name: in_theme(value, "light") for name, value in tokens.items()}, **chosen_light},
        "dark": {**{name: in_theme(value, "dark") for name, value in tokens.items()}, **chosen_dark},
        "system": tokens,
    }


def rgb(value: str) -> tuple[float, float, float]:
    value = value.strip().lstrip("#")
    if len(value) == 3:
        value = "".join(char * 2 for char in value)
    assert re.fullmatch(r"[0-9a-fA-F]{6}", value), f"not an opaque hex colour: {value}"
    red, green, blue = (int(value[index : index + 2], 16) / 255 for index in (0, 2, 4))
    return red, green, blue


def luminance(value: str) -> float:
    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4

    red, green, blue = rgb(value)
    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def contrast(first: str, second: str) -> float:
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_the_contrast_formula_matches_known_values():
    assert contrast("#000", "#fff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#3346c9", "#ffffff") == contrast("#ffffff", "#3346c9")


def test_the_device_decides_unless_the_person_chose():
    palette = themes()
    assert palette["system"]["color-scheme"] == "light dark"
    assert palette["light"]["color-scheme"] == "light"
    assert palette["dark"]["color-scheme"] == "dark"
    # Dark changes the page's ground, not only a token or two.
    for token in ("--color-bg", "--color-surface", "--color-text", "--color-link", "--color-primary"):
        assert palette["dark"][token] != palette["light"][token], token


def test_paper_is_light_whatever_the_screen_shows():
    css = without_comments(CONSOLE_CSS.read_text(encoding="utf-8"))
    printed = re.search(r"@media print\s*\{(.*?)\n\}", css, re.DOTALL)
    assert printed and re.search(r":root, :root\[data-theme\]\s*\{\s*color-scheme: light;", printed.group(1))


def test_light_dark_reads_nested_colours():
    shadow = "0 1px 2px light-dark(rgba(16, 24, 40, .06), rgba(0, 0, 0, .4)), 0 1px light-dark(#fff, #000)"
    assert in_theme(shadow, "light") == "0 1px 2px rgba(16, 24, 40, .06), 0 1px #fff"
    assert in_theme(shadow, "dark") == "0 1px 2px rgba(0, 0, 0, .4), 0 1px #000"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_reads_at_4_5_to_1_on_its_backgrounds(theme):
    palette = themes()[theme]
    too_faint = [
        f"{text} on {background}: {contrast(palette[text], palette[background]):.2f}"
        for text, background in TEXT_PAIRS
        if contrast(palette[text], palette[background]) < MINIMUM
    ]
    assert too_faint == []


def test_the_qr_code_keeps_a_white_plate_in_both_themes():
    palette = themes()
    assert palette["light"]["--color-qr-plate"] == palette["dark"]["--color-qr-plate"] == "#ffffff"


def colour_literals(css: str) -> list[str]:
    """Declarations other than custom properties that name a colour (the
    tokens are custom properties; `white-space` and friends are not colours)."""
    found = []
    for declaration in re.findall(r"[\w-]+\s*:[^;{}]+", without_comments(css)):
        name, value = declaration.split(":", 1)
        if name.strip().startswith("--") or "(" in name:
            continue
        if COLOUR.search(value):
            found.append(declaration.strip())
    return found


def test_no_stylesheet_writes_a_colour_outside_the_tokens():
    literals = {
        path.name: found for path in sorted(CSS_DIR.glob("*.css")) if (found := colour_literals(path.read_text()))
    }
    assert literals == {}


def test_colour_tokens_are_declared_only_in_console_css():
    """A token with a colour in another stylesheet would have no dark value."""
    elsewhere = {
        path.name: tokens
        for path in sorted(CSS_DIR.glob("*.css"))
        if path != CONSOLE_CSS
        and (
            tokens := [
                name
                for name, value in re.findall(r"(--[\w-]+)\s*:([^;{}]+)", without_comments(path.read_text()))
                if COLOUR.search(value)
            ]
        )
    }
    assert elsewhere == {}


def test_the_scan_finds_a_literal():
    assert colour_literals(".x { color: #fff; background: rgba(0, 0, 0, .5); white-space: nowrap; }") == [
        "color: #fff",
        "background: rgba(0, 0, 0, .5)",
    ]
    assert colour_literals(".x { color: var(--color-text); border: 1px solid white; }") == ["border: 1px solid white"]
