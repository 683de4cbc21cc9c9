"""The import's pieces: columns matched to fields by label or key, each
cell read with the object's field rules, and an unreadable file refused at
upload with a message in place (nothing stored, no job)."""

from __future__ import annotations

import io
from zoneinfo import ZoneInfo

import httpx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from objects.fields import field_defs
from objects.imports import ImportFileError, RowChecker, read_rows, scan, suggested_mapping
from objects.models import ObjectJob
from tests.html import parse, select
from tests.objects.records_fixtures import DEALS, OBJECT_KEY


def test_columns_are_matched_by_label_or_key_whatever_the_case():
    header = ["NAME", "close date", "Meeting_At", "Status", "status", "unknown"]
    assert suggested_mapping(header, field_defs(DEALS)) == {
        "0": "name",
        "1": "close_date",
        "2": "meeting_at",
        "3": "status",
    }


def test_cells_are_read_with_the_field_rules():
    mapping = {"0": "name", "1": "seats", "2": "active", "3": "tags", "4": "status", "5": "meeting_at", "6": "email"}
    checker = RowChecker(definition=DEALS, mapping=mapping, zone=ZoneInfo("Europe/Paris"))
    values, problems = checker.values(["Acme", "12.5", "Yes", "hot; VIP", "opt-lost", "2026-11-23 14:15", "a@b.test"])
    assert problems == {}
    assert values == {
        "name": "Acme",
        "seats": 12.5,
        "active": True,
        "tags": ["opt-hot", "opt-vip"],
        "status": "opt-lost",
        "meeting_at": "2026-11-23T13:15:00Z",
        "email": "a@b.test",
    }
    values, problems = checker.values(["", "many", "perhaps", "Hot; Cold", "", "", "not an email"])
    assert problems == {
        "seats": "Seats: Enter a number.",
        "active": "Active: write yes or no.",
        "tags": "Tags: “Cold” is not one of: Hot, VIP.",
        "email": "Email: Enter a valid email address.",
        "name": "Name: this field is required.",
    }


def test_rows_keep_their_numbers_across_blank_lines_and_quoted_newlines():
    data = b'\xef\xbb\xbfName,Notes\nA,"two\nlines"\n\nB,x\n'
    header, total, sample = scan(io.BytesIO(data))
    assert (header, total) == (["Name", "Notes"], 2)
    rows = list(read_rows(io.BytesIO(data)))
    assert [(r.number, r.cells) for r in rows] == [(1, ["A", "two\nlines"]), (3, ["B", "x"])]


def test_a_file_that_is_not_utf8_is_refused_at_upload(console, remote, user):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    upload = SimpleUploadedFile("people.csv", "Name\nJosé\n".encode("latin-1"), content_type="text/csv")
    response = console.post(f"/objects/{OBJECT_KEY}/import/", {"file": upload})
    assert response.status_code == 200
    errors = select(parse(response.content), "#import-file-error")
    assert "Line 2 is not UTF-8 text" in errors[0].get_text()
    assert not ObjectJob.objects.exists()


def test_an_empty_file_is_refused():
    with pytest.raises(ImportFileError, match="empty"):
        scan(io.BytesIO(b"\n\n"))


pytestmark = pytest.mark.django_db
