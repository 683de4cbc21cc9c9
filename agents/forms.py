"""Forms of the Agents area. Every form that writes carries its own
Idempotency-Key (a hidden field minted at render)."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from django import forms
from django.utils.translation import gettext, gettext_lazy

from agents.queue import AGE_CHOICES, RISK_CHOICES
from agents.reading import CONFIRM_RISKS
from dashboard.frame.forms import QuestionsForm
from dashboard.idempotency import IdempotencyKeyField, new_idempotency_key
from dashboard.web.counted import CountedCharField, CountedTextarea, CountedTextInput, over_limit_words
from dashboard.web.json_input import JsonInputError, parse_json_object
from dashboard.web.reading import read_questions

# Spec, "Limits": agent name 120, message 20000 (create, change, run).
NOTE_MAX_LENGTH = 2000
NAME_MAX_LENGTH = 120
MESSAGE_MAX_LENGTH = 20000

AGENT_STATUSES = [("", "All"), ("draft", "Draft"), ("active", "Active"), ("paused", "Paused"), ("archived", "Archived")]
RUN_STATUSES = [
    ("", "All"),
    ("running", "Running"),
    ("waiting", "Waiting"),
    ("completed", "Completed"),
    ("failed", "Failed"),
    ("cancelled", "Cancelled"),
]
APPROVAL_STATUSES = [("pending", "Pending"), ("approved", "Approved"), ("rejected", "Rejected"), ("all", "All")]


def uuid_or_empty(value: str | None) -> str:
    """An id from the query (`?agent=`, `?thread=`) as the service writes it, or
    "" for anything that is not one (a filter left out rather than an error)."""
    try:
        return str(UUID(str(value))) if value else ""
    except ValueError:
        return ""


def _message_field(*, error_messages: dict | None = None, **kwargs) -> CountedCharField:
    """A message to the builder or an agent: counted, never cut (a paste over
    the limit stays whole and is refused in words, nothing sent)."""
    return CountedCharField(
        limit=MESSAGE_MAX_LENGTH,
        noun="The message",
        widget=CountedTextarea(attrs={"rows": 4}),
        error_messages={"required": gettext("Write a message."), **(error_messages or {})},
        **kwargs,
    )


def _name_field(**kwargs) -> CountedCharField:
    return CountedCharField(limit=NAME_MAX_LENGTH, noun="The name", widget=CountedTextInput, **kwargs)


class AgentCreateForm(QuestionsForm):
    """A new agent from a brief. When the builder asked questions without
    saying which draft it made (no id anywhere in its answer), the form comes
    back with them in place (`questions`, carried in a hidden field); the
    answers go with the brief as the next create."""

    name = _name_field(required=False, help_text=gettext_lazy("Optional; the builder names it otherwise."))
    message = _message_field(
        label=gettext_lazy("What should the agent do?"),
        help_text=gettext_lazy("Describe the job in your own words: when it wakes up, what it does, whom it tells."),
    )
    auto = forms.BooleanField(
        required=False,
        label=gettext_lazy("Draft it now"),
        help_text=gettext_lazy("The builder drafts the plan now instead of asking questions first."),
    )
    asked = forms.CharField(required=False, widget=forms.HiddenInput)
    idempotency_key = IdempotencyKeyField()

    def __init__(self, *args, questions: list[dict] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if questions is None and self.is_bound:
            questions = _asked(self.data.get("asked"))
        self.add_question_fields(questions)
        if questions:
            self.initial["asked"] = json.dumps(questions, ensure_ascii=False)

    def brief(self) -> str:
        """The brief with the answers to the builder's questions, if any."""
        answers = self.reply_text({**self.cleaned_data, "message": ""})
        message = (self.cleaned_data.get("message") or "").strip()
        return f"{message}\n\n{answers}" if answers else message

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if "message" in cleaned and len(self.brief()) > MESSAGE_MAX_LENGTH:
            self.add_error(
                "message", over_limit_words("The message with the answers", MESSAGE_MAX_LENGTH, len(self.brief()))
            )
        return cleaned


def _asked(raw: str | None) -> list[dict]:
    """The questions a create form carried back (a hidden field, so read as
    untrusted: at most 20, each through the tolerant reader)."""
    try:
        value = json.loads(raw or "[]")
    except ValueError:
        return []
    return read_questions(value)[:20]


