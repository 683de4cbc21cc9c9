from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from dashboard.jobs.models import SteppedJob

# The kind of a Studio turn's TrackedOperation (dashboard/live). Named here, with
# the rows, so a module that reads turns (versions.py) need not import the
# poller's registration (live.py), which calls back into it when turns end.
TURN_KIND = "studio.turn"


class AppRun(models.Model):
    """One Content App run sent through the console: what was asked (so it
    can be run again with changes) and what came back. A video shot that
    answers 202 is followed by a tracked operation (`operation`), which
    repeats the same request with the same Idempotency-Key until it is done.
    """

    owner_key = models.ForeignKey("keys.ApiKey", on_delete=models.CASCADE, related_name="studio_app_runs")
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="studio_app_runs")
    studio = models.CharField(max_length=16)
    app = models.CharField(max_length=64)
    label = models.CharField(max_length=200, blank=True)
    # The body sent (the form's values), never a secret.
    inputs = models.JSONField(default=dict, blank=True)
    # The same inputs as a person reads them ([{label, text, picture}], AppForm.asked):
    # names of boards, projects and images are only at hand when the form is sent.
    asked = models.JSONField(default=list, blank=True)
    idempotency_key = models.CharField(max_length=128)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    status = models.CharField(max_length=40, blank=True)
    result = models.JSONField(default=dict, blank=True)
    # What the service said it charged (its answer's `credits_charged`, when it says; a video
    # shot's when it is done): the cost line of the app's form sums it (studio/costs.py).
    credits_charged = models.PositiveIntegerField(null=True, blank=True)
    request_id = models.CharField(max_length=128, blank=True)
    operation = models.ForeignKey(
        "live.TrackedOperation", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Posting the same form twice is the same logical run: one row.
            models.UniqueConstraint(fields=["owner_key", "idempotency_key"], name="studio_run_unique_key"),
        ]
        indexes = [models.Index(fields=["owner_key", "studio", "app", "-created_at"], name="studio_run_app")]

    def __str__(self) -> str:
        return f"{self.studio}/{self.app} ({self.status})"

    @property
    def summary(self) -> str:
        """The run in a few words: what it was asked for."""
        inputs = self.inputs if isinstance(self.inputs, dict) else {}
        for name in ("prompt", "product", "direction"):
            if isinstance(inputs.get(name), str) and inputs[name].strip():
                return inputs[name].strip()
        return self.label or self.app


class DocumentVersion(models.Model):
    """A document's content as it stood when one of its turns completed
    (issue #21, versions). The service keeps only a document's latest
    content (`GET /v1/documents/{id}`), so the console keeps each one: the
    worker or poller that sees a `studio.turn` become final stores it
    (`studio.versions.document_versions_keep`). One row per (document,
    turn): seeing the same completed turn twice keeps nothing new."""

    # The workspace whose key read it: versions are listed per workspace,
    # like the conversations they come from.
    workspace_id = models.CharField(max_length=128)
    document_id = models.CharField(max_length=200)
    turn = models.ForeignKey("live.TrackedOperation", on_delete=models.CASCADE, related_name="+")
    # Who asked for what (copied from the turn: the page reads no turn row per version).
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    asked = models.TextField(blank=True)
    name = models.CharField(max_length=300, blank=True)
    revision = models.CharField(max_length=40, blank=True)
    content_format = models.CharField(max_length=20, blank=True)
    content = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["document_id", "turn"], name="studio_version_one_per_turn"),
        ]
        indexes = [models.Index(fields=["workspace_id", "document_id", "-created_at"], name="studio_version_doc")]

    def __str__(self) -> str:
        return f"{self.document_id} @ turn {self.turn_id}"


class TurnResult(models.Model):
    """What a website or app looked like when one of its turns completed
    (#36 item 2, roll back): the service keeps only the latest state, so the
    worker that keeps a document's version reads the site or app once after
    each completed turn and keeps its screenshot and addresses as they were
    then, with who asked for what. One row per (artifact, turn)."""

    workspace_id = models.CharField(max_length=128)
    studio = models.CharField(max_length=16)  # website or app
    artifact_id = models.CharField(max_length=200)
    turn = models.ForeignKey("live.TrackedOperation", on_delete=models.CASCADE, related_name="+")
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    asked = models.TextField(blank=True)
    name = models.CharField(max_length=300, blank=True)
    screenshot_url = models.URLField(max_length=2000, blank=True)
    public_url = models.URLField(max_length=2000, blank=True)
    open_url = models.URLField(max_length=2000, blank=True, help_text="The item in the product, as it was then.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["artifact_id", "turn"], name="studio_turn_result_once"),
        ]
        indexes = [models.Index(fields=["workspace_id", "artifact_id", "-created_at"], name="studio_turn_result_item")]

    def __str__(self) -> str:
        return f"{self.studio} {self.artifact_id} @ turn {self.turn_id}"


