"""Alternatives side by side (#36 item 4): "another take" of a finished
document, image turn or Content App run, kept beside the first.

A take is a new item the service makes from the same brief: a document turn
sent again as a new document (the director decides: `auto`), an image turn
sent again on the same board, a Content App run sent again with the very
inputs it had. The service keeps every take as an item of its own and has no
delete, so "keep this one" is the console's word for the team: the set
opens on the kept take and names it, the others stay in the library.

The console keeps which takes belong together (`TakeSet`, `Take`) and reads
what each take made from its own rows: a document take's content from the
versions the console keeps after each document turn (studio/versions.py),
an image take's images from its turn, a run's from the run. So the takes
page and the comparison make no remote call once the work is done; a
document whose version is not kept yet is read once from the service.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.http import Http404
from django.urls import reverse
from django.utils import timezone

from dashboard.live.models import TrackedOperation
from dashboard.web.reading import text
from studio.forms import APPROVE_OUTLINE_MESSAGE, DECIDE_MESSAGE
from studio.live import app_run_failure, read_turn, turn_failure
from studio.models import AppRun, DocumentVersion, Take, TakeSet
from studio.reading import read_result

if TYPE_CHECKING:
    from dashboard.keys.models import ApiKey

# The studios whose finished turn can be taken again: a document is made anew
# from its brief; an image turn makes new images on the same board. A site or
# an app is one item that each turn changes (their history rolls back instead).
TAKE_STUDIOS = ("document", "image")
# Takes of one brief at most: each is charged, and a pager of more is no comparison.
MAX_TAKES = 6
FULL = f"This brief already has {MAX_TAKES} takes, the most the console keeps side by side: keep one of them."
# One-click messages say how to go on, not what to make: a brief leaves them out.
CONTROL_MESSAGES = frozenset({DECIDE_MESSAGE, APPROVE_OUTLINE_MESSAGE})


class TakesFull(Exception):
    """The set has MAX_TAKES takes: nothing is sent."""


def _read(op: TrackedOperation) -> dict[str, Any]:
    return read_turn(op, op.snapshot if isinstance(op.snapshot, dict) else {})


# --- what another take repeats ---------------------------------------------------


def turn_take_source(turns: list[TrackedOperation]) -> TrackedOperation | None:
    """The turn of a conversation (oldest first) that another take repeats:
    its latest turn, when that turn finished a document or made images. A
    turn still running, waiting for an answer or failed offers no take (a
    failure has "Try again")."""
    if not turns:
        return None
    latest = turns[-1]
    read = _read(latest)
    if read["studio"] not in TAKE_STUDIOS or not latest.is_final or latest.status != "completed":
        return None
    if turn_failure(latest, read) or not text(read["artifact"].get("id")):
        return None
    if read["studio"] == "image" and not read["images"]:
        return None  # a question answered on a board made nothing to take again
    return latest


def take_brief(turns: list[TrackedOperation], source: TrackedOperation) -> str:
    """What another take sends, for the person to read (and change) first. A
    document is made anew, so its brief is every message the person sent up
    to the source turn, in order, without the one-click controls (the
    director uses only what it is given); an image take sends again the
    message that made the images."""
    read = _read(source)
    if read["studio"] == "image":
        return read["asked"]
    asked: list[str] = []
    for op in turns:
        message = _read(op)["asked"].strip()
        if message and message not in CONTROL_MESSAGES and message not in asked:
            asked.append(message)
        if op.pk == source.pk:
            break
    return "\n\n".join(asked)


def run_can_take_again(run: AppRun) -> bool:
    """A Content App run that finished and made something (a failed run has "Try again")."""
    op = run.operation
    if op is not None and not op.is_final:
        return False
    return not app_run_failure(run)


# --- the sets ----------------------------------------------------------------------


def take_set_get(*, workspace_id: str, set_id: int) -> TakeSet:
    """A set of this workspace (another workspace's reads as not found)."""
    found = TakeSet.objects.filter(workspace_id=workspace_id, pk=set_id).select_related("kept").first()
    if found is None:
        raise Http404("No such takes.")
    return found


def take_set_of_turns(*, workspace_id: str, turns: list[TrackedOperation]) -> Take | None:
    """The take among a conversation's turns (the newest, when several of
    its turns are takes), with its set: one query."""
    return (
        Take.objects.filter(turn__in=turns, takes__workspace_id=workspace_id)
        .select_related("takes")
        .order_by("-number")
        .first()
    )


def take_set_of_run(*, workspace_id: str, run: AppRun) -> Take | None:
    return Take.objects.filter(app_run=run, takes__workspace_id=workspace_id).select_related("takes").first()


def _joined(
    *, workspace_id: str, user_id: int, studio: str, kind: str, first: dict[str, Any], new: dict[str, Any]
) -> Take:
    """The new take (`new`: turn= or app_run=) added to the set of `first`
    (made now, with `first` as take 1, when it has none). Idempotent: the
    same turn or run (one Idempotency-Key) is one take, whoever sends it
    twice; two people adding at once get numbers one after the other."""
    existing = Take.objects.filter(**new).select_related("takes").first()
    if existing is not None:
        return existing
    with transaction.atomic():
        first_take = Take.objects.filter(**first).first()
        if first_take is None:
            take_set = TakeSet.objects.create(
                workspace_id=workspace_id, studio=studio, kind=kind, created_by_id=user_id
            )
            try:
                with transaction.atomic():
                    first_take = Take.objects.create(takes=take_set, number=1, created_by_id=user_id, **first)
            except IntegrityError:  # another request made the set first: join it
                take_set.delete()
                first_take = Take.objects.get(**first)
        take_set = TakeSet.objects.select_for_update().get(pk=first_take.takes_id)
        number = (take_set.takes.aggregate(last=Max("number"))["last"] or 0) + 1
        try:
            with transaction.atomic():
                return Take.objects.create(takes=take_set, number=number, created_by_id=user_id, **new)
        except IntegrityError:  # the same turn or run recorded by a request a moment ahead
            return Take.objects.select_related("takes").get(**new)


def _full(first: dict[str, Any]) -> bool:
    first_take = Take.objects.filter(**first).first()
    return first_take is not None and first_take.takes.takes.count() >= MAX_TAKES


def take_another_turn(
    *, key: ApiKey, workspace_id: str, source: TrackedOperation, message: str, idempotency_key: str
) -> Take:
    """Another take of a finished document or image turn: `message` (the
    brief, as the person read it) sent as a new document, or on the same
    board, with "decide for me"; recorded beside `source` (take 1 of a new
    set, or the take it already is). Refused before sending when the set is
    full. The same key is the same turn (services.turn_start), so the same
    take."""
    from studio.services import turn_start

    read = _read(source)
    first = {"turn": source}
    if _full(first):
        raise TakesFull(FULL)
    board = text(read["artifact"].get("id")) if read["studio"] == "image" else ""
    op = turn_start(
        key=key,
        studio=read["studio"],
        message=message,
        idempotency_key=idempotency_key,
        artifact_id=board or None,
        auto=True,
    )
    return _joined(
        workspace_id=workspace_id,
        user_id=key.user_id,
        studio=read["studio"],
        kind=TakeSet.TURN,
        first=first,
        new={"turn": op},
    )


def take_another_run(*, key: ApiKey, workspace_id: str, run: AppRun, idempotency_key: str) -> Take:
    """Another take of a finished Content App run: the very inputs again, a
    new run under its own key, kept beside `run`."""
    from studio.services import app_run_try_again

    first = {"app_run": run}
    if _full(first):
        raise TakesFull(FULL)
    # The same send as "Try again" (the run's very inputs), here of a run that made something.
    again = app_run_try_again(key=key, run=run, idempotency_key=idempotency_key)
    return _joined(
        workspace_id=workspace_id,
        user_id=key.user_id,
        studio=run.studio,
        kind=TakeSet.APP_RUN,
        first=first,
        new={"app_run": again},
    )


def take_keep(*, take_set: TakeSet, number: int, user_id: int) -> Take:
    """ "Keep this one": the team's choice among the takes (a console word:
    the service keeps every take). Keeping the kept take again changes nothing."""
    take = take_set.takes.filter(number=number).first()
    if take is None:
        raise Http404("No such take.")
    if take_set.kept_id != take.pk:
        take_set.kept = take
        take_set.kept_by_id = user_id
        take_set.kept_at = timezone.now()
        take_set.save(update_fields=["kept", "kept_by", "kept_at"])
    return take


# --- what each take shows ------------------------------------------------------------

MAKING, READY, FAILED, WAITING = "making", "ready", "failed", "waiting"


@dataclass
class TakeView:
    """One take as the pages show it, read from the console's rows."""

    number: int
    take: Take
    state: str  # MAKING, READY, FAILED or WAITING (the director asked a question)
    asked: str
    when: Any
    by: str
    open_url: str  # its conversation or run page
    op: TrackedOperation | None = None  # what the live region follows while it is made
    images: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)  # a run's answer (studio/reading.py read_result)
    document_id: str = ""
    document: DocumentVersion | None = None  # the take's content as last kept
    name: str = ""


