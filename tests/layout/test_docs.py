"""The documents stay true to the house and fit their readers.

**The map names every module.** The map is the first code block of
docs/architecture.md ("The house"): a tree, two spaces of indent a level,
each line an entry (a folder ending in `/`, a file, or several files
separated by commas), then two or more spaces and its description. The rule:

- every Python module of `dashboard/`, `studio/`, `agents/`, `objects/`,
  `devtools/` and `bench/` is named in the map, at its place in the tree;
- a module counts as named when its own line names it, or when a `.py` name
  in the description of its folder's line or of a sibling's line names it
  (so a package line may list its files: `views/   turns.py (...), apps.py`;
  a name with a `/` is read from the line's folder, or from the checkout's
  root when it starts with a top-level folder: `objects/metrics.py`);
- `__init__.py` files (docstrings and re-exports) and `migrations/` are not
  modules to name; `sandbox/` and `bench/peer/` are named at package level
  (their folder's line covers every module under it);
- and the other way round: every file or folder the map names exists.

**Links resolve.** Every relative link of README.md and docs/**/*.md
(`[words](path)` or `[words](path#anchor)`) points at a file or folder that
exists, and an anchor at a heading of that document (GitHub's slugs).

**Named sections exist.** A pointer to a section in words, anywhere in the
checkout (`(docs/operations.md, "Metrics")`, `README "Live and ready"` in a
comment), names a heading of that document (the heading as written, or its
beginning: "Reaching people" for "Reaching people (notifications, ...)").

**The README is read in five minutes**: fewer than 250 lines.

**The benchmarks are all described**: every script of `bench/` (not its
shared `common.py`, `settings.py`, `urls.py` or the `peer/` admin) is named
in docs/benchmarks.md.

Each check is a pure function of texts and file lists, and tests below run
each on a small bad example, so a check that quietly finds nothing fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from tests.helpers import PROJECT_DIR

ARCHITECTURE = PROJECT_DIR / "docs" / "architecture.md"
README = PROJECT_DIR / "README.md"
BENCHMARKS = PROJECT_DIR / "docs" / "benchmarks.md"
README_MAX_LINES = 250

MAPPED = ("dashboard", "studio", "agents", "objects", "devtools", "bench")
TOP_LEVEL = (*MAPPED, "sandbox", "tests", "templates", "static", "docs", "manage.py")
PACKAGE_LEVEL = ("sandbox/", "bench/peer/")
CONTINUED = 12  # a line indented this far goes on with the description above it
NOT_BENCHMARKS = {"__init__.py", "common.py", "settings.py", "urls.py"}

PY_NAME = re.compile(r"(?<![\w/.{-])((?:[\w-]+/)*[\w-]+\.py)\b")
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
SECTION_POINTER = re.compile(r'((?:docs/[\w/-]+|README)(?:\.md)?),?\s+"([^"]+)"')
POINTED_FROM = (*MAPPED, "sandbox", "tests", "docs", "templates")
POINTED_FROM_FILES = (
    "README.md",
    "CHANGELOG.md",
    ".env.example",
    "Procfile",
    "Dockerfile",
    "docker-compose.yml",
    "Makefile",
)


def the_map(architecture: str) -> str:
    """The text of the map: the first fenced block after "## The house"."""
    after = re.split(r"^## The house$", architecture, maxsplit=1, flags=re.M)[1]
    return after.split("```", 2)[1].split("\n", 1)[1]


def resolve(name: str, folder: str) -> str:
    return name if name.split("/", 1)[0] in TOP_LEVEL else folder + name


def map_entries(tree: str) -> Iterator[tuple[str, bool]]:
    """Every path the map names, as (path, named by its own line): entries
    from their place in the tree, `.py` names from descriptions."""
    folders: list[str] = []
    own_folder = ""
    for line in tree.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent >= CONTINUED:
            for mentioned in PY_NAME.findall(line):
                yield resolve(mentioned, own_folder), False
            continue
        depth = indent // 2
        head, _, description = line.strip().partition("  ")
        del folders[depth:]
        parent = folders[-1] if folders else ""
        own_folder = parent
        for name in (part.strip() for part in head.split(",")):
            if not name:
                continue
            path = resolve(name, parent)
            yield path, True
            if name.endswith("/"):
                own_folder = path
        if head.strip().endswith("/") and "," not in head:
            folders.append(own_folder)
        for mentioned in PY_NAME.findall(description):
            yield resolve(mentioned, own_folder), False


def modules(root: Path, packages: Iterable[str] = MAPPED) -> set[str]:
    """The Python modules the map must name, as paths from the root."""
    found = set()
    for package in packages:
        for path in (root / package).rglob("*.py"):
            relative = path.relative_to(root).as_posix()
            if path.name == "__init__.py" or "/migrations/" in relative:
                continue
            found.add(relative)
    return found


def unnamed_modules(tree: str, present: set[str]) -> list[str]:
    named = {path for path, _ in map_entries(tree)}
    covered = tuple(folder for folder in PACKAGE_LEVEL if folder in named)
    return sorted(module for module in present if module not in named and not module.startswith(covered))


def missing_paths(tree: str, root: Path) -> list[str]:
    return sorted({path for path, _ in map_entries(tree) if not (root / path.rstrip("/")).exists()})


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    found: set[str] = set()
    fenced = False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        heading = HEADING.match(line)
        if heading and not fenced:
            base = slug(heading.group(2))
            name, n = base, 1
            while name in found:
                name, n = f"{base}-{n}", n + 1
            found.add(name)
    return found


def links(markdown: str) -> Iterator[str]:
    fenced = False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield from LINK.findall(re.sub(r"`[^`]*`", "", line))


def broken_links(document: Path, root: Path) -> list[str]:
    broken = []
    for target in links(document.read_text()):
        if re.match(r"[a-z][a-z+.-]*:", target):
            continue  # https:, mailto: and the like are not the checkout's files
        path, _, anchor = target.partition("#")
        destination = (document.parent / path).resolve() if path else document
        if not destination.exists():
            broken.append(f"{document.relative_to(root)}: {target} (no such file)")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination.read_text()):
            broken.append(f"{document.relative_to(root)}: {target} (no such heading)")
    return broken


def documents(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def headings(markdown: str) -> list[str]:
    found, fenced = [], False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif (heading := HEADING.match(line)) and not fenced:
            found.append(heading.group(2).replace("`", "").lower())
    return found


def broken_section_pointers(text: str, root: Path, where: str) -> list[str]:
    broken = []
    for document, section in SECTION_POINTER.findall(text):
        name = " ".join(re.sub(r"\n\s*#?", " ", section).split()).replace("`", "").lower()
        path = root / (document if document.endswith(".md") else document + ".md")
        if not path.exists():
            broken.append(f'{where}: {document} "{section}" (no such document)')
        elif not any(heading.startswith(name) for heading in headings(path.read_text())):
            broken.append(f'{where}: {document} "{section}" (no such heading there)')
    return broken


def pointing_files(root: Path) -> Iterator[Path]:
    yield from (root / name for name in POINTED_FROM_FILES if (root / name).exists())
    for folder in POINTED_FROM:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in {".py", ".md", ".html", ".txt"} and path.name != "test_docs.py":
                yield path


def unmeasured_benchmarks(benchmarks: str, root: Path) -> list[str]:
    scripts = sorted(p.name for p in (root / "bench").glob("*.py") if p.name not in NOT_BENCHMARKS)
    return [f"bench/{name}" for name in scripts if f"bench/{name}" not in benchmarks]


# The checks on the house as it is.


def test_the_map_names_every_module():
    missing = unnamed_modules(the_map(ARCHITECTURE.read_text()), modules(PROJECT_DIR))
    assert not missing, (
        "docs/architecture.md's map does not name these modules; add a line for each at its place in the tree "
        "(what it holds, in a few words):\n  " + "\n  ".join(missing)
    )


def test_everything_the_map_names_exists():
    gone = missing_paths(the_map(ARCHITECTURE.read_text()), PROJECT_DIR)
    assert not gone, "docs/architecture.md's map names what is not in the checkout:\n  " + "\n  ".join(gone)


def test_every_docs_link_resolves():
    broken = [line for document in documents(PROJECT_DIR) for line in broken_links(document, PROJECT_DIR)]
    assert not broken, "\n".join(broken)


def test_every_section_pointer_names_a_heading():
    broken = [
        line
        for path in pointing_files(PROJECT_DIR)
        for line in broken_section_pointers(
            path.read_text(errors="replace"), PROJECT_DIR, str(path.relative_to(PROJECT_DIR))
        )
    ]
    assert not broken, "\n".join(broken)


def test_the_readme_is_read_in_five_minutes():
    lines = len(README.read_text().splitlines())
    assert lines < README_MAX_LINES, (
        f"README.md has {lines} lines (at most {README_MAX_LINES - 1}): move the detail to docs/ and link to it"
    )


def test_every_benchmark_is_described():
    missing = unmeasured_benchmarks(BENCHMARKS.read_text(), PROJECT_DIR)
    assert not missing, "docs/benchmarks.md does not describe: " + ", ".join(missing)


# The checks on small bad examples: each must find what is wrong.

BAD_MAP = """\
## The house

