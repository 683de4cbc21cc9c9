"""Local state of the Objects area. Records themselves live in the remote
service; the console keeps each person's view preferences, the saved views
of an object's table, and the history of the changes made through it."""

from __future__ import annotations

import os

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.db import models

from dashboard.jobs.models import SteppedJob


class ColumnPreference(models.Model):
    """The columns one person hides in one object's records table, remembered
    per workspace (object keys repeat across workspaces)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="column_preferences")
    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    # Field keys hidden from the table; fields added later show by default.
    hidden_fields = models.JSONField(default=list, blank=True)
    # Relation keys shown as linked-record columns (none by default: each costs a read per row).
    link_columns = models.JSONField(default=list, blank=True)
    # The saved view this person's records page opens with (one default per object).
    default_view = models.ForeignKey("SavedView", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "workspace_id", "object_key"], name="objects_one_column_preference")
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.object_key}: {len(self.hidden_fields)} hidden"


class SavedView(models.Model):
    """A named records table: its filters, search, sort and page size (the
    table's query string, re-checked by TableState whenever it is opened) and
    the columns it hides. Private to its owner, or shared with everyone who
    uses this console for the same workspace."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_views")
    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    name = models.CharField(max_length=80)
    query = models.CharField(max_length=4000, blank=True)
    hidden_fields = models.JSONField(default=list, blank=True)
    link_columns = models.JSONField(default=list, blank=True)
    shared = models.BooleanField(default=False)
    # How the records are looked at (objects/looks.py): the table, or a kanban,
    # calendar, gallery or chart with its own settings (field keys, measure...).
    kind = models.CharField(max_length=16, default="table")
    settings = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "pk"]
        indexes = [models.Index(fields=["workspace_id", "object_key"], name="objects_view_object")]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "workspace_id", "object_key", "name"], name="objects_one_view_name_per_owner"
            )
        ]

    def __str__(self) -> str:
        return f"{self.object_key}: {self.name}"


class RecordChange(models.Model):
    """One change a person made to a record through the console: which
    fields, their value before and after (as the service stores them), who
    and when. The record page lists them; the latest can be undone."""

    class Action(models.TextChoices):
        CREATE = "create", "Created"
        EDIT = "edit", "Edited"
        INLINE = "inline", "Edited in the table"
        UNDO = "undo", "Undid a change"
        DUPLICATE = "duplicate", "Duplicated"
        LINK = "link", "Linked"
        RESTORE = "restore", "Restored from the trash"
        PUT_BACK = "put_back", "Put back an earlier value"
        MERGE = "merge", "Merged a duplicate into it"

    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    record_id = models.CharField(max_length=200)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="record_changes"
    )
    # The name shown even after the account is gone.
    actor = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=16, choices=Action.choices, default=Action.EDIT)
    # [{"field": key, "label": label, "before": value, "after": value}, ...];
    # a link: [{"relation_key", "direction" ("to" or "from"), "object", "id", "title"}]
    changes = models.JSONField(default=list)
    # The record this one was duplicated from (action "duplicate").
    source_record_id = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(
                fields=["workspace_id", "object_key", "record_id", "-created_at"], name="objects_change_record"
            )
        ]

    def __str__(self) -> str:
        return f"{self.object_key}/{self.record_id}: {self.action} by {self.actor}"


# --- bulk actions and CSV imports ---------------------------------------------


class ImportStorage(FileSystemStorage):
    """Where uploaded CSV files wait for their import: `OBJECTS_IMPORT_ROOT`,
    else var/imports. Read at each use, so tests can point it elsewhere."""

    @property
    def base_location(self) -> str:
        return str(settings.OBJECTS_IMPORT_ROOT or settings.VAR_DIR / "imports")

    @property
    def location(self) -> str:
        # A relative root (the .env example's `var/imports`) is the checkout's.
        return os.path.abspath(os.path.join(settings.BASE_DIR, self.base_location))


