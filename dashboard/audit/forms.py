from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy
from django.utils.translation import gettext_lazy as _

from dashboard.audit.models import AuditEntry
from dashboard.audit.selectors import AuditFilter


class AuditFilterForm(forms.Form):
    """The Audit page's filters (a GET form: the URL holds them)."""

    person = forms.ChoiceField(label=_("Person"), required=False)
    area = forms.ChoiceField(label=_("Area"), required=False)
    kind = forms.ChoiceField(label=_("Kind"), required=False, choices=[("", _("Every kind")), *AuditEntry.KINDS])
    since = forms.DateField(required=False, label=gettext_lazy("From"), widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, label=gettext_lazy("To"), widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, people: list[str], areas: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        person, area = self.fields["person"], self.fields["area"]
        assert isinstance(person, forms.ChoiceField) and isinstance(area, forms.ChoiceField)
        person.choices = [("", _("Everyone")), *((name, name) for name in people)]
        area.choices = [("", _("Every area")), *((name, name.capitalize()) for name in areas)]

    def audit_filter(self) -> AuditFilter:
        """The filters that are valid; an invalid one (a hand-made URL) is left out."""
        if not self.is_bound:
            return AuditFilter()
        self.is_valid()  # fills cleaned_data with the fields that are valid
        data = self.cleaned_data
        return AuditFilter(
            username=data.get("person") or "",
            area=data.get("area") or "",
            kind=data.get("kind") or "",
            since=data.get("since"),
            until=data.get("until"),
        )