class AgentChangeForm(QuestionsForm):
    """A builder turn: change the draft with a message, or answer the builder's questions."""

    message = _message_field(label=gettext_lazy("Your message"), required=False)
    auto = forms.BooleanField(
        required=False,
        label=gettext_lazy("Draft it now"),
        help_text=gettext_lazy("No more questions: the builder decides."),
    )
    idempotency_key = IdempotencyKeyField()

    def __init__(self, *args, questions: list[dict] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.add_question_fields(questions)

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if self.has_error("message"):
            return cleaned  # refused already (over its limit, in words): one error, not two
        text = self.reply_text(cleaned)
        if not text:
            self.add_error("message", gettext("Write a message, or pick an answer to the builder's questions."))
        elif len(text) > MESSAGE_MAX_LENGTH:
            self.add_error("message", over_limit_words("The message with the answers", MESSAGE_MAX_LENGTH, len(text)))
        return cleaned

    def picked_option(self) -> tuple[int, str] | None:
        """(question index, option) when the form sent one option and nothing
        typed: a one-click answer (each option its own form and key)."""
        cleaned = self.cleaned_data
        picked = [
            (index, cleaned[f"answer_{index}"])
            for index in range(len(self.questions))
            if cleaned.get(f"answer_{index}")
        ]
        if len(picked) == 1 and not (cleaned.get("message") or "").strip():
            return picked[0]
        return None


def question_options(
    questions: list[dict], *, kept: tuple[int, str, str] | None = None
) -> list[tuple[int, dict, list[tuple[str, str]]]]:
    """The builder's questions that have options, each option with the key of
    its own one-click form: one logical answer, one Idempotency-Key. `kept`
    (index, option, key): the key of an answer whose sending failed in a way
    worth retrying, so clicking it again is the same write."""
    rows = []
    for index, question in enumerate(questions):
        options = [str(option) for option in question.get("options") or []]
        if options:
            keyed = [
                (option, kept[2] if kept and kept[:2] == (index, option) else new_idempotency_key())
                for option in options
            ]
            rows.append((index, question, keyed))
    return rows


class AgentRenameForm(forms.Form):
    name = _name_field(label=gettext_lazy("Name"), error_messages={"required": gettext_lazy("Give the agent a name.")})
    idempotency_key = IdempotencyKeyField()


class AgentActionForm(forms.Form):
    """Activate or pause: no values, only the write's key."""

    idempotency_key = IdempotencyKeyField()


class ApprovalDecisionForm(forms.Form):
    """One form per pending approval: a note, and a button per decision.
    Each decision is its own logical write with its own Idempotency-Key;
    the pressed button says which (`decision`). Approving a destructive or
    spend action is a second button, inside an "Approve…" confirmation that
    repeats the exact input (`approve-confirmed`). Which actions need it is
    the service's risk, read again by the view before it decides
    (`confirmation_refusal`): the form carries no risk, so none can be forged."""

    BUTTONS = {
        "approve": ("approve", False, False),
        "approve-confirmed": ("approve", False, True),
        "reject": ("reject", False, False),
        "always": ("approve", True, False),
        "always-confirmed": ("approve", True, True),
    }

    decision = forms.ChoiceField(choices=[(value, value) for value in BUTTONS])
    note = CountedCharField(
        required=False,
        limit=NOTE_MAX_LENGTH,
        noun="The note",
        label=gettext_lazy("Note (optional, kept in the console's audit trail)"),
        widget=CountedTextarea(attrs={"rows": 2}),
    )
    # Narrows the re-read after the decision to the approval's agent.
    agent_id = forms.UUIDField(required=False, widget=forms.HiddenInput)
    key_approve = IdempotencyKeyField()
    key_reject = IdempotencyKeyField()
    key_always = IdempotencyKeyField()
    # Shown only when a destructive or spend approve asks for a fresh second factor (dashboard/accounts/step_up.py).
    step_up_code = forms.CharField(
        required=False, max_length=40, label=gettext_lazy("Code from your authenticator app")
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if cleaned.get("decision") not in self.BUTTONS or self.errors:
            return cleaned  # a stale or changed page: the view refuses it, nothing is sent
        cleaned["button"] = cleaned["decision"]
        decision, always, confirmed = self.BUTTONS[cleaned["decision"]]
        cleaned["decision"], cleaned["always"], cleaned["confirmed"] = decision, always, confirmed
        cleaned["idempotency_key"] = cleaned["key_always" if always else f"key_{decision}"]
        return cleaned

    def confirmation_refusal(self, risk: str) -> str:
        """Why this approve may not go ("" when it may), given the risk the
        service gives the approval now: a destructive or spend action is
        approved only with the button inside its confirmation."""
        data = self.cleaned_data
        if data["decision"] == "approve" and risk in CONFIRM_RISKS and not data["confirmed"]:
            return f"This {risk} action needs a confirmation: use “Approve…” and check the exact input first."
        return ""


class ChatForm(forms.Form):
    message = _message_field(label=gettext_lazy("Message"), required=False)
    # Text, parsed strictly in clean_payload (dashboard/web/json_input.py):
    # what was typed is shown back as typed when it is refused.
    payload = forms.CharField(
        required=False,
        strip=False,
        label=gettext_lazy("Event (JSON, optional)"),
        help_text=gettext_lazy(
            'A JSON object for the agent to act on, instead of or beside a message, e.g. {"order": 42}.'
        ),
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
    )
    thread_id = forms.UUIDField(required=False, widget=forms.HiddenInput)
    # The first message of a conversation whose id had not come back when the
    # page was drawn: the next message continues its conversation.
    after = forms.CharField(required=False, max_length=30, widget=forms.HiddenInput)
    idempotency_key = IdempotencyKeyField()

    def clean_payload(self) -> dict | None:
        typed = self.cleaned_data.get("payload") or ""
        if not typed.strip():
            return None
        try:
            return parse_json_object(typed, what="The event", example='{"order": 42}')
        except JsonInputError as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if (
            not (cleaned.get("message") or "").strip()
            and cleaned.get("payload") is None
            and "payload" not in self.errors
            and "message" not in self.errors
        ):
            self.add_error("message", gettext("Write a message to the agent, or give it an event."))
        return cleaned


class RerunForm(forms.Form):
    """Send a run's message or payload again as a new run: its own write."""

    idempotency_key = IdempotencyKeyField()


class ApprovalBatchForm(forms.Form):
    """Approve or reject the selected approvals together (agents/bulk_decisions.py).
    The form's key is the batch's uid: a double submit is one batch."""

    decision = forms.ChoiceField(choices=[("approve", gettext_lazy("Approve")), ("reject", gettext_lazy("Reject"))])
    idempotency_key = IdempotencyKeyField()
    # "All N matching this filter": the queue's filter as it was shown; the approvals are read again from it.
    matching = forms.BooleanField(required=False)
    agent = forms.CharField(required=False, max_length=64)
    risk = forms.CharField(required=False, max_length=32)
    age = forms.CharField(required=False, max_length=8)

    def clean(self) -> dict[str, Any]:
        super().clean()
        self.cleaned_data["agent"] = uuid_or_empty(self.cleaned_data.get("agent") or "")
        for name, choices in (("risk", RISK_CHOICES), ("age", AGE_CHOICES)):
            if (self.cleaned_data.get(name) or "") not in dict(choices):
                self.add_error(name, gettext("This filter could not be read."))
        # The selected ids (checkboxes named "approval"): well-formed ones only; the service's list decides the rest.
        picked = self.data.getlist("approval")[:200] if hasattr(self.data, "getlist") else []
        self.cleaned_data["approvals"] = [uuid_or_empty(value) for value in picked if uuid_or_empty(value)]
        return self.cleaned_data


class GrantRevokeForm(forms.Form):
    """ "Stop allowing": one grant of one agent, taken back through the builder.
    The box says what it costs (credits, a changed draft) before it is sent."""

    risk = forms.CharField(max_length=64, widget=forms.HiddenInput)
    understood = forms.BooleanField(
        label=gettext_lazy(
            "I understand this sends a message to the agent builder: it uses credits and changes the draft."
        ),
        error_messages={
            "required": gettext_lazy("Check the box first: taking a grant back uses credits and changes the draft.")
        },
    )
    idempotency_key = IdempotencyKeyField()


class ReinstructForm(forms.Form):
    """ "Reject and re-instruct": reject the approval, then send the corrected
    instruction into its run's thread. Two writes, a key each, both reused
    when the form is posted again."""

    message = _message_field(
        label=gettext_lazy("The corrected instruction"),
        error_messages={"required": gettext_lazy("Write the instruction.")},
    )
    run_id = forms.UUIDField(required=False, widget=forms.HiddenInput)
    agent_id = forms.UUIDField(required=False, widget=forms.HiddenInput)
    key_reject = IdempotencyKeyField()
    key_message = IdempotencyKeyField()


# The risks a deadline or an approval rule is set for, in a person's words.
DECIDED_RISKS = [
    ("write", gettext_lazy("Write")),
    ("send", gettext_lazy("Send")),
    ("spend", gettext_lazy("Spend")),
    ("destructive", gettext_lazy("Destructive")),
]


class DeadlineForm(forms.Form):
    """An Administrator's deadline for one agent's approvals of one risk
    (empty minutes: back to the default of the risk)."""

    agent_id = forms.ChoiceField(label=gettext_lazy("Agent"))
    risk = forms.ChoiceField(
        label=gettext_lazy("Risk"),
        choices=DECIDED_RISKS,
    )
    minutes = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=60 * 24 * 30,
        label=gettext_lazy("Minutes to decide"),
        help_text=gettext_lazy("Empty: the default of the risk."),
        error_messages={
            "min_value": gettext_lazy("At least 1 minute."),
            "max_value": gettext_lazy("At most 30 days (43,200 minutes)."),
        },
    )

    def __init__(self, *args: Any, agents: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        agent = self.fields["agent_id"]
        assert isinstance(agent, forms.ChoiceField)
        agent.choices = agents


NEVER_AUTO_APPROVED = gettext_lazy(
    "A destructive or spend action is never approved at its deadline: choose Reject or Escalate only."
)


class ApprovalRuleForm(forms.Form):
    """An Administrator's rule for one agent's (or every agent's) approvals
    of one risk (agents/quorum.py): M of N, who may approve, separation of
    duties, the outcome at the deadline."""

    agent_id = forms.ChoiceField(label=gettext_lazy("Agent"), required=False)
    risk = forms.ChoiceField(
        label=gettext_lazy("Risk"),
        choices=DECIDED_RISKS,
    )
    approvals_needed = forms.IntegerField(
        min_value=1,
        max_value=5,
        initial=1,
        label=gettext_lazy("Approvals needed"),
        help_text=gettext_lazy("How many different people must approve; a single rejection vetoes."),
        error_messages={
            "min_value": gettext_lazy("At least 1 approval."),
            "max_value": gettext_lazy("At most 5 approvals."),
        },
    )
    approver_roles = forms.MultipleChoiceField(
        required=False,
        label=gettext_lazy("Roles that may approve"),
        choices=[("approver", gettext_lazy("Approvers")), ("administrator", gettext_lazy("Administrators"))],
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("None ticked and nobody named: anyone who decides approvals."),
    )
    approver_ids = forms.MultipleChoiceField(
        required=False, label=gettext_lazy("People who may approve"), widget=forms.CheckboxSelectMultiple
    )
    starter_may_approve = forms.BooleanField(
        required=False, label=gettext_lazy("The person who started the run may approve it")
    )
    at_deadline = forms.ChoiceField(
        label=gettext_lazy("When nobody answers by the deadline"),
        choices=[
            ("escalate", gettext_lazy("Escalate only")),
            ("reject", gettext_lazy("Reject")),
            ("approve", gettext_lazy("Approve")),
        ],
        initial="escalate",
    )

    def __init__(self, *args: Any, agents: list[tuple[str, str]], people: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        agent = self.fields["agent_id"]
        assert isinstance(agent, forms.ChoiceField)
        agent.choices = [("", "Every agent"), *agents]
        named = self.fields["approver_ids"]
        assert isinstance(named, forms.MultipleChoiceField)
        named.choices = people

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if cleaned.get("at_deadline") == "approve" and cleaned.get("risk") in CONFIRM_RISKS:
            self.add_error("at_deadline", NEVER_AUTO_APPROVED)
        return cleaned


ALERT_MEASURES = [
    ("failure_rate", "Failure rate over the window (%)"),
    ("cost_per_day", "Cost in the last 24 hours (USD)"),
    ("p95_duration", "p95 duration over the window (seconds)"),
    ("approvals_waiting", "Approvals waiting"),
    ("approvals_overdue", "Approvals overdue"),
    ("keys_refused", "Stored keys refused (the whole workspace only)"),
]
KEYS_ARE_THE_WORKSPACE_S = "Stored keys belong to the workspace, not to an agent: choose The whole workspace."
A_RATE_IS_A_PERCENT = "A failure rate is a percentage: give 0 to 100."


class AlertRuleForm(forms.Form):
    """An Administrator's alert rule (agents/alerts.py): a measure of one
    agent or of the whole workspace, above a threshold. The console's own
    setting: nothing is sent to the service, so it carries no form key."""

    agent_id = forms.ChoiceField(label=gettext_lazy("Agent"), required=False)
    measure = forms.ChoiceField(label=gettext_lazy("Measure"), choices=ALERT_MEASURES)
    threshold = forms.DecimalField(
        label=gettext_lazy("Alert when above"),
        min_value=0,
        max_digits=12,
        decimal_places=4,
        help_text=gettext_lazy("In the measure's unit: a percentage, dollars, seconds, or a count."),
        error_messages={
            "required": gettext_lazy("Give the threshold: the alert is sent when the measure goes above it."),
            "invalid": gettext_lazy("Give the threshold as a number, such as 20 or 2.5."),
            "min_value": gettext_lazy("The threshold is 0 or more."),
            "max_digits": gettext_lazy("At most 8 digits before the point."),
            "max_whole_digits": gettext_lazy("At most 8 digits before the point."),
            "max_decimal_places": gettext_lazy("At most 4 digits after the point."),
        },
    )
    window_hours = forms.IntegerField(
        label=gettext_lazy("Window (hours)"),
        min_value=1,
        max_value=24 * 30,
        initial=24,
        help_text=gettext_lazy(
            "Failure rate and p95 duration: the runs that started within this many hours before now."
        ),
        error_messages={
            "min_value": gettext_lazy("At least 1 hour."),
            "max_value": gettext_lazy("At most 30 days (720 hours)."),
        },
    )
    min_runs = forms.IntegerField(
        label=gettext_lazy("Fewest finished runs for a verdict"),
        min_value=1,
        max_value=10_000,
        initial=5,
        help_text=gettext_lazy(
            "Failure rate and p95 duration: with fewer finished runs in the window, the alert waits."
        ),
        error_messages={
            "min_value": gettext_lazy("At least 1 run."),
            "max_value": gettext_lazy("At most 10,000 runs."),
        },
    )

    def __init__(self, *args: Any, agents: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        agent = self.fields["agent_id"]
        assert isinstance(agent, forms.ChoiceField)
        agent.choices = [("", "The whole workspace"), *agents]

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        measure = cleaned.get("measure")
        if measure == "keys_refused" and cleaned.get("agent_id"):
            self.add_error("agent_id", KEYS_ARE_THE_WORKSPACE_S)
        threshold = cleaned.get("threshold")
        if measure == "failure_rate" and threshold is not None and threshold > 100:
            self.add_error("threshold", A_RATE_IS_A_PERCENT)
        return cleaned


class RunViewForm(forms.Form):
    """Save the runs list as it is under a name (agents/run_views.py).

    A private view is a person's own preference: anyone who reads may save
    one. Sharing it publishes it to the workspace, a write like any other:
    `share_refusal` ("" when this person may write) refuses the box on the
    field, keeping the rest as typed (as Objects' SavedViewForm does)."""

    name = forms.CharField(max_length=80, label=gettext_lazy("View name"))
    shared = forms.BooleanField(required=False, label=gettext_lazy("Share with the workspace"))
    make_default = forms.BooleanField(required=False, label=gettext_lazy("Open Runs with this view"))
    # The runs page's query as it was when the form was shown (static/js/run_views.js keeps it current).
    query = forms.CharField(required=False, max_length=2000, widget=forms.HiddenInput)

    def __init__(self, *args, share_refusal: str = "", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.share_refusal = share_refusal

    def clean_shared(self) -> bool:
        shared = bool(self.cleaned_data.get("shared"))
        if shared and self.share_refusal:
            raise forms.ValidationError(self.share_refusal)
        return shared

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError(gettext("Give the view a name."))
        return name


class RerunEditForm(ChatForm):
    """Rerun with changes (agents/views/reruns.py): the run's message and event
    prefilled, edited, reviewed in words, then sent as a new run. `reviewed`
    is the review's own Send button's value: the digest of the input the
    review showed (agents/rerun_input.py). A submit without it, or with an
    input changed since the review, only shows what changes. The key is
    minted with the edit form and kept through the review, so a double Send
    is one new run."""

    reviewed = forms.CharField(required=False, max_length=64)
    thread_id = None  # type: ignore[assignment]  # a rerun is a new conversation
    after = None  # type: ignore[assignment]


class RerunBatchForm(forms.Form):
    """Rerun the failed runs a confirmation showed (agents/bulk_reruns.py):
    the filter it was drawn with and the run ids it listed (hidden fields
    named "run"); the service's list, read again, decides the rest. The
    form's key is the job's uid: a double submit is one job."""

    agent = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)
    since = forms.CharField(required=False, max_length=8, widget=forms.HiddenInput)
    idempotency_key = IdempotencyKeyField()

    def clean(self) -> dict[str, Any]:
        super().clean()
        self.cleaned_data["agent"] = uuid_or_empty(self.cleaned_data.get("agent") or "")
        picked = self.data.getlist("run")[:200] if hasattr(self.data, "getlist") else []
        self.cleaned_data["runs"] = [run_id.strip()[:128] for run_id in picked if run_id.strip()]
        return self.cleaned_data
