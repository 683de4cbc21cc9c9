from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.db import models

from dashboard.jobs.models import SteppedJob


class BuilderAnswer(models.Model):
    """The agent builder's last answer about one agent of one workspace.

    Kept in the database, not a session, so that a teammate on another device
    sees the builder's open questions and can answer them. A `needs_input`
    answer stays until someone answers (the next builder turn replaces it);
    a `built` answer's summary is shown once to the person who asked.
    """

    STATUS_NEEDS_INPUT = "needs_input"

    workspace_id = models.CharField(max_length=64)
    agent_id = models.CharField(max_length=128)
    status = models.CharField(max_length=40)
    message = models.TextField(blank=True, help_text="What the builder said.")
    questions = models.JSONField(default=list, blank=True, help_text="[{text, options: [str]}]")
    asked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    answered_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace_id", "agent_id"], name="agents_one_builder_answer_per_agent"),
        ]

    def __str__(self) -> str:
        return f"builder {self.status} for agent {self.agent_id}"

    @property
    def needs_input(self) -> bool:
        return self.status == self.STATUS_NEEDS_INPUT


class RunFact(models.Model):
    """What the insights count of one run of one workspace (agents/insights.py).

    Read from the service's runs lists by `agents.insights_refresh` (a worker),
    never by a page: the insights pages read these rows only. A run not over
    yet (`final` false) is read again on the next refresh until it is.
    """

    workspace_id = models.CharField(max_length=64)
    run_id = models.CharField(max_length=128)
    agent_id = models.CharField(max_length=128)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=32)
    final = models.BooleanField(default=False)
    cost_usd = models.FloatField(null=True, blank=True)
    approvals = models.PositiveIntegerField(default=0)
    approvals_waiting = models.PositiveIntegerField(default=0, help_text="Approvals still pending.")
    approval_wait_seconds = models.FloatField(
        null=True, blank=True, help_text="How long its decided approvals waited, summed."
    )
    read_at = models.DateTimeField()
    # What the run said, for the runs search (agents/run_search.py).
    # `words_read` false: a fact read before the search was kept; the next
    # refresh reads it again.
    search_text = models.TextField(blank=True, default="")
    words_read = models.BooleanField(default=False)
    # The same words as a tsvector, written on PostgreSQL only (a GIN index of
    # its own, made by migration 0007 on PostgreSQL); SQLite searches the text.
    search_vector = SearchVectorField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace_id", "run_id"], name="agents_one_fact_per_run"),
        ]
        indexes = [
            models.Index(fields=["workspace_id", "started_at"], name="agents_fact_window"),
            models.Index(fields=["workspace_id", "agent_id", "started_at"], name="agents_fact_agent_window"),
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} ({self.status})"


class InsightsRefresh(models.Model):
    """Where a workspace's insights stand: when someone last looked (beat
    refreshes only workspaces looked at lately), when a refresh was last
    asked for, tried and done, and why the last one failed."""

    workspace_id = models.CharField(max_length=64, unique=True)
    looked_at = models.DateTimeField(null=True, blank=True)
    requested_at = models.DateTimeField(null=True, blank=True)
    tried_at = models.DateTimeField(null=True, blank=True)
    refreshed_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    agent_names = models.JSONField(
        default=dict, blank=True, help_text="{agent id: name} as the last refresh read them."
    )

    def __str__(self) -> str:
        return f"insights of workspace {self.workspace_id}"


