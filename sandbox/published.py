"""Pages at the product's web addresses (`{app_url}`), so the sandbox's
`url` and `public_url` open something instead of a 404: a published
website (`/app/sites/{slug}` and its pages), a live app
(`/app/apps/{id}/live`) and an item "in the web app" (`/app/{studio}/{id}`).

They are plain HTML (no script, no form), public by address like the
generated files (ids and slugs are unguessable or published on purpose), and
carry no X-Frame-Options, so a console may frame them in its preview. They
exist only while `{app_url}` is the sandbox's own `/app` (the default): a
deployment that sets SANDBOX_APP_URL to another host serves its own pages.
A site not yet published, an app not live or an unknown id is a 404: a Not
found page for a browser (it sends `Accept: text/html`, and a person in a
preview frame should read a page, as the product's own web app shows one),
the one JSON error body for everyone else (an API client, a link checker),
as every other address of the sandbox answers. The OpenAPI document lists
both for these routes.
"""

from __future__ import annotations

from html import escape

from sandbox.core import UUID, Response, not_found, route
from sandbox.library import is_ready

TAG = ["Product pages"]
HTML = "text/html; charset=utf-8"
_ITEM_KINDS = {
    "website": "website",
    "document": "document",
    "app": "app",
    "image": "image_board",
    "video": "video_project",
}
_STYLE = (
    "body{font-family:system-ui,sans-serif;margin:0;color:#1d2430;background:#fbfaf7}"
    "header,main,footer{max-width:48rem;margin:0 auto;padding:1rem 1.25rem}"
    "header{border-bottom:1px solid #ddd}nav a{margin-right:1rem}"
    "h1{font-size:1.8rem}img{max-width:100%}"
)


def _page(title: str, body: str, *, status: int = 200) -> Response:
    html = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>{body}</body></html>"
    )
    return Response(html, status=status, content_type=HTML, headers={"Cache-Control": "no-cache"})


def wants_html(req) -> bool:
    """A browser asks for HTML by name; `*/*` or no Accept (API clients) gets JSON."""
    accept = (req.headers.get("accept") or "").lower()
    return "text/html" in accept or "application/xhtml+xml" in accept


def _missing(req, what: str) -> Response:
    if not wants_html(req):
        raise not_found(what)
    return _page(
        "Not found", f"<main><h1>Not found</h1><p>No {escape(what)} lives at this address.</p></main>", status=404
    )


def _site_page(req, slug: str, page_path: str) -> Response:
    site = req.store.find_one("website", slug=slug)
    if site is None or not is_ready(site.get("first_live_at"), req.clock.now()):
        return _missing(req, "published site")
    pages = [p for p in site.get("pages") or [] if isinstance(p, dict) and isinstance(p.get("path"), str)]
    current = next((p for p in pages if p["path"] == page_path), None)
    if current is None:
        return _missing(req, "page of this site")
    base = f"{req.app_url}/sites/{site['slug']}"
    links = "".join(
        f'<a href="{escape(base + (p["path"] if p["path"] != "/" else ""))}"'
        f"{' aria-current=page' if p is current else ''}>{escape(p.get('title') or p['path'])}</a>"
        for p in pages
    )
    heading = site["name"] if current["path"] == "/" else f"{current.get('title') or current['path']}"
    edits = "".join(f"<li>{escape(edit)}</li>" for edit in (site.get("edits") or [])[-5:])
    body = (
        f'<header><strong>{escape(site["name"])}</strong><nav aria-label="Site">{links}</nav></header>'
        f"<main><h1>{escape(heading)}</h1><p>{escape(site.get('brief') or '')}</p>"
        f"{f'<h2>Latest changes</h2><ul>{edits}</ul>' if edits else ''}</main>"
        f"<footer><small>Published with the Workspace sandbox.</small></footer>"
    )
    return _page(f"{heading} · {site['name']}" if heading != site["name"] else site["name"], body)


@route(
    "GET",
    "/app/sites/{slug}",
    operation_id="published_site_home",
    summary="A published website's home page (HTML)",
    description="The home page of a published website at its `public_url`, plain HTML a preview can frame. A site not yet published is a 404: a Not found page for a browser, the JSON error body otherwise.",
    tags=TAG,
    auth=False,
    responses={200: ("text/html", {"type": "string"})},
)
def published_site_home(req):
    return _site_page(req, req.path_params["slug"], "/")


@route(
    "GET",
    "/app/sites/{slug}/{page}",
    operation_id="published_site_page",
    summary="A page of a published website (HTML)",
    description="Another page of a published website (its path under the site's `public_url`). A page the site does not have is a 404 (a page for a browser, JSON otherwise).",
    tags=TAG,
    auth=False,
    responses={200: ("text/html", {"type": "string"})},
)
def published_site_page(req):
    return _site_page(req, req.path_params["slug"], "/" + req.path_params["page"])


@route(
    "GET",
    "/app/apps/{app_id}/live",
    operation_id="live_app_page",
    summary="A live app's start screen (HTML)",
    description="A live app's start screen with its screens, plain HTML. An app that is not live is a 404 (a page for a browser, JSON otherwise).",
    tags=TAG,
    auth=False,
    path_params={"app_id": UUID},
    responses={200: ("text/html", {"type": "string"})},
)
def live_app_page(req):
    app = req.store.get("app", req.path_params["app_id"])
    if app is None or app.get("status") != "live":
        return _missing(req, "live app")
    screens = "".join(
        f"<li>{escape(s.get('name') or 'Screen')}</li>" for s in app.get("screens") or [] if isinstance(s, dict)
    )
    body = (
        f"<header><strong>{escape(app['name'])}</strong></header>"
        f"<main><h1>{escape(app['name'])}</h1><p>{escape(app.get('brief') or '')}</p>"
        f"<h2>Screens</h2><ul>{screens}</ul></main>"
    )
    return _page(app["name"], body)


@route(
    "GET",
    "/app/{studio}/{item_id}",
    operation_id="web_app_item_page",
    summary="An item as the product's web app opens it (HTML)",
    description="An item (website, document, app, image board, video project) as the product's web app opens it: its `url`. An unknown id is a 404 (a page for a browser, JSON otherwise).",
    tags=TAG,
    auth=False,
    path_params={"studio": {"type": "string", "enum": list(_ITEM_KINDS)}, "item_id": UUID},
    responses={200: ("text/html", {"type": "string"})},
)
def web_app_item_page(req):
    studio = req.path_params["studio"]
    item = req.store.get(_ITEM_KINDS[studio], req.path_params["item_id"])
    if item is None:
        return _missing(req, studio)
    body = (
        f"<header><strong>Workspace Studio</strong> · {escape(studio.capitalize())}</header>"
        f"<main><h1>{escape(item.get('name') or studio.capitalize())}</h1>"
        f"<p>{escape(item.get('brief') or '')}</p></main>"
    )
    return _page(item.get("name") or studio, body)
