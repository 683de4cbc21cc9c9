"""Schema pages (objects list, new object, object settings) against a mocked
service (respx): what each page sends and shows, errors in place, idempotency,
and the definition cache."""

from __future__ import annotations

import re

import httpx
import pytest
from bs4 import Tag

from objects.schema import FIELD_TYPES, ICONS
from tests.html import one, parse, select, text_of, texts
from tests.objects.records_fixtures import error_body, hidden_value, sent_json
from tests.objects.support import SECRET, WORKSPACE_ID

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def input_values(html: str | bytes | Tag, name: str) -> list[str]:
    """The values of the inputs named `name`, in page order (the option rows repeat a name)."""
    return [element.get("value", "") for element in select(html, f'input[name="{name}"]')]


def field_error(html: str | bytes | Tag, name: str) -> str:
    """The error text shown on the input named `name` (its field group's error block)."""
    group = one(html, f'[name="{name}"]').find_parent(class_="form-field")
    assert group is not None, f"{name} is in no field group"
    return text_of(one(group, ".field-error"))


LEADS = {
    "id": "0b6a3c1e-0000-4000-8000-00000000aaaa",
    "key": "sales_leads",
    "kind": "custom",
    "singular_name": "Sales lead",
    "plural_name": "Sales leads",
    "description": "People who might buy",
    "icon": "Users",
    "color": "#3b82f6",
    "title_field": "name",
    "fields": [
        {"key": "name", "label": "Name", "type": "text", "required": True},
        {
            "key": "stage",
            "label": "Stage",
            "type": "stage",
            "required": False,
            "options": [
                {"id": "opt-new", "label": "New", "color": "#22c55e"},
                {"id": "opt-won", "label": "Won", "color": "#f59e0b"},
            ],
        },
        {"key": "created_by", "label": "Created by", "type": "text", "required": False, "origin": "system"},
    ],
}


def new_object_post(**overrides) -> dict:
    """The new-object form as a browser posts it: two fields, the second a select with two options."""
    data = {
        "idempotency_key": "5b0f0c4e-1111-4222-8333-444455556666",
        "singular_name": "Sales lead",
        "plural_name": "Sales leads",
        "description": "People who might buy",
        "icon": "Users",
        "color": "#3b82f6",
        "fields-TOTAL_FORMS": "2",
        "fields-INITIAL_FORMS": "0",
        "fields-MIN_NUM_FORMS": "1",
        "fields-MAX_NUM_FORMS": "1000",
        "fields-0-label": "Full name",
        "fields-0-key": "",
        "fields-0-type": "text",
        "fields-0-required": "on",
        "fields-1-label": "Temperature",
        "fields-1-key": "temp",
        "fields-1-type": "select",
        "fields-1-option_id": ["", ""],
        "fields-1-option_label": ["Hot", "Cold"],
        "fields-1-option_color": ["#ef4444", "#3b82f6"],
        "title_row": "0",
    }
    data.update(overrides)
    return data


# ---- Objects list ------------------------------------------------------------


def test_objects_list_shows_custom_objects_with_icon_colour_names_key_and_field_count(console, remote):
    route = remote.get("/v1/objects").mock(
        return_value=httpx.Response(200, json={"data": [LEADS], "next_cursor": None})
    )

    response = console.get("/objects/")

    assert response.status_code == 200
    assert route.call_count == 1
    assert dict(route.calls.last.request.url.params) == {"kind": "custom", "limit": "25"}
    page = parse(response.content)
    row = one(page, "table.object-table tbody tr")
    name, key, field_count = row.select("td")[:3]
    assert text_of(one(name, ".object-name")) == "Sales leads (Sales lead)"
    assert text_of(one(key, "code")) == "sales_leads"
    assert one(name, ".object-icon")["data-color"] == "#3b82f6"
    assert one(name, ".object-icon img")["src"].endswith("vendor/lucide/users.svg")
    assert (text_of(field_count), field_count["class"]) == ("3", ["text-right"])
    assert "/objects/sales_leads/settings/" in [a["href"] for a in row.select("a")]
    assert select(page, "nav.pager") == [] and "Next page" not in text_of(page)