class ApprovalBatch(SteppedJob):
    """A bulk decision: up to 50 pending approvals that need no confirmation,
    approved or rejected by one person, as a job stepped by
    `agents.approval_batch_step` (agents/bulk_decisions.py). Its `uid` is the
    starting form's idempotency key (a double submit is one batch); every
    decision's Idempotency-Key is `uuid5(uid, "decide:<approval id>")`, the
    same on every retry."""

    RUNNING = "running"
    DONE = "done"
    STOPPED = "stopped"
    STATUSES = [(RUNNING, "Running"), (DONE, "Done"), (STOPPED, "Stopped")]
    APPROVE = "approve"
    REJECT = "reject"

    uid = models.UUIDField(unique=True)
    workspace_id = models.CharField(max_length=64)
    owner_key = models.ForeignKey("keys.ApiKey", on_delete=models.CASCADE, related_name="+")
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    decision = models.CharField(max_length=8, choices=[(APPROVE, "Approve"), (REJECT, "Reject")])
    status = models.CharField(max_length=16, choices=STATUSES, default=RUNNING)
    message = models.CharField(max_length=400, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"bulk {self.decision} {self.uid} ({self.status})"

    @property
    def is_final(self) -> bool:
        return self.status != self.RUNNING


class ApprovalBatchItem(models.Model):
    """One approval of a bulk decision and what became of it."""

    TO_DO = ""
    DECIDED = "decided"
    ALREADY = "already_decided"
    # A vote the workspace's rule counted: the approval waits for more approvers (nothing sent).
    COUNTED = "vote_counted"
    # Not the batch's to decide (refused by a rule, gone, needs a confirmation): nothing sent.
    NOT_SENT = "not_sent"
    FAILED = "failed"

    batch = models.ForeignKey(ApprovalBatch, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField()
    approval_id = models.CharField(max_length=200)
    agent_id = models.CharField(max_length=64, blank=True)
    agent_name = models.CharField(max_length=200, blank=True)
    summary = models.CharField(max_length=300, blank=True)
    risk = models.CharField(max_length=32, blank=True)
    outcome = models.CharField(max_length=16, blank=True, default=TO_DO)
    message = models.CharField(max_length=400, blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "approval_id"], name="agents_batch_one_item_per_approval"),
        ]

    def __str__(self) -> str:
        return f"{self.approval_id}: {self.outcome or 'to do'}"


class ApprovalDeadline(models.Model):
    """An Administrator's deadline for one agent's approvals of one risk,
    overriding APPROVAL_DEADLINE_MINUTES (agents/deadlines.py)."""

    workspace_id = models.CharField(max_length=64)
    agent_id = models.CharField(max_length=64)
    agent_name = models.CharField(max_length=200, blank=True, help_text="As it was when the deadline was set.")
    risk = models.CharField(max_length=32)
    minutes = models.PositiveIntegerField()
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["agent_name", "risk"]
        constraints = [
            models.UniqueConstraint(fields=["workspace_id", "agent_id", "risk"], name="agents_one_deadline_per_risk")
        ]

    def __str__(self) -> str:
        return f"{self.risk} approvals of {self.agent_id}: {self.minutes} min"


class ApprovalRule(models.Model):
    """An Administrator's rule for one agent's approvals of one risk (an empty
    `agent_id`: every agent's, unless one of its own says otherwise): how many
    approvals it takes, who may give one, whether the person who started the
    run may, and what happens at the deadline (agents/quorum.py)."""

    ESCALATE = "escalate"
    REJECT = "reject"
    APPROVE = "approve"
    AT_DEADLINE = [(ESCALATE, "Escalate only"), (REJECT, "Reject"), (APPROVE, "Approve")]

    workspace_id = models.CharField(max_length=64)
    agent_id = models.CharField(max_length=64, blank=True, help_text="Empty: every agent.")
    agent_name = models.CharField(max_length=200, blank=True, help_text="As it was when the rule was set.")
    risk = models.CharField(max_length=32)
    approvals_needed = models.PositiveSmallIntegerField(default=1)
    approver_roles = models.JSONField(default=list, blank=True, help_text="Console roles that may approve; [] any.")
    approver_ids = models.JSONField(default=list, blank=True, help_text="People (user ids) who may approve too.")
    starter_may_approve = models.BooleanField(default=False)
    at_deadline = models.CharField(max_length=16, choices=AT_DEADLINE, default=ESCALATE)
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["agent_name", "risk"]
        constraints = [
            models.UniqueConstraint(fields=["workspace_id", "agent_id", "risk"], name="agents_one_rule_per_risk")
        ]

    def __str__(self) -> str:
        return f"{self.risk} approvals of {self.agent_id or 'every agent'}: {self.approvals_needed} needed"