def import_storage() -> ImportStorage:
    return ImportStorage()


class ObjectJob(SteppedJob):
    """One bulk edit, bulk delete or CSV import of one object's records.

    The row is the job: its status, its progress, where it stopped (a
    collected item or a row of the file) and who may follow it. Celery tasks
    (objects/tasks.py) take its id, re-read it, do one bounded chunk and send
    themselves again; the browser polls this row only. Every remote write's
    Idempotency-Key derives from `uid` and the record or row it writes, so a
    chunk done twice (a retried task, a resumed or re-run import) replays
    instead of writing twice.
    """

    KIND_EDIT = "edit"
    KIND_DELETE = "delete"
    KIND_IMPORT = "import"
    KIND_RESTORE = "restore"  # records brought back from the trash (objects/trash.py)
    KIND_UNDO = "undo"  # a finished bulk edit, import or merge undone (objects/job_undo.py)
    KIND_MERGE = "merge"  # twins merged into one kept record (objects/merge.py)
    KINDS = [
        (KIND_EDIT, "Bulk edit"),
        (KIND_DELETE, "Bulk delete"),
        (KIND_IMPORT, "CSV import"),
        (KIND_RESTORE, "Restore from the trash"),
        (KIND_UNDO, "Undo of a job"),
        (KIND_MERGE, "Merge of duplicates"),
    ]

    # Bulk: collecting (listing the records a filter matches) -> running -> done.
    # Import: checking (the dry run) -> checked (waits for "Import") -> running -> done.
    MAPPING = "mapping"  # an uploaded file waiting for its columns to be mapped
    COLLECTING = "collecting"
    CHECKING = "checking"
    CHECKED = "checked"
    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"
    STOPPED = "stopped"  # an error no retry fixes (key revoked...); Resume starts again where it stopped
    ACTIVE = frozenset({COLLECTING, CHECKING, RUNNING})
    STATUSES = [
        (MAPPING, "Waiting for its columns to be mapped"),
        (COLLECTING, "Listing the records"),
        (CHECKING, "Checking the rows"),
        (CHECKED, "Checked, ready to import"),
        (RUNNING, "Running"),
        (DONE, "Done"),
        (CANCELLED, "Cancelled"),
        (STOPPED, "Stopped"),
    ]

    uid = models.UUIDField(unique=True, help_text="The form's idempotency key: every write's key derives from it.")
    owner_key = models.ForeignKey("keys.ApiKey", on_delete=models.CASCADE, related_name="object_jobs")
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="object_jobs")
    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    object_name = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=16, choices=KINDS)
    title = models.CharField(max_length=300)
    status = models.CharField(max_length=16, choices=STATUSES)
    resume_status = models.CharField(max_length=16, blank=True, help_text="What Resume goes back to.")
    # Edit: {"changes": {key: value}}; a filter selection: {"filter", "search", "sort"};
    # import: {"header": [...], "mapping": {column index: field key}, "encoding", "delimiter",
    # "match_key", "match_mode", "dry_run"/"tally": {outcome: rows}} (objects/imports.py).
    params = models.JSONField(default=dict, blank=True)
    cursor = models.TextField(blank=True, help_text="Collecting: the next page of the filter.")
    upload = models.FileField(upload_to="%Y/%m/", storage=import_storage, blank=True)
    upload_name = models.CharField(max_length=255, blank=True)
    position_row = models.PositiveIntegerField(default=0, help_text="Import: data rows already handled.")
    position_byte = models.BigIntegerField(default=0, help_text="Import: where the next row starts in the file.")
    position_line = models.PositiveIntegerField(
        default=0, help_text="Import: the file's last line already handled (quoted newlines count)."
    )
    total = models.PositiveIntegerField(default=0)
    processed = models.PositiveIntegerField(default=0)
    succeeded = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["started_by", "-created_at"], name="objects_job_user")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.object_key} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def is_final(self) -> bool:
        """Nothing more happens without a person (the polling stops)."""
        return not self.is_active

    @property
    def file_removed(self) -> bool:
        """An import whose uploaded file the daily clean-up removed
        (OBJECTS_IMPORT_KEEP_DAYS): nothing can be read from it again."""
        return self.kind == self.KIND_IMPORT and not self.upload