```
dashboard/            the core
  api/                the transport
    client.py           the one client
  web/                pure helpers; pager.py the pager
studio/               an area
  views/                turns.py (the conversation), ghost.py
```
"""


def make_checkout(root: Path, files: Iterable[str]) -> None:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")


def test_the_map_check_finds_an_unnamed_module_and_a_vanished_one(tmp_path):
    make_checkout(
        tmp_path,
        [
            "dashboard/__init__.py",
            "dashboard/api/client.py",
            "dashboard/api/errors.py",
            "dashboard/web/pager.py",
            "dashboard/live/migrations/0001_initial.py",
            "studio/views/turns.py",
            "sandbox/app.py",
        ],
    )
    tree = the_map(BAD_MAP)

    assert unnamed_modules(tree, modules(tmp_path, ("dashboard", "studio", "sandbox"))) == [
        "dashboard/api/errors.py",
        "sandbox/app.py",
    ]
    assert missing_paths(tree, tmp_path) == ["studio/views/ghost.py"]


def test_a_package_line_covers_the_package():
    tree = "sandbox/              the stand-in\nbench/\n  peer/  the admin's peer\n"
    present = {"sandbox/app.py", "sandbox/deep/store.py", "bench/peer/models.py", "bench/poll_lag.py"}

    assert unnamed_modules(tree, present) == ["bench/poll_lag.py"]


def test_map_lines_with_several_files_and_root_paths():
    tree = "dashboard/  core\n  accounts/  sign in\n    services.py, tasks.py  reset; objects/metrics.py\n"

    assert {path for path, _ in map_entries(tree)} == {
        "dashboard/",
        "dashboard/accounts/",
        "dashboard/accounts/services.py",
        "dashboard/accounts/tasks.py",
        "objects/metrics.py",
    }


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path):
    make_checkout(tmp_path, ["docs/operations.md"])
    (tmp_path / "docs" / "operations.md").write_text("# Operations\n\n## Rotating `KEY_ENCRYPTION_KEYS`\n")
    readme = tmp_path / "README.md"
    readme.write_text(
        "See [the manual](docs/operations.md), [rotation](docs/operations.md#rotating-key_encryption_keys),\n"
        "[a gone page](docs/gone.md), [a gone heading](docs/operations.md#backups),\n"
        "[the web](https://example.com/x.md) and `[code](not/a/link.md)`.\n"
        "```\n[in a block](nowhere.md)\n```\n"
    )

    assert broken_links(readme, tmp_path) == [
        "README.md: docs/gone.md (no such file)",
        "README.md: docs/operations.md#backups (no such heading)",
    ]


def test_the_section_check_finds_a_moved_section(tmp_path):
    make_checkout(tmp_path, ["docs/operations.md", "README.md"])
    (tmp_path / "docs" / "operations.md").write_text("# Operations\n\n## Metrics\n\n## The broker of `make run`\n")
    (tmp_path / "README.md").write_text("# Console\n\n## Reaching people (notifications, claims)\n")
    comments = (
        '# (docs/operations.md, "Metrics"), (docs/operations.md, "The broker of make run"),\n'
        '# (README, "Reaching people"), (README "Metrics"), (docs/gone.md, "Metrics")\n'
        '"""(docs/operations.md, "The broker\n   of make run")"""\n'
    )

    assert broken_section_pointers(comments, tmp_path, "x.py") == [
        'x.py: README "Metrics" (no such heading there)',
        'x.py: docs/gone.md "Metrics" (no such document)',
    ]


def test_slugs_follow_github():
    assert anchors("# The broker of `make run`\n## Backup, restore and upgrade\n## Lists\n## Lists\n") == {
        "the-broker-of-make-run",
        "backup-restore-and-upgrade",
        "lists",
        "lists-1",
    }


def test_the_benchmark_check_finds_an_undescribed_script(tmp_path):
    make_checkout(tmp_path, ["bench/common.py", "bench/poll_lag.py", "bench/palette.py"])

    assert unmeasured_benchmarks("`bench/poll_lag.py` measures the lag", tmp_path) == ["bench/palette.py"]