def test_objects_list_system_tab_asks_for_system_objects(console, remote):
    agents = {"key": "agents", "kind": "system", "singular_name": "Agent", "plural_name": "Agents", "fields": []}
    route = remote.get("/v1/objects").mock(return_value=httpx.Response(200, json={"objects": [agents]}))

    response = console.get("/objects/?kind=system")

    assert route.calls.last.request.url.params["kind"] == "system"
    page = parse(response.content)
    assert texts(page, "table.object-table tbody code") == ["agents"]
    assert [a["href"] for a in select(page, '#object-list nav a[aria-current="page"]')] == ["?kind=system"]


def test_objects_list_pages_forward_and_back_with_the_cursor_trail_in_the_url(console, remote):
    route = remote.get("/v1/objects").mock(
        side_effect=[
            httpx.Response(200, json={"data": [LEADS], "next_cursor": "cur2"}),
            httpx.Response(200, json={"data": [LEADS], "next_cursor": "cur3"}),
        ]
    )

    first = one(console.get("/objects/").content, "nav.pager")
    assert [(a["rel"], a["href"]) for a in first.select("a")] == [(["next"], "?kind=custom&back=&cursor=cur2")]

    second = console.get("/objects/?kind=custom&back=&cursor=cur2", **HTMX)
    assert route.calls.last.request.url.params["cursor"] == "cur2"
    page = parse(second.content)
    assert page.find("html") is None  # the htmx request gets only the list region
    assert one(page, "#object-list")
    links = {a["rel"][0]: a for a in page.select("nav.pager a")}
    assert links["next"]["href"] == "?kind=custom&back=&back=cur2&cursor=cur3"
    assert links["prev"]["href"] == links["prev"]["hx-get"] == "?kind=custom"  # back to the first page
    assert text_of(one(page, "nav.pager .muted")) == "Page 2"


@pytest.mark.parametrize(
    ("status", "error_type", "expected"),
    [
        (401, "authentication", "refused your API key"),
        (403, "permission", "req_list_err"),
        (429, "rate_limited", "req_list_err"),
        (500, "server_error", "req_list_err"),
    ],
)
def test_objects_list_remote_errors_render_a_message_with_the_request_id(console, remote, status, error_type, expected):
    remote.get("/v1/objects").mock(
        return_value=httpx.Response(status, json=error_body(error_type, "nope", request_id="req_list_err"))
    )

    response = console.get("/objects/", **HTMX)

    assert response.status_code == 200  # htmx swaps it in place
    html = response.content.decode()
    shown = text_of(one(html, ".remote-error"))
    assert "req_list_err" in shown and expected in shown
    assert "Traceback" not in html


# ---- New object --------------------------------------------------------------


def test_new_object_page_offers_every_field_type_the_icons_and_a_fresh_idempotency_key(console, remote):
    response = console.get("/objects/new/")

    assert response.status_code == 200
    html = response.content.decode()
    page = parse(html)
    offered = [(option["value"], text_of(option)) for option in select(page, 'select[name="fields-0-type"] option')]
    assert offered == [(str(value), label) for value, label in FIELD_TYPES]
    assert len(FIELD_TYPES) == 15
    assert input_values(page, "icon") == ICONS
    assert [radio["value"] for radio in select(page, "input[name=icon][checked]")] == ["Box"]  # Box by default
    assert re.fullmatch(r"[0-9a-f-]{36}", hidden_value(html, "idempotency_key"))
    assert one(page, 'input[name="fields-TOTAL_FORMS"]') and one(page, 'input[name="fields-0-label"]')
    assert len(remote.calls) == 0  # rendering the form costs no remote call


def test_derived_key_preview_follows_the_plural_name(console):
    response = console.get("/objects/new/key/", {"plural_name": "Sales leads"}, **HTMX)

    assert response.status_code == 200
    assert text_of(one(response.content, "#derived-key code")) == "sales_leads"


def test_add_field_row_in_place_returns_the_next_row_and_the_new_total(console):
    response = console.get("/objects/builder/field-row/", {"fields-TOTAL_FORMS": "3", "title": "1"}, **HTMX)

    page = parse(response.content)
    assert one(page, 'input[name="fields-3-label"]') and one(page, 'select[name="fields-3-type"]')
    assert input_values(page, "title_row") == ["3"]
    total = one(page, 'input[name="fields-TOTAL_FORMS"]')
    assert (total["value"], total["hx-swap-oob"]) == ("4", "true")