class ApprovalTally(models.Model):
    """The console's votes on one approval under a rule: the row every vote
    and the deadline lock, so the service gets one decision, sent once."""

    OPEN = "open"
    SENDING = "sending"  # the quorum is met (or a veto, or the deadline): the one decision claimed
    DECIDED = "decided"
    STATES = [(OPEN, "Open"), (SENDING, "Sending"), (DECIDED, "Decided")]
    BY_VOTES = "votes"
    BY_DEADLINE = "deadline"

    workspace_id = models.CharField(max_length=64)
    approval_id = models.CharField(max_length=200)
    agent_id = models.CharField(max_length=64, blank=True)
    risk = models.CharField(max_length=32, blank=True)
    needed = models.PositiveSmallIntegerField(default=1)
    state = models.CharField(max_length=16, choices=STATES, default=OPEN)
    decision = models.CharField(max_length=8, blank=True, help_text="approve or reject, once claimed.")
    decided_by = models.CharField(max_length=16, blank=True, help_text="votes or deadline.")
    decision_key = models.CharField(max_length=128, blank=True, help_text="The one decision's Idempotency-Key.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace_id", "approval_id"], name="agents_one_tally_per_approval")
        ]

    def __str__(self) -> str:
        return f"tally of {self.approval_id} ({self.state})"


class ApprovalVote(models.Model):
    """One person's approve or reject on a tally."""

    tally = models.ForeignKey(ApprovalTally, on_delete=models.CASCADE, related_name="votes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    username = models.CharField(max_length=150)
    decision = models.CharField(max_length=8)
    via = models.CharField(max_length=32, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["tally", "user"], name="agents_one_vote_per_person")]

    def __str__(self) -> str:
        return f"{self.username} {self.decision}s {self.tally.approval_id}"


class RunView(models.Model):
    """A named runs list (issue #35, item 4): its status tab, agent, thread
    and search (the runs page's query string, re-checked whenever it is
    opened: agents/run_views.py). Private to its owner, or shared with
    everyone holding a working key of the workspace, like Objects' views."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="run_views")
    workspace_id = models.CharField(max_length=64)
    name = models.CharField(max_length=80)
    query = models.CharField(max_length=1000, blank=True)
    shared = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "pk"]
        indexes = [models.Index(fields=["workspace_id", "shared"], name="agents_run_view_ws")]
        constraints = [
            models.UniqueConstraint(fields=["owner", "workspace_id", "name"], name="agents_one_run_view_name")
        ]

    def __str__(self) -> str:
        return self.name


class RunViewDefault(models.Model):
    """The runs view a person's Runs page opens with, per workspace (theirs or a shared one)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    workspace_id = models.CharField(max_length=64)
    view = models.ForeignKey(RunView, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "workspace_id"], name="agents_one_run_view_default")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.view_id}"


class RerunBatch(SteppedJob):
    """A bulk rerun: up to 100 runs that failed, sent again as new runs by one
    person, as a job stepped by the core's engine (agents/bulk_reruns.py,
    the kind `agents.rerun_batch`). Its `uid` is the starting form's
    idempotency key (a double submit is one batch); each rerun's
    Idempotency-Key is `uuid5(uid, "rerun:<run id>")`, the same on every retry."""

    RUNNING = "running"
    DONE = "done"
    STOPPED = "stopped"
    CANCELLED = "cancelled"
    STATUSES = [(RUNNING, "Running"), (DONE, "Done"), (STOPPED, "Stopped"), (CANCELLED, "Cancelled")]

    uid = models.UUIDField(unique=True)
    workspace_id = models.CharField(max_length=64)
    owner_key = models.ForeignKey("keys.ApiKey", on_delete=models.CASCADE, related_name="+")
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16, choices=STATUSES, default=RUNNING)
    message = models.CharField(max_length=400, blank=True)
    # The filter the runs were chosen by, in words ("failed in the last 24 hours, agent Triage").
    chosen_by = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"bulk rerun {self.uid} ({self.status})"

    @property
    def is_final(self) -> bool:
        return self.status != self.RUNNING