class ShareLink(models.Model):
    """A read-only link to a document (its content, or one of its kept
    versions) or a set of images, for people without an account
    (issue #21, item 8; `studio/sharing.py`).

    The link is a snapshot: what is shared is copied here when the link is
    made, so opening it never calls the service and never uses anyone's API
    key (a viewer has none, and the maker's must not act for strangers).
    Only the token's SHA-256 is stored: a database read gives no working link.
    """

    DOCUMENT = "document"
    IMAGES = "images"
    KINDS = [(DOCUMENT, "Document"), (IMAGES, "Images")]

    token_hash = models.CharField(max_length=64, unique=True)
    # The workspace whose content this is (the key's workspace id), so a list
    # of share links is one workspace's even for a person with several keys.
    workspace_id = models.CharField(max_length=128)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="studio_shares")
    kind = models.CharField(max_length=16, choices=KINDS)
    title = models.CharField(max_length=300)
    # Where the content came from: a document id, or a board id for images.
    source_id = models.CharField(max_length=128, blank=True)
    # The kept document version shared (H17's versions), when one was picked;
    # a plain number, not a foreign key: the snapshot stands on its own even
    # if that version is later removed.
    version_pk = models.PositiveBigIntegerField(null=True, blank=True)
    # The snapshot: {"document": {name, doc_type, content, format}} or
    # {"images": [{url, prompt, width, height}]}, as the service sent it
    # (documents are sanitised again each time they are shown).
    snapshot = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["workspace_id", "created_by", "-created_at"], name="studio_share_mine")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.title}"

    def is_open(self, now) -> bool:
        """Neither revoked nor expired."""
        return self.revoked_at is None and self.expires_at > now


class LibraryFavourite(models.Model):
    """An item of the Studio library a person marked as a favourite (issue
    #21, item 5), kept in the console: the service has no such thing. Per
    person and per workspace (a person with keys for two workspaces keeps two
    lists). The name and picture are copied when it is marked, so the
    favourites page needs no remote read; the item page reads the service
    again (and says so if the item is gone)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="studio_favourites")
    workspace_id = models.CharField(max_length=128)
    kind = models.CharField(max_length=16)  # a library kind: "images", "documents", ...
    item_id = models.CharField(max_length=200)
    name = models.CharField(max_length=300, blank=True)
    picture = models.URLField(max_length=2000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "workspace_id", "kind", "item_id"], name="studio_favourite_once")
        ]

    def __str__(self) -> str:
        return f"{self.kind}/{self.item_id}"


class LibraryCollection(models.Model):
    """A named collection of Studio library items (issue #21, item 5), kept in
    the console: the service has no such thing. Shared with the team: it
    belongs to the workspace (whose key read it), so everyone holding a
    working key of that workspace sees and edits the same collections, the
    way they share the library itself (favourites stay personal).
    `studio/library_collections.py`."""

    workspace_id = models.CharField(max_length=128)
    name = models.CharField(max_length=100)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            # One "Spring campaign" per workspace, whatever the letters' case.
            models.UniqueConstraint(Lower("name"), "workspace_id", name="studio_collection_name_once"),
        ]
        indexes = [models.Index(fields=["workspace_id", "name"], name="studio_collection_ws")]

    def __str__(self) -> str:
        return self.name


class LibraryCollectionItem(models.Model):
    """An item in a collection; its name and picture copied when added, so a
    collection's page reads nothing remote (the item page reads it again)."""

    collection = models.ForeignKey(LibraryCollection, on_delete=models.CASCADE, related_name="items")
    kind = models.CharField(max_length=16)  # a library kind: "images", "documents", ...
    item_id = models.CharField(max_length=200)
    name = models.CharField(max_length=300, blank=True)
    picture = models.URLField(max_length=2000, blank=True)
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-added_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["collection", "kind", "item_id"], name="studio_collection_item_once")
        ]

    def __str__(self) -> str:
        return f"{self.kind}/{self.item_id}"