def _turn_view(take: Take, op: TrackedOperation) -> TakeView:
    read = _read(op)
    if not op.is_final:
        state = MAKING
    elif turn_failure(op, read):
        state = FAILED
    elif op.status == "needs_input":
        state = WAITING
    else:
        state = READY
    return TakeView(
        number=take.number,
        take=take,
        state=state,
        asked=read["asked"],
        when=op.created_at,
        by=take.created_by.get_username() if take.created_by else "",
        open_url=reverse("studio:turn", args=[op.pk]),
        op=op,
        images=read["images"],
        document_id=text(read["artifact"].get("id")) if read["studio"] == "document" else "",
        name=read["artifact_name"],
    )


def _run_view(take: Take, run: AppRun) -> TakeView:
    op = run.operation
    snapshot = op.snapshot if op is not None and isinstance(op.snapshot, dict) else run.result
    state = MAKING if op is not None and not op.is_final else (FAILED if app_run_failure(run) else READY)
    return TakeView(
        number=take.number,
        take=take,
        state=state,
        asked=run.label or run.app,
        when=run.created_at,
        by=run.started_by.get_username(),
        open_url=reverse("studio:app_run", args=[run.pk]),
        op=op,
        result=read_result(snapshot),
        name=run.label or run.app,
    )


def takes_views(take_set: TakeSet) -> list[TakeView]:
    """Every take of the set, in order, with what it made: a fixed number of
    queries whatever the set holds (its takes with their turns or runs, then
    the documents' newest kept versions)."""
    takes = list(
        take_set.takes.select_related("turn", "app_run", "app_run__operation", "app_run__started_by", "created_by")
    )
    views = [_run_view(take, take.app_run) if take.app_run else _turn_view(take, take.turn) for take in takes]  # type: ignore[arg-type]
    document_ids = {view.document_id for view in views if view.document_id}
    if document_ids:
        newest: dict[str, DocumentVersion] = {}
        for version in DocumentVersion.objects.filter(
            workspace_id=take_set.workspace_id, document_id__in=document_ids
        ).order_by("document_id", "-created_at", "-pk"):
            newest.setdefault(version.document_id, version)
        for view in views:
            view.document = newest.get(view.document_id)
            if view.document is not None and view.document.name:
                view.name = view.document.name
    return views


