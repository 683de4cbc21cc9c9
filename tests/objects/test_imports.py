"""The import's pieces: columns matched to fields by label or key, each
cell read with the object's field rules, and an unreadable file refused at
upload with a message in place (nothing stored, no job)."""

from __future__ import annotations

import io
from zoneinfo import ZoneInfo

import httpx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from dashboard.jobs import engine
from objects.fields import field_defs
from objects.import_files import FileFormat, ImportFileError, read_rows, scan, sniff_format
from objects.import_mapping import column_candidates, suggested_mapping
from objects.imports import RowChecker
from objects.models import ObjectJob
from tests.html import one, parse, select, text_of
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
    # The spreadsheet's lines: the header is line 1, A takes lines 2-3, line 4 is blank, B is line 5.
    assert [(r.line, r.end_line) for r in rows] == [(2, 3), (5, 5)]
    # A resumed read goes on counting from where the row before it ended.
    resumed = list(read_rows(io.BytesIO(data), start=rows[0].end, first_number=2, first_line=rows[0].end_line + 1))
    assert [(r.number, r.line) for r in resumed] == [(3, 5)]


def test_header_names_match_fields_loosely_and_the_likely_ones_are_offered():
    fields = field_defs(DEALS)
    header = ["E-mail address", "Phone number", "Full name", "Web site", "Seat", "Comment (ignored)", "Meetings"]
    # A singular or plural of a field's name is that field ("Seat": Seats).
    assert suggested_mapping(header, fields) == {"0": "email", "1": "phone", "2": "name", "3": "website", "4": "seats"}
    # Names only alike are offered first in the column's list, never chosen for the person.
    assert column_candidates("Meetings", fields)[0] == "meeting_at"
    assert column_candidates("Comment (ignored)", fields) == []


def _french_lines(separator: str) -> str:
    rows = [("José Müller", "Crème brûlée à la carte"), ("Zoë Brontë", "Déjà vu, naïve café")] * 5
    return f"Name{separator}Notes\n" + "".join(f'{a}{separator}"{b}"\n' for a, b in rows)


def test_a_latin1_file_is_read_in_its_own_encoding(console, remote, user):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    upload = SimpleUploadedFile("people.csv", _french_lines(",").encode("latin-1"), content_type="text/csv")
    response = console.post(f"/objects/{OBJECT_KEY}/import/", {"file": upload})
    assert response.status_code == 302
    job = ObjectJob.objects.get()
    assert job.params["delimiter"] == ","
    assert job.params["encoding"] != "utf-8"
    assert job.total == 10
    page = parse(console.get(f"/objects/imports/{job.pk}/columns/").content)
    examples = [text_of(e) for e in select(page, ".import-example")]
    assert "José Müller" in examples and "Crème brûlée à la carte" in examples
    assert "Windows-1252 text separated by commas" in text_of(one(page, "main p.muted"))
    with job.upload.open("rb") as handle:
        cells = [row.cells for row in read_rows(handle, file_format=FileFormat.of(job.params))]
    assert cells[1] == ["Zoë Brontë", "Déjà vu, naïve café"]


@pytest.mark.parametrize("separator, named", [(";", "semicolons"), ("\t", "tabs")])
def test_semicolon_and_tab_separated_files_are_sniffed(separator, named):
    data = _french_lines(separator).replace("Name", "Name" + separator + "E-mail address").encode("utf-8")
    data = data.replace(b"\n", b"\n", 1)
    file_format = sniff_format(io.BytesIO(data))
    assert (file_format.encoding, file_format.delimiter) == ("utf-8", separator)
    assert file_format.described == f"UTF-8 text separated by {named}"
    header, _total, sample = scan(io.BytesIO(data), file_format)
    assert header == ["Name", "E-mail address", "Notes"]
    assert suggested_mapping(header, field_defs(DEALS)) == {"0": "name", "1": "email", "2": "notes"}