def test_removing_a_new_row_leaves_its_delete_mark(console):
    response = console.get("/objects/builder/field-row/removed/", {"index": "2"}, **HTMX)

    mark = one(response.content, 'input[name="fields-2-DELETE"]')
    assert (mark["type"], mark["value"]) == ("hidden", "on")


def test_add_option_row_in_place_gets_the_next_palette_colour(console):
    response = console.get(
        "/objects/builder/option-row/", {"prefix": "fields-1", "fields-1-option_label": ["Hot", "Cold"]}, **HTMX
    )

    assert input_values(response.content, "fields-1-option_label") == [""]
    assert input_values(response.content, "fields-1-option_color") == ["#f59e0b"]  # the third palette colour


def test_without_javascript_add_field_and_add_option_rerender_the_form_keeping_everything(console, remote):
    data = new_object_post(add_field="1")
    response = console.post("/objects/create/", data)

    page = parse(response.content)
    assert response.status_code == 200
    assert len(remote.calls) == 0
    assert input_values(page, "fields-2-label") == [""]
    assert input_values(page, "fields-0-label") == ["Full name"]
    assert input_values(page, "fields-1-label") == ["Temperature"]
    assert input_values(page, "fields-1-option_label") == ["Hot", "Cold"]

    response = console.post("/objects/create/", new_object_post(add_option="fields-1"))
    assert input_values(response.content, "fields-1-option_label") == ["Hot", "Cold", ""]
    assert len(remote.calls) == 0

    response = console.post("/objects/create/", new_object_post(remove_option="fields-1:0"))
    page = parse(response.content)
    assert select(page, '[value="Hot"]') == []
    assert input_values(page, "fields-1-option_label") == ["Cold"]

    response = console.post("/objects/create/", new_object_post(remove_field="1"))
    page = parse(response.content)
    assert input_values(page, "fields-1-DELETE") == ["on"]
    assert select(page, '[value="Temperature"]') == []
    assert input_values(page, "fields-0-label") == ["Full name"]
    assert len(remote.calls) == 0


def test_create_sends_the_object_with_its_fields_options_and_idempotency_key(console, remote):
    route = remote.post("/v1/objects").mock(return_value=httpx.Response(200, json=LEADS))

    response = console.post("/objects/create/", new_object_post())

    assert response.status_code == 302
    assert response["Location"] == "/objects/sales_leads/settings/"
    assert route.call_count == 1
    request = route.calls.last.request
    assert request.headers["Idempotency-Key"] == "5b0f0c4e-1111-4222-8333-444455556666"
    assert sent_json(route.calls.last) == {
        "singular_name": "Sales lead",
        "plural_name": "Sales leads",
        "description": "People who might buy",
        "icon": "Users",
        "color": "#3b82f6",
        "title_field": "full_name",
        "fields": [
            {"label": "Full name", "type": "text", "required": True},
            {
                "label": "Temperature",
                "type": "select",
                "required": False,
                "key": "temp",
                "options": [{"label": "Hot", "color": "#ef4444"}, {"label": "Cold", "color": "#3b82f6"}],
            },
        ],
    }


def test_create_over_htmx_redirects_the_browser(console, remote):
    remote.post("/v1/objects").mock(return_value=httpx.Response(200, json=LEADS))

    response = console.post("/objects/create/", new_object_post(), **HTMX)

    assert response.status_code == 200
    assert response["HX-Redirect"] == "/objects/sales_leads/settings/"


def test_the_same_form_posted_twice_sends_the_same_idempotency_key(console, remote):
    route = remote.post("/v1/objects").mock(
        side_effect=[
            httpx.Response(503, json=error_body("server_error", "busy", request_id="req_busy")),
            httpx.Response(200, json=LEADS),
        ]
    )

    first = console.post("/objects/create/", new_object_post(), **HTMX)
    html = first.content.decode()
    assert first.status_code == 200
    assert "req_busy" in html and input_values(html, "fields-1-label") == [
        "Temperature"
    ]  # message in place, nothing lost
    kept_key = hidden_value(html, "idempotency_key")
    assert kept_key == "5b0f0c4e-1111-4222-8333-444455556666"

    console.post("/objects/create/", new_object_post(idempotency_key=kept_key))

    keys = [call.request.headers["Idempotency-Key"] for call in route.calls]
    assert keys == ["5b0f0c4e-1111-4222-8333-444455556666"] * 2