class JobItem(models.Model):
    """One record a bulk job writes (collected before any write, so a filter
    the edit itself changes never shifts the pages under the job)."""

    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"
    GONE = "gone"  # a delete found the record already deleted
    CREATED = "created"  # a restore re-created it; its links come in a second pass
    SKIPPED = "skipped"  # an undo left it: changed since the job wrote it
    # An import's dry run: a record as the import will have left it, by its key
    # (`title`, the key's value; `before`, its values), so a later row repeating
    # the key is foreseen as the import will do it. Dropped before writing.
    FORESEEN = "foreseen"

    job = models.ForeignKey(ObjectJob, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField()
    record_id = models.CharField(max_length=200)
    title = models.CharField(max_length=300, blank=True)
    state = models.CharField(max_length=16, default=PENDING)
    message = models.TextField(blank=True)
    request_id = models.CharField(max_length=128, blank=True)
    # A bulk edit: the values it replaced ({key: value}), what its undo puts back;
    # an import: the values it wrote into the record it made (its undo leaves a
    # record changed since), or for a record it updated the values it replaced.
    # A restore: the record's new id once re-created.
    before = models.JSONField(null=True, blank=True)
    # A record an import updated: what it wrote ({key: value}); its undo puts
    # `before` back where the record still holds these (None: not an update).
    written = models.JSONField(null=True, blank=True)
    new_id = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["job", "record_id"], name="objects_item_once")]
        indexes = [models.Index(fields=["job", "state", "position"], name="objects_item_todo")]

    def __str__(self) -> str:
        return f"{self.record_id} ({self.state})"


class ImportProblem(models.Model):
    """One refused row of an import: by the dry run (the object's field
    rules) or by the service (its 422, with the request id)."""

    CHECK = "check"
    SERVICE = "service"

    job = models.ForeignKey(ObjectJob, on_delete=models.CASCADE, related_name="problems")
    row_number = models.PositiveIntegerField(help_text="The line's data row, 1 for the first row after the header.")
    line = models.PositiveIntegerField(
        default=0, help_text="The spreadsheet's line where the row starts (the header is line 1); 0 if not known."
    )
    cells = models.JSONField(default=dict, blank=True, help_text="The row's values by the file's column name.")
    stage = models.CharField(max_length=16)
    fields = models.CharField(max_length=500, blank=True)
    message = models.TextField()
    request_id = models.CharField(max_length=128, blank=True)

    class Meta:
        ordering = ["row_number"]
        constraints = [models.UniqueConstraint(fields=["job", "row_number"], name="objects_problem_once")]

    def __str__(self) -> str:
        return f"line {self.line or '?'}: {self.message}"


# --- counts of records (the table's total, charts, kanban totals) --------------


