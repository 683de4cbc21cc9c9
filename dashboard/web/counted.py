"""Length-limited text that is never cut: "never lose a word" (issue #21).

A plain `CharField(max_length=...)` puts `maxlength` on its box, and the
browser then cuts a long paste at the limit without a word, so the cut text
is what gets sent. A `CountedCharField` keeps the limit as data instead
(`data-max-length`, `data-limit-noun`) for the counter after the box
(`forms/widgets/counted_textarea.html`, `counted_input.html`) and for
`static/js/counted.js`, which shows the excess in the error colour and
refuses the send in words; the field refuses an over-long text itself, in
the same words, so without JavaScript the server says it in place and
everything typed comes back in the box. Any area's form uses it (the
Studio's composer and Content App fields, the Agents' messages and notes).
"""

from __future__ import annotations

from typing import Any

from django import forms

from dashboard.web.local_formats import integer


def over_limit_words(noun: str, limit: int, count: int) -> str:
    """The refusal of a text over its limit, in words: what the limit is, how
    long the text is and by how much it is over. static/js/counted.js builds
    the very same sentence (formatCount, refusal) when it blocks the send, so
    a person reads one message whether or not JavaScript ran."""
    over = count - limit
    unit = "character" if over == 1 else "characters"
    return (
        f"{noun} can be at most {integer(limit)} characters; this one has {integer(count)}, {integer(over)} {unit} over. "
        "Shorten it to send it."
    )


class CountedTextarea(forms.Textarea):
    """A text box with its live character counter after it (static/js/counted.js)."""

    template_name = "forms/widgets/counted_textarea.html"


class CountedTextInput(forms.TextInput):
    """A one-line text box with the same counter."""

    template_name = "forms/widgets/counted_input.html"


class CountedCharField(forms.CharField):
    """Text with a length limit that is never enforced by truncating it (see
    the module). `limit=None`: the form checks the length itself (a limit that
    follows another field, like the Studio message's chosen studio: the box
    then names that select in `data-limit-select`)."""

    def __init__(self, *, limit: int | None, noun: str = "This text", **kwargs: Any):
        self.limit, self.noun = limit, noun
        kwargs.setdefault("widget", CountedTextarea)
        super().__init__(**kwargs)

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        attrs = super().widget_attrs(widget)
        if self.limit is not None and not widget.is_hidden:
            attrs.update({"data-max-length": str(self.limit), "data-limit-noun": self.noun})
        return attrs

    def validate(self, value: Any) -> None:
        super().validate(value)
        if self.limit is not None and value and len(value) > self.limit:
            raise forms.ValidationError(over_limit_words(self.noun, self.limit, len(value)), code="max_length")
