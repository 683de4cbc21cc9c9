"""The demo workspace seed, key kinds, and state that survives a restart."""

from __future__ import annotations

import re

import pytest

from sandbox.admin import mint_key
from sandbox.testing import start_sandbox
from tests.sandbox.support import all_pages, http_client


def test_the_demo_workspace_has_companies_contacts_and_deals_with_links(fresh_api):
    counts = {
        key: len(all_pages(fresh_api, f"/v1/objects/{key}/records", {"limit": 100}))
        for key in ("companies", "contacts", "deals")
    }
    assert counts == {"companies": 60, "contacts": 150, "deals": 90}
    deals = fresh_api.get("/v1/objects/deals").json()
    types = {f["key"]: f["type"] for f in deals["fields"]}
    assert types["stage"] == "stage" and types["amount"] == "currency" and types["close_date"] == "date"
    assert types["priority"] == "select" and types["renewal"] == "boolean"
    deal = fresh_api.get("/v1/objects/deals/records", params={"limit": 1}).json()["data"][0]
    links = all_pages(fresh_api, f"/v1/objects/deals/records/{deal['id']}/relationships")
    assert "company" in {link["relation_key"] for link in links}
    company_id = next(link["record_id"] for link in links if link["relation_key"] == "company")
    back = all_pages(fresh_api, f"/v1/objects/companies/records/{company_id}/relationships", {"limit": 100})
    assert any(link["record_id"] == deal["id"] and link["direction"] == "incoming" for link in back)


def test_the_seed_is_deterministic(fresh_api):
    other = start_sandbox()
    try:
        with http_client(other, other.demo_key) as client:
            theirs = [
                (r["id"], r["values"])
                for r in all_pages(client, "/v1/objects/contacts/records", {"limit": 100, "sort": "created_at"})
            ]
        mine = [
            (r["id"], r["values"])
            for r in all_pages(fresh_api, "/v1/objects/contacts/records", {"limit": 100, "sort": "created_at"})
        ]
        assert [i for i, _ in mine] == [i for i, _ in theirs]
        assert [v["full_name"] for _, v in mine] == [v["full_name"] for _, v in theirs]
    finally:
        other.stop()


@pytest.mark.parametrize(
    "kind, workspace, role",
    [
        ("demo", "Acme Marketing", "admin"),
        ("member", "Acme Marketing", "member"),
        ("readonly", "Acme Marketing", "viewer"),
        ("no_credits", "Initech Trial", "admin"),
        ("other_workspace", "Globex Research", "admin"),
    ],
)
def test_me_for_each_key_kind(sandbox, kind, workspace, role):
    key = sandbox.mint_key(kind)
    with http_client(sandbox, key) as client:
        me = client.get("/v1/me").json()
    assert me["workspace"]["name"] == workspace
    assert me["member"]["role"] == role
    assert me["workspace"]["timezone"] and re.fullmatch(r"[0-9a-f-]{36}", me["workspace"]["id"])
    assert key.startswith(me["key"]["prefix"]) and me["key"]["prefix"].startswith("svc_sk_")
    assert key not in str(me)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", me["key"]["created_at"])


def test_state_and_keys_survive_a_restart_with_a_file_database(tmp_path):
    db = tmp_path / "sandbox.sqlite3"
    first = start_sandbox(db_path=str(db))
    key = first.demo_key
    with http_client(first, key) as client:
        created = client.post("/v1/objects/deals/records", json={"values": {"name": "Survives"}}).json()
        companies = len(all_pages(client, "/v1/objects/companies/records", {"limit": 100}))
    first.stop()
    offline_key = mint_key(db_path=str(db), kind="readonly")  # the bootstrap's way, no server running
    second = start_sandbox(db_path=str(db))
    try:
        with http_client(second, key) as client:
            assert client.get(f"/v1/objects/deals/records/{created['id']}").json()["values"]["name"] == "Survives"
            assert len(all_pages(client, "/v1/objects/companies/records", {"limit": 100})) == companies  # no reseed
        with http_client(second, offline_key) as client:
            assert client.get("/v1/me").json()["member"]["role"] == "viewer"
    finally:
        second.stop()


def test_a_seed_step_added_later_runs_once_on_an_already_seeded_database(tmp_path, monkeypatch):
    from sandbox import seed

    db = tmp_path / "sandbox.sqlite3"
    start_sandbox(db_path=str(db)).stop()
    runs = []
    monkeypatch.setattr(seed, "SEED_HOOKS", [*seed.SEED_HOOKS, (999, "added_later", lambda ctx: runs.append(1))])

    start_sandbox(db_path=str(db)).stop()
    start_sandbox(db_path=str(db)).stop()

    assert runs == [1]
