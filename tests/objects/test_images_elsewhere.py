"""A record's image field on a host the Content-Security-Policy does not list
is named, with a link that opens it, in the records table, on the record page
and in the edit form; on a listed host (the service's) it is a picture."""

from __future__ import annotations

import httpx
import pytest

from tests.helpers import allow_images_from
from tests.html import one, parse, select, text_of
from tests.objects.records_fixtures import ACME, DEALS, OBJECT_KEY, RECORD_ID, page
from tests.objects.support import SERVICE_URL, record_row

pytestmark = pytest.mark.django_db

RECORDS_URL = f"/objects/{OBJECT_KEY}/records/"
RECORD_URL = f"{RECORDS_URL}{RECORD_ID}/"
RECORD_PATH = f"/v1/objects/{OBJECT_KEY}/records/{RECORD_ID}"
FOREIGN_LOGO = ACME["values"]["logo"]  # https://cdn.acme.test/logo.png: not a source of img-src
SERVICE_LOGO = f"{SERVICE_URL}/files/logo.png"
HTMX = {"HTTP_HX_REQUEST": "true"}
REASON = "not shown here (the console loads images only from the service's hosts)"


@pytest.fixture(autouse=True)
def service_images(settings):
    """The service's own origin is always an image source in a deployment
    (settings computes it from SERVICE_BASE_URL; the tests point that elsewhere)."""
    allow_images_from(settings, SERVICE_URL)


@pytest.fixture
def definition(remote):
    return remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))


def acme_with_logo(logo: str) -> dict:
    return {**ACME, "values": {**ACME["values"], "logo": logo}}


def logo_cell(html: bytes):
    row = record_row(html, RECORD_ID)
    (cell,) = [td for td in row.select("td") if td.select(".cell-image, .image-away")]
    return cell


def test_a_table_cell_names_an_image_on_another_host_and_links_to_it(console, definition, remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(return_value=httpx.Response(200, json=page([ACME])))

    response = console.get(RECORDS_URL)

    assert response.status_code == 200
    cell = logo_cell(response.content)
    assert select(cell, "img") == []
    link = one(cell, "a.image-away")
    assert link["href"] == FOREIGN_LOGO
    assert text_of(link) == "Image on cdn.acme.test"
    # The reason, said once under the table, describes every such link.
    note = one(response.content, f"#{link['aria-describedby']}")
    assert text_of(note) == f"Images on other hosts: {REASON}."


def test_a_table_cell_shows_an_image_on_the_services_host(console, definition, remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(
        return_value=httpx.Response(200, json=page([acme_with_logo(SERVICE_LOGO)]))
    )

    cell = logo_cell(console.get(RECORDS_URL).content)

    assert one(cell, "a.cell-image img")["src"] == SERVICE_LOGO
    assert select(cell, ".image-away") == []
    assert select(console.get(RECORDS_URL).content, "#images-away") == []


@pytest.mark.parametrize(("logo", "shown"), [(FOREIGN_LOGO, False), (SERVICE_LOGO, True)])
def test_the_record_page_shows_a_listed_host_and_names_any_other(console, definition, remote, logo, shown):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=acme_with_logo(logo)))
    remote.get(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(200, json=page([])))

    response = console.get(RECORD_URL)

    assert response.status_code == 200
    html = parse(response.content)
    main = one(html, "main")
    if shown:
        assert [image["src"] for image in main.select("img")] == [SERVICE_LOGO]
        assert select(main, ".image-elsewhere") == []
    else:
        assert main.select("img") == []
        note = one(main, ".image-elsewhere")
        assert text_of(note).startswith(f"Image on cdn.acme.test — {REASON}")
        assert one(note, "a")["href"] == FOREIGN_LOGO
        assert text_of(one(note, "a")) == "Open logo.png on cdn.acme.test, in a new tab"


def test_the_edit_forms_preview_names_an_image_on_another_host(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))

    form = one(console.get(f"{RECORD_URL}edit/").content, "#record-form")

    preview = one(form, '[data-kind="image"].address-preview')
    # The box asks again as the address is typed, and only its content is swapped (a live region).
    assert (preview["hx-include"], preview["hx-target"], preview["hx-swap"]) == ("#id_logo", "this", "innerHTML")
    assert preview["aria-live"] == "polite"
    assert select(preview, "img") == []
    assert text_of(one(preview, ".image-elsewhere")).startswith(f"Image on cdn.acme.test — {REASON}")
    assert one(preview, "a")["href"] == FOREIGN_LOGO
    assert one(form, "input[name=logo]")["value"] == FOREIGN_LOGO  # the address itself stays editable


@pytest.mark.parametrize(
    ("kind", "typed", "image", "named", "link"),
    [
        ("image", SERVICE_LOGO, SERVICE_LOGO, False, None),
        ("image", FOREIGN_LOGO, None, True, FOREIGN_LOGO),
        ("image", "javascript:alert(1)", None, False, None),  # not a web address: no preview
        ("file", FOREIGN_LOGO, None, False, FOREIGN_LOGO),  # a file is a link wherever it is
    ],
)
def test_the_preview_follows_the_typed_address_without_calling_the_service(
    console, remote, kind, typed, image, named, link
):
    response = console.get("/objects/address-preview/", {"kind": kind, "field": "logo", "logo": typed}, **HTMX)

    assert response.status_code == 200
    preview = parse(response.content)
    assert [img["src"] for img in select(preview, "img")] == ([image] if image else [])
    assert bool(select(preview, ".image-elsewhere")) is named
    assert [a["href"] for a in select(preview, "a")] == ([link] if link else [])
    assert len(remote.calls) == 0


def test_a_preview_asked_with_nonsense_is_empty_never_an_error(console):
    response = console.get("/objects/address-preview/", {"kind": "<x>", "field": "", "<b>": "https://x.test/"}, **HTMX)

    assert response.status_code == 200
    assert text_of(parse(response.content)) == "" and select(response.content, "b, img, a") == []