def test_a_utf16_file_is_refused_at_upload_with_the_reason_in_place(console, remote, user):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    upload = SimpleUploadedFile("people.csv", "Name\nJosé\n".encode("utf-16"), content_type="text/csv")
    response = console.post(f"/objects/{OBJECT_KEY}/import/", {"file": upload})
    assert response.status_code == 200
    error = one(response.content, "#id_file_error[role=alert]")
    assert "The file is UTF-16 text" in text_of(error)
    assert one(response.content, "input[name=file]")["aria-describedby"].split() == [
        "id_file_helptext",
        "id_file_error",
    ]
    assert not ObjectJob.objects.exists()


def test_an_unmapped_required_field_is_flagged_on_the_mapping_page(console, remote, user):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    upload = SimpleUploadedFile("people.csv", b"Customer,E-mail\nAcme,a@b.test\n", content_type="text/csv")
    console.post(f"/objects/{OBJECT_KEY}/import/", {"file": upload})
    job = ObjectJob.objects.get()
    url = f"/objects/imports/{job.pk}/columns/"
    page = parse(console.get(url).content)
    assert "No column fills the required field Name" in text_of(one(page, ".import-map__missing"))
    assert one(page, "select[name=col_1] option[selected]")["value"] == "email"
    # Without a key, every row makes a record: the dry run is refused until Name is mapped, nothing lost.
    refused = console.post(url, {"col_0": "", "col_1": "email", "match_key": ""})
    assert refused.status_code == 200
    alert = one(refused.content, "#import-map-errors[role=alert]")
    assert "No column fills the required field Name" in text_of(alert)
    assert one(refused.content, "select[name=col_1] option[selected]")["value"] == "email"
    job.refresh_from_db()
    assert job.status == ObjectJob.MAPPING
    # Rows that only update records matched by email need no Name: accepted.
    accepted = console.post(url, {"col_0": "", "col_1": "email", "match_key": "email", "match_mode": "update"})
    assert accepted.status_code == 302
    job.refresh_from_db()
    assert (job.status, job.params["match_key"], job.params["match_mode"]) == ("checking", "email", "update")


def test_an_empty_file_is_refused():
    with pytest.raises(ImportFileError, match="empty"):
        scan(io.BytesIO(b"\n\n"))


pytestmark = pytest.mark.django_db


def _import_job(user, api_key, *, status: str, days_ago: float) -> ObjectJob:
    import uuid
    from datetime import timedelta

    from django.core.files.base import ContentFile
    from django.utils import timezone

    from objects.models import ImportProblem

    job = ObjectJob(
        uid=uuid.uuid4(),
        owner_key=api_key,
        started_by=user,
        workspace_id=api_key.workspace_id,
        object_key=OBJECT_KEY,
        kind=ObjectJob.KIND_IMPORT,
        title="Import people.csv",
        status=status,
        resume_status=ObjectJob.RUNNING if status == ObjectJob.STOPPED else "",
        params={"header": ["Name", "Seats"], "mapping": {"0": "name", "1": "seats"}},
        total=2,
        processed=2,
        succeeded=1,
        failed=1,
    )
    job.upload.save(f"{job.uid}.csv", ContentFile(b"Name,Seats\nAcme,3\nBeta,lots\n"), save=False)
    job.save()
    ImportProblem.objects.create(
        job=job, row_number=2, line=3, stage=ImportProblem.CHECK, fields="seats", message="Seats: enter a number."
    )
    ObjectJob.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(days=days_ago))
    job.refresh_from_db()
    return job