def test_a_choice_field_without_options_is_refused_before_sending(console, remote):
    data = new_object_post(**{"fields-1-option_label": ["", ""]})

    response = console.post("/objects/create/", data)

    assert len(remote.calls) == 0
    assert "Add at least one option for this type." in response.content.decode()


def test_fields_with_the_same_key_or_no_key_are_refused_before_sending(console, remote):
    data = new_object_post(**{"fields-1-label": "Full name!", "fields-1-key": "", "fields-1-type": "text"})
    html = console.post("/objects/create/", data).content.decode()
    assert "Another field already has the key “full_name”." in html

    data = new_object_post(**{"fields-1-label": "???", "fields-1-key": ""})
    html = console.post("/objects/create/", data).content.decode()
    assert "give a key" in html
    assert len(remote.calls) == 0


def test_a_taken_key_links_to_the_existing_object(console, remote):
    remote.post("/v1/objects").mock(
        return_value=httpx.Response(
            409,
            json=error_body(
                "conflict",
                "An object with the key sales_leads already exists.",
                details={"object": {"id": LEADS["id"], "key": "sales_leads"}},
                request_id="req_taken",
            ),
        )
    )

    response = console.post("/objects/create/", new_object_post(), **HTMX)

    html = response.content.decode()
    assert response.status_code == 200
    assert "already exists" in html and "req_taken" in html
    alert = one(html, ".alert-error[role=alert]")
    assert [a["href"] for a in alert.select("a")] == ["/objects/sales_leads/records/", "/objects/sales_leads/settings/"]
    assert input_values(html, "fields-0-label") == ["Full name"]  # nothing typed is lost
    assert hidden_value(html, "idempotency_key") != "5b0f0c4e-1111-4222-8333-444455556666"


def test_a_taken_key_message_also_lands_on_the_plural_name(console, remote):
    remote.post("/v1/objects").mock(
        return_value=httpx.Response(
            409,
            json=error_body(
                "conflict",
                "Taken.",
                details={
                    "key": "sales_leads",
                    "plural_name": ["makes the key 'sales_leads', which Sales leads already uses"],
                },
            ),
        )
    )

    html = console.post("/objects/create/", new_object_post()).content.decode()

    assert "which Sales leads already uses" in field_error(html, "plural_name")


@pytest.mark.parametrize(
    ("status", "error_type", "expected"),
    [
        (401, "authentication", "refused your API key"),
        (402, "insufficient_credits", "credits"),
        (403, "permission", "req_create_err"),
        (404, "not_found", "req_create_err"),
        (429, "rate_limited", "req_create_err"),
        (500, "server_error", "req_create_err"),
    ],
)
def test_create_remote_errors_show_in_the_form_and_keep_everything(console, remote, status, error_type, expected):
    remote.post("/v1/objects").mock(
        return_value=httpx.Response(status, json=error_body(error_type, "nope", request_id="req_create_err"))
    )

    response = console.post("/objects/create/", new_object_post(), **HTMX)

    html = response.content.decode()
    assert response.status_code == 200
    if status == 401:
        # A refused key refuses the whole request (dashboard/frame/key_gate.py): the
        # box goes to the page's messages and the form, as typed, is left in place.
        assert response["HX-Retarget"] == "#messages" and select(html, "form#object-form") == []
        assert expected in text_of(one(html, "[data-remote-error]")) and "req_create_err" in html
        return
    form = one(html, "form#object-form")
    assert one(form, ".remote-error")
    assert expected in html and "req_create_err" in html
    assert input_values(form, "plural_name") == ["Sales leads"]
    assert input_values(form, "fields-1-label") == ["Temperature"]
    assert input_values(form, "fields-1-option_label") == ["Hot", "Cold"]
    assert SECRET not in html


def test_a_taken_key_without_details_links_by_the_derived_key(console, remote):
    remote.post("/v1/objects").mock(
        return_value=httpx.Response(409, json=error_body("conflict", "Key taken.", request_id="req_taken2"))
    )

    html = console.post("/objects/create/", new_object_post()).content.decode()

    assert "/objects/sales_leads/settings/" in [a["href"] for a in select(html, "form#object-form [role=alert] a")]


