"""The palette's one field: the same form in the dialog on every page and on
the palette's own page (which works without JavaScript)."""

from __future__ import annotations

from django import forms
from django.urls import reverse
from django.utils.translation import gettext_lazy

from dashboard.palette.sources import QUERY_MAX


class PaletteForm(forms.Form):
    q = forms.CharField(
        label=gettext_lazy("Go to or find"),
        required=False,
        max_length=QUERY_MAX,
        help_text=gettext_lazy("Pages, agents, runs by id, approvals, objects, records, conversations, library items."),
    )

    def __init__(self, *args, listbox_id: str, results_id: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The WAI-ARIA combobox (APG "list autocomplete"): focus stays in the
        # field, the arrows move aria-activedescendant over the listbox's
        # options (static/js/palette.js); htmx asks the server as the person types.
        self.fields["q"].widget.attrs.update(
            {
                "type": "search",
                "role": "combobox",
                "aria-expanded": "false",
                "aria-controls": listbox_id,
                "aria-autocomplete": "list",
                "autocomplete": "off",
                "spellcheck": "false",
                "data-palette-input": "",
                "hx-get": reverse("palette"),
                "hx-trigger": "input changed delay:150ms, search",
                "hx-target": f"#{results_id}",
                "hx-swap": "outerHTML",
                "hx-sync": "this:replace",
            }
        )