def test_uploaded_files_are_removed_after_the_days_kept_and_the_problems_stay(
    console, user, api_key, settings, tmp_path
):
    import csv

    from objects.jobs import uploads_prune
    from objects.models import import_storage

    settings.OBJECTS_IMPORT_ROOT = str(tmp_path / "imports")
    settings.OBJECTS_IMPORT_KEEP_DAYS = 30
    done = _import_job(user, api_key, status=ObjectJob.DONE, days_ago=31)
    waiting = _import_job(user, api_key, status=ObjectJob.CHECKED, days_ago=31)
    running = _import_job(user, api_key, status=ObjectJob.RUNNING, days_ago=31)
    recent = _import_job(user, api_key, status=ObjectJob.DONE, days_ago=29)
    files = {job.pk: job.upload.name for job in (done, waiting, running, recent)}

    assert uploads_prune() == 2

    storage = import_storage()
    assert [storage.exists(files[job.pk]) for job in (done, waiting, running, recent)] == [False, False, True, True]
    for job in (done, waiting, running, recent):
        job.refresh_from_db()
    assert (done.status, done.file_removed) == ("done", True)
    assert (waiting.status, waiting.file_removed) == ("cancelled", True)
    assert waiting.message == "Cancelled: its file was removed after 30 days without use."
    assert not running.file_removed and not recent.file_removed

    # The page keeps the problems and offers nothing that needs the file.
    page = parse(console.get(f"/objects/jobs/{done.pk}/").content)
    assert select(page, ".job__file-removed")
    assert not [b for b in select(page, "button") if b.get_text(strip=True) in {"Run again", "Import", "Resume"}]
    refused = console.post(f"/objects/jobs/{done.pk}/run/")
    assert refused.status_code == 302
    done.refresh_from_db()
    assert done.status == "done"
    # The report lists each problem by its row number, the file's cells left empty.
    report = b"".join(console.get(f"/objects/jobs/{done.pk}/problems.csv").streaming_content).decode("utf-8-sig")
    assert list(csv.reader(io.StringIO(report))) == [
        ["Line", "Name", "Seats", "Problem", "Fields", "Request id"],
        ["3", "", "", "Seats: enter a number.", "seats", ""],
    ]
    assert uploads_prune() == 0  # nothing left to remove


def test_a_merge_reads_one_row_at_a_time_waits_on_429_and_sends_only_what_differs(
    console, remote, user, api_key, monkeypatch
):
    import json
    import uuid

    from django.core.files.base import ContentFile

    from objects import jobs
    from objects.imports import reset_for_writing, tally_of
    from tests.objects.records_fixtures import error_body, page, record

    sent: list[tuple[int, float | None]] = []
    monkeypatch.setattr(engine, "send_step", lambda kind, job_id, countdown=None: sent.append((job_id, countdown)))
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    same = record("rec-1", "Acme", email="a@x.test", seats=3)
    differs = record("rec-2", "Beta", email="b@x.test", seats=4, notes="kept")
    answers = {
        "a@x.test": [httpx.Response(200, json=page([same]))],
        "b@x.test": [httpx.Response(200, json=page([differs]))],
        "c@x.test": [
            httpx.Response(429, headers={"Retry-After": "7"}, json=error_body("rate_limited", "Slow down.")),
            httpx.Response(200, json=page([])),
        ],
    }

    def lookup(request):
        wanted = json.loads(request.url.params["filter"])["email"]
        assert request.url.params["limit"] == "2"
        queue = answers[wanted]
        return queue.pop(0) if len(queue) > 1 else queue[0]

    reads = remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(side_effect=lookup)
    job = ObjectJob(
        uid=uuid.uuid4(),
        owner_key=api_key,
        started_by=user,
        workspace_id=api_key.workspace_id,
        object_key=OBJECT_KEY,
        kind=ObjectJob.KIND_IMPORT,
        title="Import people.csv",
        status=ObjectJob.CHECKING,
        params={
            "header": ["Name", "E-mail", "Seats"],
            "mapping": {"0": "name", "1": "email", "2": "seats"},
            "match_key": "email",
            "match_mode": "update",
        },
        total=3,
    )
    job.upload.save(
        f"{job.uid}.csv",
        ContentFile(b"Name,E-mail,Seats\nAcme,a@x.test,3\nBeta,b@x.test,5\nCid,c@x.test,1\n"),
        save=False,
    )
    job.save()

    engine.job_step(jobs.KIND, job.pk)
    job.refresh_from_db()
    # The 429 ends the chunk where it stood: two rows checked, the third read again after Retry-After.
    assert (job.status, job.position_row, job.position_line) == ("checking", 2, 3)
    assert job.message.startswith("Waiting: ")
    assert sent == [(job.pk, 7.0)]
    ObjectJob.objects.filter(pk=job.pk).update(lease_until=None)
    engine.job_step(jobs.KIND, job.pk)
    job.refresh_from_db()
    assert job.status == ObjectJob.CHECKED
    assert tally_of(job, "dry_run") == {"created": 1, "updated": 1, "unchanged": 1, "skipped": 0}
    assert len(reads.calls) == 4  # one read per row (and the one refused)

    patched = remote.patch(f"/v1/objects/{OBJECT_KEY}/records/rec-2").mock(
        return_value=httpx.Response(200, json=differs)
    )
    created = remote.post(f"/v1/objects/{OBJECT_KEY}/records").mock(
        return_value=httpx.Response(201, json=record("rec-3", "Cid"))
    )
    jobs.job_run(job=job, status=ObjectJob.RUNNING, reset=reset_for_writing)
    engine.job_step(jobs.KIND, job.pk)
    job.refresh_from_db()
    assert (job.status, tally_of(job, "tally")) == ("done", {"created": 1, "updated": 1, "unchanged": 1, "skipped": 0})
    # Only the field that differs, with the row's own key from the job; the unchanged row sends nothing.
    assert json.loads(patched.calls[0].request.content) == {"values": {"seats": 5}}
    assert patched.calls[0].request.headers["Idempotency-Key"] == str(uuid.uuid5(job.uid, "row:2:update"))
    assert created.calls[0].request.headers["Idempotency-Key"] == str(uuid.uuid5(job.uid, "row:3"))
    assert (len(patched.calls), len(created.calls)) == (1, 1)