def test_invalid_request_details_land_on_the_named_inputs_and_keep_what_was_typed(console, remote):
    remote.post("/v1/objects").mock(
        return_value=httpx.Response(
            400,
            json=error_body(
                "invalid_request",
                "Invalid body.",
                details={
                    "singular_name": ["Too similar to another object."],
                    "fields": {"1": {"label": ["Label is reserved."]}},
                },
                request_id="req_400",
            ),
        )
    )

    response = console.post("/objects/create/", new_object_post(), **HTMX)

    html = response.content.decode()
    page = parse(html)
    assert response.status_code == 200
    assert page.find("html") is None
    assert "Too similar to another object." in field_error(page, "singular_name")
    assert "Label is reserved." in field_error(page, "fields-1-label")
    assert text_of(page).count("Label is reserved.") == 1  # on that row only
    assert input_values(page, "singular_name") == ["Sales lead"]
    assert input_values(page, "fields-1-label") == ["Temperature"]
    assert input_values(page, "fields-1-option_label") == ["Hot", "Cold"]
    assert "req_400" in html
    assert hidden_value(html, "idempotency_key") != "5b0f0c4e-1111-4222-8333-444455556666"


def test_dotted_detail_names_reach_the_row_after_a_removed_row(console, remote):
    """`fields.N` counts the fields sent; a removed row in between is not sent."""
    data = new_object_post(
        **{
            "fields-TOTAL_FORMS": "3",
            "fields-1-DELETE": "on",
            "fields-2-label": "Budget",
            "fields-2-type": "currency",
        }
    )
    route = remote.post("/v1/objects").mock(
        return_value=httpx.Response(
            400, json=error_body("invalid_request", "Invalid.", details={"fields.1.type": ["Not allowed here."]})
        )
    )

    html = console.post("/objects/create/", data).content.decode()

    assert [f["label"] for f in sent_json(route.calls.last)["fields"]] == ["Full name", "Budget"]
    assert "Not allowed here." in field_error(html, "fields-2-type")


def test_unprocessable_is_shown_on_the_field_with_the_message(console, remote):
    remote.post("/v1/objects").mock(
        return_value=httpx.Response(
            422,
            json=error_body("unprocessable", "Field label is too long.", details={"fields": [{"label": "Too long."}]}),
        )
    )

    html = console.post("/objects/create/", new_object_post()).content.decode()

    assert "Too long." in field_error(html, "fields-0-label")
    assert text_of(parse(html)).count("Too long.") == 1


# ---- Object settings -----------------------------------------------------------


def settings_post(html: str, **overrides) -> dict:
    """The settings form as rendered, posted back unchanged unless overridden."""
    data = {
        "idempotency_key": hidden_value(html, "idempotency_key"),
        "singular_name": "Sales lead",
        "plural_name": "Sales leads",
        "description": "People who might buy",
        "icon": "Users",
        "color": "#3b82f6",
        "title_field": "name",
        "fields-TOTAL_FORMS": "2",
        "fields-INITIAL_FORMS": "2",
        "fields-MIN_NUM_FORMS": "0",
        "fields-MAX_NUM_FORMS": "1000",
        "fields-0-original_key": "name",
        "fields-0-label": "Name",
        "fields-0-type": "text",
        "fields-0-required": "on",
        "fields-1-original_key": "stage",
        "fields-1-label": "Stage",
        "fields-1-type": "stage",
        "fields-1-option_id": ["opt-new", "opt-won"],
        "fields-1-option_label": ["New", "Won"],
        "fields-1-option_color": ["#22c55e", "#f59e0b"],
    }
    data.update(overrides)
    return data


