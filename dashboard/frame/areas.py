"""The area registry: what each area app adds to the console's frame.

The core never names an area. Each area app registers itself in its
AppConfig.ready()::

    from dashboard.frame.areas import Area, HomeCard, ListPage, NavEntry, register_area

    register_area(Area(
        name="studio",                      # its URL namespace
        order=10,
        nav=(NavEntry("Studio", "studio:index"),),
        cards=(HomeCard("Studio", "Websites, documents...", "studio:index"),),
        list_pages=(ListPage("Back to Studio", "studio:index"),),
        tracked_kinds=(STUDIO_TURN,),        # registered with dashboard.live
        inbox_sources=(STUDIO_INBOX,),       # what waits for a person (dashboard/inbox/sources.py)
        remote_resources=("studio", "turns"),  # the API's resources it writes (the audit trail)
        status_parts=(StatusPart(...),),     # tables of the System status page (administrators)
        palette_sources=(RECORDS_SOURCE,),   # what Ctrl-K finds in it (dashboard/palette/sources.py)
        home_sections=(recent_conversations,),  # (HomeViewer) -> HomeSection | None: the home page's overview
        periodic=(Periodic("studio.zips_prune", every=3600.0),),  # its beat entries (dashboard/schedule.py)
        job_kinds=(ZIP_JOB,),                # stepped jobs (dashboard/jobs): its chunk, the engine the rest
        mcp_tools=STUDIO_TOOLS,              # its tools of the MCP server (dashboard/assistants/tools.py)
    ))

The base layout's navigation, the home page's cards and the error pages'
"back to" links are read from here, in `order`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.urls import NoReverseMatch, ResolverMatch, reverse

from dashboard.jobs.kinds import register_job_kind
from dashboard.live.registry import register as register_kind

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

    from dashboard.assistants.tools import AssistantTool
    from dashboard.frame.home import HomeSection, HomeViewer
    from dashboard.inbox.sources import InboxSource
    from dashboard.jobs.kinds import JobKind
    from dashboard.live.registry import OperationKind
    from dashboard.palette.sources import PaletteSource


def _views_of(url_name: str, views: frozenset[str], match: ResolverMatch) -> bool:
    """Whether `match` is a page of the namespace of `url_name`, limited to
    `views` (URL names) when given."""
    if ":" not in url_name:  # a page outside any namespace (e.g. "account")
        return not match.namespaces and (match.url_name or "") in (views or {url_name})
    namespace = url_name.split(":", 1)[0]
    if namespace not in match.namespaces:
        return False
    return not views or (match.url_name or "") in views


@dataclass(frozen=True)
class NavEntry:
    """A link of the header's main navigation. It is the current section on
    every page of its URL namespace, or only on `views` when given; an entry
    with `views` wins over one without in the same namespace."""

    label: StrOrPromise
    url_name: str
    views: frozenset[str] = frozenset()
    permission: str = ""  # shown only to people who have it

    def matches(self, match: ResolverMatch | None) -> bool:
        return match is not None and _views_of(self.url_name, self.views, match)


@dataclass(frozen=True)
class HomeCard:
    title: StrOrPromise
    description: StrOrPromise
    url_name: str
    permission: str = ""


@dataclass(frozen=True)
class ListPage:
    """A list an error page offers to go back to, from any page of the
    namespace of `url_name` (or only from `views`)."""

    label: StrOrPromise
    url_name: str
    views: frozenset[str] = frozenset()

    def covers(self, match: ResolverMatch | None) -> bool:
        return match is not None and _views_of(self.url_name, self.views, match)


@dataclass(frozen=True)
class StatusPart:
    """A table an area adds to the System status page (administrators only):
    `rows()` answers (label, value) pairs read from the console's database
    alone, a few aggregate queries at most: the page's region is polled every
    5 s. The core shows them without knowing the area's models."""

    title: str
    caption: str
    rows: Callable[[], Sequence[tuple[str, int | str]]]
    empty: str = "Nothing to show."


@dataclass(frozen=True)
class Periodic:
    """Work beat sends on an interval: the task's registered name, every
    `every` seconds; a message that waited longer than `expires` seconds in
    the queue is dropped unread (a newer one is behind it). The beat entry is
    named after its task. dashboard/schedule.py composes the core's and every
    area's into the one beat schedule."""

    task: str
    every: float
    expires: float | None = None

    def entry(self) -> dict[str, Any]:
        """The entry of Celery's `beat_schedule`."""
        entry: dict[str, Any] = {"task": self.task, "schedule": float(self.every)}
        if self.expires is not None:
            entry["options"] = {"expires": float(self.expires)}
        return entry