def _merge_job(user, api_key, body: bytes, total: int) -> ObjectJob:
    import uuid

    from django.core.files.base import ContentFile

    job = ObjectJob(
        uid=uuid.uuid4(),
        owner_key=api_key,
        started_by=user,
        workspace_id=api_key.workspace_id,
        object_key=OBJECT_KEY,
        kind=ObjectJob.KIND_IMPORT,
        title="Import people.csv",
        status=ObjectJob.CHECKING,
        params={
            "header": ["Name", "E-mail", "Seats"],
            "mapping": {"0": "name", "1": "email", "2": "seats"},
            "match_key": "email",
            "match_mode": "update",
        },
        total=total,
    )
    job.upload.save(f"{job.uid}.csv", ContentFile(body), save=False)
    job.save()
    return job


@pytest.mark.parametrize("pages", [1, 3])
def test_a_small_object_is_read_whole_once_per_chunk_and_a_large_one_row_by_row(
    console, remote, user, api_key, monkeypatch, settings, pages
):
    import json

    from objects import jobs
    from objects.imports import tally_of
    from tests.objects.records_fixtures import page, record

    settings.OBJECTS_JOB_CHUNK = 8
    monkeypatch.setattr(engine, "send_step", lambda kind, job_id, countdown=None: None)
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    known = [record(f"rec-{n}", f"P{n}", email=f"p{n}@x.test", seats=n) for n in range(4)]

    def answer(request):
        if "filter" in request.url.params:  # one row's lookup
            wanted = json.loads(request.url.params["filter"])["email"]
            return httpx.Response(200, json=page([r for r in known if r["values"]["email"] == wanted]))
        assert (request.url.params["limit"], request.url.params["sort"]) == ("100", "created_at")
        cursor = int(request.url.params.get("cursor") or 0)
        more = str(cursor + 1) if cursor + 1 < pages else None
        return httpx.Response(200, json=page(known if cursor == 0 else [], next_cursor=more))

    reads = remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(side_effect=answer)
    body = "Name,E-mail,Seats\n" + "".join(f"P{n},p{n}@x.test,{n}\n" for n in range(8))
    job = _merge_job(user, api_key, body.encode(), total=8)

    engine.job_step(jobs.KIND, job.pk)
    job.refresh_from_db()
    assert job.status == ObjectJob.CHECKED
    assert tally_of(job, "dry_run") == {"created": 4, "updated": 0, "unchanged": 4, "skipped": 0}
    lookups = [call for call in reads.calls if "filter" in call.request.url.params]
    if pages == 1:
        # 8 rows, an object of one page: one read for the chunk, none per row.
        assert (len(reads.calls), len(lookups)) == (1, 0)
        assert "match_by_row" not in job.params
    else:
        # Larger than the chunk's budget (8 rows // 4 = 2 pages): one read per row from then on.
        assert (len(reads.calls), len(lookups)) == (2 + 8, 8)
        assert job.params["match_by_row"] is True