class RecordTally(SteppedJob):
    """The records of one filter counted: in all (the table's total, no
    group), or per group of one field (a choice, a yes/no, or a date's day,
    week or month) with one number field summed (charts, kanban columns).

    The service gives no totals, so a job reads every page of the filter
    (100 records a page, the most it gives) through `objects.tally_step`
    (objects/tallies.py), a bounded chunk of pages at a time, keeping where
    it stopped (`cursor`) and the sums so far; each record is checked against
    the conditions the service cannot check (objects/filters.py). The row is
    the cache: one per workspace, object and parameters (`signature`), fresh
    for OBJECTS_COUNT_FRESH_SECONDS; pages poll it (204 unchanged, 286 final).
    """

    COUNTING = "counting"
    DONE = "done"
    STOPPED = "stopped"
    STATUSES = [(COUNTING, "Counting"), (DONE, "Counted"), (STOPPED, "Stopped")]

    owner_key = models.ForeignKey("keys.ApiKey", on_delete=models.CASCADE, related_name="record_tallies")
    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    signature = models.CharField(max_length=64, help_text="sha256 of the parameters.")
    # {"query" (the table's search and conditions), "group" ("" for a total), "bucket", "value", "zone"}
    params = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=STATUSES, default=COUNTING)
    # {group key: [records, sum of the value field (decimal text), records with a value]}
    groups = models.JSONField(default=dict, blank=True)
    cursor = models.TextField(blank=True)
    pages_read = models.PositiveIntegerField(default=0)
    records_read = models.PositiveIntegerField(default=0, help_text="Records read that the filter matches.")
    # The last finished count's records, shown as "about N" while it is counted again.
    previous = models.PositiveIntegerField(null=True, blank=True)
    message = models.TextField(blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    # When the console last wrote a record of this object since the count
    # began (objects/tallies.py `records_written`): the count is stale and is
    # counted again when next asked. Never written by the count's own steps.
    written_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["workspace_id", "object_key", "signature"], name="objects_one_tally_per_question"
            )
        ]

    def __str__(self) -> str:
        return (
            f"{self.object_key} by {self.params.get('group') or 'nothing'}: {self.status}, {self.records_read} counted"
        )

    @property
    def is_final(self) -> bool:
        return self.status != self.COUNTING


# --- the trash ------------------------------------------------------------------


class TrashedRecord(models.Model):
    """A record deleted through the console, as it was just before: its
    values, title and links both ways, kept OBJECTS_TRASH_DAYS so it can be
    re-created (objects/trash.py). Once restored the row stays as the map
    from the old id to the new one (old addresses redirect)."""

    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    record_id = models.CharField(max_length=200)
    title = models.CharField(max_length=300, blank=True)
    values = models.JSONField(default=dict)
    # [{"relation_key", "direction" ("outgoing"/"incoming"), "object", "id", "label", "metadata", "title"}]
    links = models.JSONField(default=list)
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor = models.CharField(max_length=150, blank=True)
    deleted_at = models.DateTimeField(auto_now_add=True)
    restored_id = models.CharField(max_length=200, blank=True)
    restored_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-deleted_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["workspace_id", "object_key", "record_id"], name="objects_trashed_once")
        ]
        indexes = [models.Index(fields=["workspace_id", "object_key", "-deleted_at"], name="objects_trash_object")]

    def __str__(self) -> str:
        return f"{self.object_key}/{self.record_id} (trash)"

    @property
    def in_trash(self) -> bool:
        return not self.restored_id


# --- comments on records, watching, and what reaches people (objects/comments.py) ---


class RecordComment(models.Model):
    """A comment a person wrote on a record, kept by the console (the
    service has no comments): markdown, shown sanitised, to people holding a
    working key of its workspace only."""

    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    record_id = models.CharField(max_length=200)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="record_comments"
    )
    # The name shown even after the account is gone.
    author_name = models.CharField(max_length=150, blank=True)
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    edited_at = models.DateTimeField(null=True, blank=True)
    # One per sent form: the same form sent twice (a double click, a resend
    # after a lost answer) finds the comment its first send made.
    uid = models.UUIDField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [
            models.Index(
                fields=["workspace_id", "object_key", "record_id", "created_at"], name="objects_comment_record"
            )
        ]
        constraints = [models.UniqueConstraint(fields=["author", "uid"], name="objects_comment_sent_once")]

    def __str__(self) -> str:
        return f"comment {self.pk} on {self.object_key}/{self.record_id}"