@dataclass(frozen=True)
class Area:
    name: str
    order: int = 100
    nav: tuple[NavEntry, ...] = ()
    cards: tuple[HomeCard, ...] = ()
    list_pages: tuple[ListPage, ...] = ()
    tracked_kinds: tuple[OperationKind, ...] = field(default=())
    # What the area adds to the inbox ("Needs you"): see dashboard/inbox/sources.py.
    inbox_sources: tuple[InboxSource, ...] = field(default=())
    # The API's top-level resources (`/v1/<resource>/...`) whose writes belong
    # to this area: the audit trail files each write under its area.
    remote_resources: tuple[str, ...] = ()
    # What the area adds to the System status page (e.g. Objects: its job backlog).
    status_parts: tuple[StatusPart, ...] = ()
    # What the command palette finds in the area (dashboard/palette/sources.py).
    palette_sources: tuple[PaletteSource, ...] = ()
    # What the area adds to the home page's overview (dashboard/frame/home.py).
    home_sections: tuple[Callable[[HomeViewer], HomeSection | None], ...] = ()
    # (entries, workspace id) -> {entry id: the line in words} for the audit
    # entries of this area's writes it can word from what was kept (names the
    # console stores, the person's message); the rest keep their summary.
    audit_words: Callable[[list[Any], str], dict[int, str]] | None = None
    # The area's periodic work: dashboard/schedule.py puts it in the one beat
    # schedule (no module writes Celery's beat_schedule itself).
    periodic: tuple[Periodic, ...] = ()
    # Its kinds of stepped jobs (dashboard/jobs/kinds.py): the area keeps the
    # chunk, the core's engine leases, retries, writes and sends the next step.
    job_kinds: tuple[JobKind, ...] = ()
    # Its part of the console's own API (dashboard/console_api): (prefix, a django-ninja Router).
    api_routers: tuple[tuple[str, Any], ...] = ()
    # Its tools of the console's MCP server (dashboard/assistants/tools.py): what an assistant may do there.
    mcp_tools: tuple[AssistantTool, ...] = ()


_areas: dict[str, Area] = {}


def register_area(area: Area) -> Area:
    """Add an area (again: harmless) and register its tracked kinds and job kinds."""
    existing = _areas.get(area.name)
    if existing is not None and existing != area:
        raise ValueError(f"area {area.name!r} is already registered")
    _areas[area.name] = area
    for kind in area.tracked_kinds:
        register_kind(kind)
    for job_kind in area.job_kinds:
        register_job_kind(job_kind)
    return area


def areas() -> list[Area]:
    return sorted(_areas.values(), key=lambda area: (area.order, area.name))


def inbox_sources() -> list[InboxSource]:
    """Every area's inbox sources, in the areas' order."""
    return [source for area in areas() for source in area.inbox_sources]


def status_parts() -> list[StatusPart]:
    """Every area's parts of the System status page, in the areas' order."""
    return [part for area in areas() for part in area.status_parts]


def home_sections() -> list[Callable[[HomeViewer], HomeSection | None]]:
    """Every area's home page sections, in the areas' order."""
    return [section for area in areas() for section in area.home_sections]


def assistant_tools() -> list[AssistantTool]:
    """Every area's MCP tools, in the areas' order."""
    return [tool for area in areas() for tool in area.mcp_tools]


def area_of_resource(resource: str) -> str | None:
    """The name of the area that declared `resource` (`remote_resources`), or None."""
    return next((area.name for area in areas() if resource in area.remote_resources), None)


def unregister_area(name: str) -> None:
    """For tests that register a throwaway area."""
    _areas.pop(name, None)


def url_or_none(url_name: str) -> str | None:
    try:
        return reverse(url_name)
    except NoReverseMatch:
        return None


@dataclass(frozen=True)
class NavLink:
    label: str
    url: str
    current: bool


def _allowed(permission: str, user: Any) -> bool:
    return not permission or (user is not None and user.has_perm(permission))


def nav_links(match: ResolverMatch | None, user: Any = None) -> list[NavLink]:
    """The header's links in order (those `user` may see), the current section marked."""
    entries = [entry for area in areas() for entry in area.nav if _allowed(entry.permission, user)]
    specific = [entry for entry in entries if entry.views and entry.matches(match)]
    current = specific[0] if specific else next((entry for entry in entries if entry.matches(match)), None)
    links = []
    for entry in entries:
        url = url_or_none(entry.url_name)
        if url is not None:
            links.append(NavLink(label=str(entry.label), url=url, current=entry is current))
    return links


def section_of(match: ResolverMatch | None) -> str:
    """The name of the navigation section a page belongs to ("" when none)."""
    current = next((link for link in nav_links(match) if link.current), None)
    return str(current.label) if current else ""


@dataclass(frozen=True)
class CardLink:
    title: str
    description: str
    url: str


def home_cards(user: Any = None) -> list[CardLink]:
    cards = []
    for area in areas():
        for card in area.cards:
            if not _allowed(card.permission, user):
                continue
            url = url_or_none(card.url_name)
            if url is not None:
                cards.append(CardLink(title=str(card.title), description=str(card.description), url=url))
    return cards


def list_page_for(match: ResolverMatch | None) -> tuple[str, str] | None:
    """(label, url) of the list the page of `match` belongs to: a specific
    list (with `views`) first, then the namespace's."""
    pages = [page for area in areas() for page in area.list_pages if page.covers(match)]
    pages.sort(key=lambda page: not page.views)
    for page in pages:
        url = url_or_none(page.url_name)
        if url is not None:
            return str(page.label), url
    return None