class ZipJob(SteppedJob):
    """A selection of library images packed into one ZIP by a worker (issue
    #21, item 5; `studio/zip_jobs.py`): the row is the schedule and the
    progress the page polls. The images (id, address, prompt) are copied
    when the job starts, so the worker needs no key: image files are public
    by address. The file lives under STUDIO_ZIP_ROOT and is removed by
    `studio.zips_prune` once STUDIO_ZIP_KEEP_HOURS have passed."""

    QUEUED, BUILDING, READY, FAILED, EXPIRED = "queued", "building", "ready", "failed", "expired"
    ACTIVE = (QUEUED, BUILDING)
    FINAL = (READY, FAILED, EXPIRED)

    workspace_id = models.CharField(max_length=128)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # The form's key: a double click (or a re-sent form) is one job.
    idempotency_key = models.CharField(max_length=128)
    images = models.JSONField(default=list)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    # Images not in the archive, each "<file name>: <why>" (also in its not-included.txt).
    missing = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=16, default=QUEUED)
    message = models.CharField(max_length=300, blank=True)
    file_name = models.CharField(max_length=200, blank=True)
    size = models.PositiveBigIntegerField(default=0)  # bytes of the archive as the last step closed it
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["created_by", "idempotency_key"], name="studio_zip_one_per_key")]
        indexes = [models.Index(fields=["status", "finished_at"], name="studio_zip_prune")]

    def __str__(self) -> str:
        return f"ZIP {self.pk} ({self.status}, {self.done}/{self.total})"

    @property
    def is_final(self) -> bool:
        return self.status in self.FINAL


class Brief(models.Model):
    """A saved brief of the team (issue #36, item 5): a message to start a
    studio's turn from, with `{{variables}}` filled in a small form before it
    is sent. Kept in the console (the service has no such thing), per
    workspace: private to the person who made it, or shared with everyone
    holding a working key of that workspace. Its words are its newest
    version; each edit adds a BriefVersion (who, when, what). studio/briefs.py."""

    workspace_id = models.CharField(max_length=128)
    # One of studio.forms.STUDIOS, or "" for a brief any studio may take.
    studio = models.CharField(max_length=16, blank=True, default="")
    name = models.CharField(max_length=100)
    text = models.TextField()
    shared = models.BooleanField(default=False)
    version = models.PositiveIntegerField(default=1)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        indexes = [models.Index(fields=["workspace_id", "shared", "created_by"], name="studio_brief_ws")]

    def __str__(self) -> str:
        return self.name


class BriefVersion(models.Model):
    """One version of a brief's words, as someone saved it."""

    brief = models.ForeignKey(Brief, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=100)
    text = models.TextField()
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    made_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["brief", "number"], name="studio_brief_version_once")]

    def __str__(self) -> str:
        return f"{self.name} (version {self.number})"


class TakeSet(models.Model):
    """Takes of one brief kept side by side (#36 item 4, alternatives): the
    first document, image turn or Content App run and every "another take" of
    it, numbered 1, 2, ... in the order they were asked for. The service keeps
    each take as an item of its own (it deletes nothing); the console keeps
    which belong together and which one the team kept."""

    TURN = "turn"
    APP_RUN = "app_run"

    workspace_id = models.CharField(max_length=128)
    studio = models.CharField(max_length=16)  # document, image, or the Content App's studio
    kind = models.CharField(max_length=16, choices=[(TURN, "Studio turn"), (APP_RUN, "Content App run")])
    kept = models.ForeignKey("Take", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kept_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    kept_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["workspace_id", "-created_at"], name="studio_takeset_recent")]

    def __str__(self) -> str:
        return f"{self.studio} takes #{self.pk}"


class Take(models.Model):
    """One take of a set: a Studio turn (document or image) or a Content App
    run. A turn or run is a take of at most one set."""

    takes = models.ForeignKey(TakeSet, on_delete=models.CASCADE, related_name="takes")
    number = models.PositiveSmallIntegerField()
    turn = models.OneToOneField(
        "live.TrackedOperation", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    app_run = models.OneToOneField(AppRun, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["takes", "number"], name="studio_take_number_once"),
            models.CheckConstraint(
                condition=models.Q(turn__isnull=False) | models.Q(app_run__isnull=False),
                name="studio_take_is_something",
            ),
        ]

    def __str__(self) -> str:
        return f"take {self.number} of set {self.takes_id}"
