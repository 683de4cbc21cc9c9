"""Every form field renders through one template (templates/forms/field.html, named by
settings.FORM_RENDERER): label, widget, help and errors with ids, the widget described by both and
marked invalid, and one role=alert per field however many messages it has."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import Tag
from django import forms
from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse

from tests.html import form_values, one, parse, select, text_of

TEMPLATES = Path(settings.BASE_DIR) / "templates"
# Markup of its own, and why: pictures to pick are not a field's widget; the field builder's flags row
# holds a checkbox and a radio that is no form field; the approval note belongs to the approval row.
OWN_FIELD_MARKUP = {
    "forms/field.html",
    "objects/_appearance.html",  # the icon picker
    "studio/app.html",  # image and clip pickers
    "objects/_field_row.html",  # "Required" and "Title field" side by side, an existing field's fixed key
    "agents/approvals.html",  # the note of an approval row
}


class Sample(forms.Form):
    name = forms.CharField(help_text="What people call it.")
    code = forms.CharField(required=False)
    notify = forms.BooleanField(required=False, label="Tell me", help_text="By email.")
    size = forms.ChoiceField(choices=[("s", "Small"), ("l", "Large")], widget=forms.RadioSelect)

    def clean_code(self):
        raise forms.ValidationError(["Too short.", "Not a code."])


class MarkedSample(Sample):
    required_css_class = "required"


def group(bound) -> Tag:
    return one(str(bound.as_field_group()), ".form-field")


def test_a_refused_field_names_its_help_and_error_on_the_input():
    form = Sample(data={"name": "", "size": "s"})
    form.is_valid()
    field = group(form["name"])

    assert "has-error" in field["class"]
    assert text_of(one(field, "label[for=id_name]")) == "Name"
    assert text_of(one(field, "#id_name_helptext")) == "What people call it."
    error = one(field, "#id_name_error")
    assert (error["role"], text_of(error)) == ("alert", "This field is required.")
    widget = one(field, "input[name=name]")
    assert widget["aria-invalid"] == "true"
    assert widget["aria-describedby"].split() == ["id_name_helptext", "id_name_error"]


def test_several_messages_are_one_alert():
    form = Sample(data={"name": "x", "code": "ab", "size": "s"})
    form.is_valid()
    field = group(form["code"])

    assert len(select(field, "[role=alert]")) == 1
    assert [text_of(p) for p in select(one(field, "#id_code_error"), "p")] == ["Too short.", "Not a code."]
    assert one(field, "input[name=code]")["aria-describedby"] == "id_code_error"


def test_a_field_without_help_or_errors_describes_nothing():
    field = group(Sample()["code"])

    assert "has-error" not in field["class"]
    assert not select(field, "[role=alert], .help")
    assert not one(field, "input[name=code]").has_attr("aria-describedby")


def test_a_checkbox_comes_before_its_label_on_one_line():
    field = group(Sample()["notify"])

    inline = one(field, ".form-field--inline")
    assert [child.name for child in inline.find_all(recursive=False)] == ["input", "label"]
    assert one(inline, "label")["for"] == one(inline, "input")["id"] == "id_notify"
    assert one(inline, "input")["aria-describedby"] == "id_notify_helptext"


def test_a_choice_list_is_a_fieldset_described_by_its_error():
    form = Sample(data={"name": "x"})
    form.is_valid()
    field = group(form["size"])

    fieldset = one(field, "fieldset")
    assert text_of(one(fieldset, "legend")) == "Size"
    assert fieldset["aria-describedby"] == "id_size_error"
    assert [text_of(label) for label in select(fieldset, "label.choice-option")] == ["Small", "Large"]
    assert {radio["aria-invalid"] for radio in select(fieldset, "input[type=radio]")} == {"true"}
    assert len(select(field, "[role=alert]")) == 1


def test_required_fields_are_marked_where_the_form_asks_and_optional_ones_where_the_page_does():
    assert not select(str(Sample()["name"].as_field_group()), ".required-mark")
    assert one(str(MarkedSample()["name"].as_field_group()), "label .required-mark")
    assert not select(str(MarkedSample()["code"].as_field_group()), ".required-mark")

    optional = render_to_string("forms/field.html", {"field": Sample()["code"], "optional": True})
    assert text_of(one(optional, "label")) == "Code (optional)"


def test_no_template_writes_field_markup_of_its_own():
    own = sorted(
        str(path.relative_to(TEMPLATES))
        for path in TEMPLATES.rglob("*.html")
        if 'class="form-field' in path.read_text()
    )
    assert set(own) <= OWN_FIELD_MARKUP, set(own) - OWN_FIELD_MARKUP


@pytest.mark.django_db
def test_a_refused_key_form_keeps_the_label_and_names_the_error_on_the_input(logged_in_client):
    response = logged_in_client.post(reverse("keys:add"), {"label": "Acme", "secret": "not-a-key"})

    form = one(response.content, "#add-key-form")
    secret = one(form, "input[name=secret]")
    assert secret["aria-invalid"] == "true"
    assert secret["aria-describedby"].split() == ["id_secret_helptext", "id_secret_error"]
    assert "should start with svc_sk_" in text_of(one(form, "#id_secret_error[role=alert]"))
    assert len(select(form, "[role=alert]")) == 1
    typed = form_values(form)
    assert (typed["label"], typed["secret"]) == ("Acme", "")  # the label kept, the secret never echoed


@pytest.mark.django_db
def test_a_login_without_a_password_keeps_the_username_and_names_the_error(client, user):
    page = parse(client.post(reverse("login"), {"username": "alice", "password": ""}).content)

    password = one(page, "input[name=password]")
    assert password["aria-invalid"] == "true" and password["aria-describedby"] == "id_password_error"
    assert text_of(one(page, "#id_password_error[role=alert]")) == "This field is required."
    assert one(page, "input[name=username]")["value"] == "alice"