class RerunBatchItem(models.Model):
    """One run of a bulk rerun and what became of it: the new run it made
    (a tracked invocation the live loop follows), or why not."""

    TO_DO = ""
    SENT = "sent"
    # Nothing woke it that can be sent again (no message, no event payload): nothing sent.
    NOT_SENT = "not_sent"
    FAILED = "failed"

    batch = models.ForeignKey(RerunBatch, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField()
    run_id = models.CharField(max_length=128)
    agent_id = models.CharField(max_length=64, blank=True)
    agent_name = models.CharField(max_length=200, blank=True)
    started_at = models.DateTimeField(null=True, blank=True, help_text="The failed run's start, as the service said.")
    woken_by = models.CharField(max_length=200, blank=True, help_text="Its message (cut), as the list showed it.")
    outcome = models.CharField(max_length=16, blank=True, default=TO_DO)
    message = models.CharField(max_length=400, blank=True)
    # The new run's tracked invocation (its answer, its run id once known).
    sent = models.ForeignKey(
        "live.TrackedOperation", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "run_id"], name="agents_rerun_one_item_per_run"),
        ]

    def __str__(self) -> str:
        return f"{self.run_id}: {self.outcome or 'to do'}"


class AlertRule(models.Model):
    """An Administrator's alert on an aggregate of one agent (an empty
    `agent_id`: the whole workspace): a measure the console computes from
    what it already stores (agents/alerts.py), above a threshold. Its state
    is kept here: an evaluation that finds it crossed moves it by a
    conditional UPDATE, so one breach is told once and its recovery once,
    whatever the number of workers evaluating."""

    FAILURE_RATE = "failure_rate"
    COST_PER_DAY = "cost_per_day"
    P95_DURATION = "p95_duration"
    APPROVALS_WAITING = "approvals_waiting"
    APPROVALS_OVERDUE = "approvals_overdue"
    KEYS_REFUSED = "keys_refused"
    MEASURES = [
        (FAILURE_RATE, "Failure rate over the window (%)"),
        (COST_PER_DAY, "Cost in the last 24 hours (USD)"),
        (P95_DURATION, "p95 duration over the window (seconds)"),
        (APPROVALS_WAITING, "Approvals waiting"),
        (APPROVALS_OVERDUE, "Approvals overdue"),
        (KEYS_REFUSED, "Stored keys refused (workspace only)"),
    ]
    # Measured on the run facts the insights worker keeps.
    RUN_MEASURES = (FAILURE_RATE, COST_PER_DAY, P95_DURATION)
    OK = "ok"
    BREACHED = "breached"
    STATES = [(OK, "Within the threshold"), (BREACHED, "Breached")]

    workspace_id = models.CharField(max_length=64)
    agent_id = models.CharField(max_length=64, blank=True, help_text="Empty: the whole workspace.")
    agent_name = models.CharField(max_length=200, blank=True, help_text="As it was when the rule was set.")
    measure = models.CharField(max_length=24, choices=MEASURES)
    threshold = models.FloatField()
    window_hours = models.PositiveIntegerField(default=24, help_text="Failure rate and p95: the runs started since.")
    min_runs = models.PositiveIntegerField(
        default=5, help_text="Failure rate and p95: fewer finished runs, no verdict."
    )
    state = models.CharField(max_length=8, choices=STATES, default=OK)
    state_since = models.DateTimeField(null=True, blank=True)
    last_value = models.FloatField(null=True, blank=True)
    evaluated_at = models.DateTimeField(null=True, blank=True)
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["agent_name", "measure", "pk"]
        indexes = [models.Index(fields=["workspace_id"], name="agents_alert_rule_ws")]

    def __str__(self) -> str:
        return f"{self.measure} of {self.agent_id or 'the workspace'} above {self.threshold}"


class AlertEvent(models.Model):
    """One breach or one recovery of a rule, as it was told: the value seen,
    the threshold then, and how many notifications it made."""

    BREACHED = "breached"
    RECOVERED = "recovered"
    KINDS = [(BREACHED, "Breached"), (RECOVERED, "Recovered")]

    rule = models.ForeignKey(AlertRule, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=10, choices=KINDS)
    value = models.FloatField(null=True, blank=True)
    threshold = models.FloatField()
    words = models.CharField(max_length=300)
    at = models.DateTimeField()
    notified = models.PositiveIntegerField(default=0, help_text="Notification rows made (people and webhooks).")

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["rule", "at"], name="agents_alert_event_rule")]

    def __str__(self) -> str:
        return f"{self.kind} of rule {self.rule_id} at {self.at}"