def take_poll_version(take_set: TakeSet) -> str:
    """What the takes page's live region shows, in three short queries: the
    set's turn and shot rows (status and time of change) and how many
    document versions are kept for its turns. Unchanged, the poll answers 204."""
    followed = [
        op_id
        for pair in Take.objects.filter(takes=take_set).values_list("turn_id", "app_run__operation_id")
        for op_id in pair
        if op_id is not None
    ]
    rows = TrackedOperation.objects.filter(pk__in=followed).values_list("pk", "status", "updated_at")
    kept = DocumentVersion.objects.filter(turn__in=followed).count() if take_set.studio == "document" else 0
    changes = "|".join(f"{pk}:{status}:{moment.timestamp():.3f}" for pk, status, moment in sorted(rows))
    return f"{changes}|{kept}|{take_set.kept_id}"


# A document's version is kept a moment after its turn ends (studio/versions.py,
# with retries); past this the page stops waiting and reads the document instead.
VERSION_WAIT = timedelta(minutes=5)


def takes_settled(views: list[TakeView], *, now: datetime | None = None) -> bool:
    """Nothing left to follow: every take finished, and each finished
    document take's content is kept (or was waited for long enough)."""
    now = now or timezone.now()

    def waits_for_version(view: TakeView) -> bool:
        if not view.document_id or view.state != READY or view.document is not None or view.op is None:
            return False
        return now - view.op.updated_at < VERSION_WAIT

    return all(view.state != MAKING and not waits_for_version(view) for view in views)