class RecordWatch(models.Model):
    """A person watches a record: new comments on it and changes made to it
    through the console reach their inbox."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="record_watches")
    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    record_id = models.CharField(max_length=200)
    # The record's title when watched (or last commented on): how a change's item names it.
    record_title = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["workspace_id", "object_key", "record_id", "user"], name="objects_one_watch_per_person"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id} watches {self.object_key}/{self.record_id}"


class RecordNews(models.Model):
    """One inbox item of a person about a record: they were mentioned in a
    comment, or a record they watch got a comment or a change. Read by the
    inbox (objects/comments.py: `record_news_items`, the database only); it
    leaves when the person opens the record, or dismisses it."""

    class Kind(models.TextChoices):
        MENTION = "mention", "Mentioned you"
        COMMENT = "comment", "Commented"
        CHANGE = "change", "Changed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="record_news")
    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    record_id = models.CharField(max_length=200)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    title = models.CharField(max_length=300)
    actor = models.CharField(max_length=150, blank=True)
    comment = models.ForeignKey(RecordComment, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    # A bulk edit, import or undo that changed records the person watches: one item per
    # person per job, however many records (objects/job_news.py); its record_id is blank
    # when it names several records.
    job = models.ForeignKey(ObjectJob, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "workspace_id", "seen_at"], name="objects_news_person")]
        # NULL jobs never conflict (PostgreSQL): only a job's item is one per person.
        constraints = [models.UniqueConstraint(fields=["user", "job"], name="objects_news_once_per_job")]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id}: {self.title}"


# --- computed columns (objects/computed.py) ------------------------------------------


class ComputedColumn(models.Model):
    """A column the console computes for an object's records (the service has
    no such fields): a formula over the record's fields, a lookup of a linked
    record's field, or a rollup over linked records (objects/computed.py).
    Kept for a workspace: shown to whoever holds a working key of it."""

    class Kind(models.TextChoices):
        FORMULA = "formula", "Formula"
        LOOKUP = "lookup", "Lookup"
        ROLLUP = "rollup", "Rollup"

    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # A formula's text (objects/formulas.py), as typed.
    formula = models.TextField(blank=True)
    # A lookup's or rollup's relation key and the linked records' field (none: a count of them).
    relation_key = models.CharField(max_length=100, blank=True)
    field_key = models.CharField(max_length=200, blank=True)
    function = models.CharField(max_length=16, blank=True)  # a rollup's (objects/rollups.py ROLLUPS)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["workspace_id", "object_key"], name="objects_computed_object")]
        constraints = [
            models.UniqueConstraint(fields=["workspace_id", "object_key", "name"], name="objects_one_computed_name")
        ]

    def __str__(self) -> str:
        return f"{self.object_key}: {self.name}"


class RecordPresence(models.Model):
    """One open page of a person on a record (objects/presence.py): its
    heartbeat, kept by the page's own poll every ~2 s, and the field whose
    inline editor it has open. Shown to others while fresh (PRESENCE_SECONDS);
    leaving the page deletes it at once. One row per page (`token`, made when
    the page was rendered), so two tabs of one person are two rows."""

    token = models.CharField(max_length=32)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    record_id = models.CharField(max_length=200)
    # The field being edited ("" when only viewing), its label as the definition said at the beat.
    field_key = models.CharField(max_length=200, blank=True)
    field_label = models.CharField(max_length=200, blank=True)
    seen_at = models.DateTimeField()

    class Meta:
        # Keyed by person and page: a token someone else's page sent never touches this person's row.
        constraints = [models.UniqueConstraint(fields=["user", "token"], name="objects_presence_one_per_page")]
        indexes = [models.Index(fields=["workspace_id", "object_key", "seen_at"], name="objects_presence_object")]

    def __str__(self) -> str:
        return f"{self.user} on {self.object_key}/{self.record_id}"


class ObjectAccessPolicy(models.Model):
    """Who sees which records of one object and which of its fields, as its
    Administrators set it (objects/access.py reads `policy`). Kept for the
    workspace; the console enforces it, the service key does not."""

    workspace_id = models.CharField(max_length=64)
    object_key = models.CharField(max_length=200)
    policy = models.JSONField(default=dict)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace_id", "object_key"], name="objects_access_one_per_object")
        ]

    def __str__(self) -> str:
        return f"access policy of {self.object_key}"