def test_settings_shows_the_key_read_only_and_built_in_fields_read_only(console, remote):
    remote.get("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))

    response = console.get("/objects/sales_leads/settings/")

    page = parse(response.content)
    assert response.status_code == 200
    assert texts(page, ".object-facts dd code") == ["sales_leads"]
    form = one(page, "#settings-form")
    assert select(form, '[name="key"]') == []  # the object's key is never an input
    assert select(form, '[name="fields-0-key"]') == []  # nor an existing field's key
    assert input_values(form, "fields-0-label") == ["Name"]
    assert [texts(row, "td")[:2] for row in select(form, "tr.system-field")] == [["Created by built-in", "created_by"]]
    # No input for the built-in field (the title field may still name it: that is a choice, not an edit).
    assert [str(box) for box in select(form, "input, textarea") if "created_by" in str(box)] == []
    assert input_values(form, "fields-1-option_id") == ["opt-new", "opt-won"]
    assert input_values(form, "fields-1-option_label") == ["New", "Won"]
    # Every field the object has can be removed, except the built-in one.
    assert [a["href"] for a in select(page, "a[href*='/remove/']")] == [
        "/objects/sales_leads/settings/fields/name/remove/",
        "/objects/sales_leads/settings/fields/stage/remove/",
    ]


def test_settings_sends_only_what_changed(console, remote):
    remote.get("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    patch = remote.patch("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    html = console.get("/objects/sales_leads/settings/").content.decode()

    data = settings_post(
        html,
        singular_name="Lead",
        **{
            "fields-0-label": "Full name",
            "fields-TOTAL_FORMS": "3",
            "fields-2-label": "Budget",
            "fields-2-type": "currency",
        },
    )
    response = console.post("/objects/sales_leads/settings/save/", data)

    assert response.status_code == 302
    assert patch.call_count == 1
    assert patch.calls.last.request.headers["Idempotency-Key"] == data["idempotency_key"]
    assert sent_json(patch.calls.last) == {
        "singular_name": "Lead",
        "fields": [
            {"key": "name", "label": "Full name"},
            {"label": "Budget", "type": "currency", "required": False},
        ],
    }


def test_settings_never_sends_a_built_in_field_even_when_posted(console, remote):
    remote.get("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    patch = remote.patch("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    html = console.get("/objects/sales_leads/settings/").content.decode()

    data = settings_post(
        html,
        plural_name="Leads",
        **{
            "fields-TOTAL_FORMS": "3",
            "fields-INITIAL_FORMS": "3",
            "fields-2-original_key": "created_by",
            "fields-2-label": "Author",
            "fields-2-type": "text",
        },
    )
    console.post("/objects/sales_leads/settings/save/", data)

    assert sent_json(patch.calls.last) == {"plural_name": "Leads"}


def test_settings_sends_replaced_options_of_a_choice_field(console, remote):
    remote.get("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    patch = remote.patch("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    html = console.get("/objects/sales_leads/settings/").content.decode()

    data = settings_post(
        html,
        **{
            "fields-1-option_id": ["opt-new", "opt-won", ""],
            "fields-1-option_label": ["New", "Won", "Lost"],
            "fields-1-option_color": ["#22c55e", "#f59e0b", "#ef4444"],
        },
    )
    console.post("/objects/sales_leads/settings/save/", data)

    assert sent_json(patch.calls.last) == {
        "fields": [
            {
                "key": "stage",
                "options": [
                    {"id": "opt-new", "label": "New", "color": "#22c55e"},
                    {"id": "opt-won", "label": "Won", "color": "#f59e0b"},
                    {"label": "Lost", "color": "#ef4444"},
                ],
            }
        ]
    }


def test_settings_with_nothing_changed_sends_nothing(console, remote):
    remote.get("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    patch = remote.patch("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    html = console.get("/objects/sales_leads/settings/").content.decode()

    response = console.post("/objects/sales_leads/settings/save/", settings_post(html), follow=True)

    assert patch.call_count == 0
    assert "Nothing changed." in response.content.decode()


def test_settings_refusal_lands_on_the_field_row_and_keeps_the_edit(console, remote):
    remote.get("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    remote.patch("/v1/objects/sales_leads").mock(
        return_value=httpx.Response(
            400, json=error_body("invalid_request", "Invalid.", details={"fields": [{"label": ["Label taken."]}]})
        )
    )
    html = console.get("/objects/sales_leads/settings/").content.decode()

    response = console.post(
        "/objects/sales_leads/settings/save/", settings_post(html, **{"fields-1-label": "Name"}), **HTMX
    )

    out = parse(response.content)
    assert response.status_code == 200
    # Only the stage field was sent, so `fields.0` is the stage row.
    assert "Label taken." in field_error(out, "fields-1-label")
    assert input_values(out, "fields-1-label") == ["Name"]


def test_settings_server_error_shows_in_place_and_keeps_the_key(console, remote):
    remote.get("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    remote.patch("/v1/objects/sales_leads").mock(
        return_value=httpx.Response(500, json=error_body("server_error", "Oops", request_id="req_500"))
    )
    html = console.get("/objects/sales_leads/settings/").content.decode()
    data = settings_post(html, plural_name="Leads")

    response = console.post("/objects/sales_leads/settings/save/", data, **HTMX)

    out = response.content.decode()
    assert response.status_code == 200
    assert "req_500" in out and input_values(out, "plural_name") == ["Leads"]
    assert hidden_value(out, "idempotency_key") == data["idempotency_key"]


def test_removing_a_field_asks_first_then_sends_remove_fields(console, remote):
    remote.get("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    patch = remote.patch("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))

    confirm = console.get("/objects/sales_leads/settings/fields/stage/remove/", **HTMX)
    html = confirm.content.decode()
    assert "values stay on existing records but are no longer shown" in html
    assert patch.call_count == 0
    key = hidden_value(html, "idempotency_key")

    response = console.post("/objects/sales_leads/settings/fields/stage/remove/confirm/", {"idempotency_key": key})

    assert response.status_code == 302
    assert sent_json(patch.calls.last) == {"remove_fields": ["stage"]}
    assert patch.calls.last.request.headers["Idempotency-Key"] == key


def test_without_javascript_the_removal_confirmation_is_on_the_settings_page(console, remote):
    remote.get("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))

    page = parse(console.get("/objects/sales_leads/settings/fields/stage/remove/").content)

    assert one(page, "html") and one(page, "#settings-form")
    confirmation = one(page, "form[role=alertdialog]")
    assert "Remove the field “Stage”" in text_of(confirmation)
    assert confirmation["action"] == "/objects/sales_leads/settings/fields/stage/remove/confirm/"


def test_a_built_in_field_cannot_be_removed(console, remote):
    remote.get("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    patch = remote.patch("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))

    response = console.post(
        "/objects/sales_leads/settings/fields/created_by/remove/confirm/",
        {"idempotency_key": "5b0f0c4e-1111-4222-8333-444455556666"},
        follow=True,
    )

    assert patch.call_count == 0
    assert "can't be removed" in text_of(parse(response.content))


def test_settings_of_an_unknown_object_shows_not_found_with_the_request_id(console, remote):
    remote.get("/v1/objects/nope").mock(
        return_value=httpx.Response(404, json=error_body("not_found", "No such object.", request_id="req_404"))
    )

    response = console.get("/objects/nope/settings/")

    assert "req_404" in text_of(one(response.content, ".remote-error"))


# ---- The definition cache ------------------------------------------------------


def test_a_second_definition_read_makes_no_remote_call_and_an_edit_drops_it(console, remote, api_key):
    from objects.selectors import object_definition_get

    route = remote.get("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    patch = remote.patch("/v1/objects/sales_leads").mock(return_value=httpx.Response(200, json=LEADS))
    client = api_key.client()

    object_definition_get(client=client, workspace_id=WORKSPACE_ID, object_key="sales_leads")
    object_definition_get(client=client, workspace_id=WORKSPACE_ID, object_key="sales_leads")
    assert route.call_count == 1
    # Another workspace has its own entry.
    object_definition_get(client=client, workspace_id="another-workspace", object_key="sales_leads")
    assert route.call_count == 2

    html = console.get("/objects/sales_leads/settings/").content.decode()  # reads fresh: 3
    console.post("/objects/sales_leads/settings/save/", settings_post(html, plural_name="Leads"))
    assert patch.call_count == 1
    calls_before = route.call_count

    object_definition_get(client=client, workspace_id=WORKSPACE_ID, object_key="sales_leads")

    assert route.call_count == calls_before + 1  # the edit dropped the cached copy


def test_create_drops_any_cached_definition_under_the_new_key(console, remote, api_key):
    from django.core.cache import cache

    from objects.selectors import object_definition_cache_key

    cache_key = object_definition_cache_key(workspace_id=WORKSPACE_ID, object_key="sales_leads")
    cache.set(cache_key, {"key": "sales_leads", "fields": []})
    remote.post("/v1/objects").mock(return_value=httpx.Response(200, json=LEADS))

    console.post("/objects/create/", new_object_post())

    assert cache.get(cache_key) is None
