"""Collections of the Studio library (studio/library_collections.py): the
workspace's list, one collection as a filter of the library (its items, by
kind), rename and remove, and adding an item or the library's selection to
a collection or to one's favourites. Pages read the console only, except the
add, which reads the chosen images from the service to know they are this
workspace's (and their prompts and pictures)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.counted import CountedCharField, CountedTextInput
from dashboard.web.params import database_id
from studio.favourites import MAX_FAVOURITES, favourites_add
from studio.forms import READ_ONLY
from studio.library import KINDS, images_by_ids
from studio.library_collections import (
    NAME_MAX_LENGTH,
    CollectionEntry,
    CollectionRefused,
    collection_add,
    collection_create,
    collection_delete,
    collection_get,
    collection_items,
    collection_remove_item,
    collection_rename,
    collections_list,
)
from studio.library_zip import MAX_ZIP_IMAGES
from studio.reading import safe_link, usable_id
from studio.selection import selection_ids


class CollectionNameForm(forms.Form):
    name = CountedCharField(
        limit=NAME_MAX_LENGTH, noun="A collection's name", label=gettext_lazy("Name"), widget=CountedTextInput
    )


class CollectionChoiceForm(forms.Form):
    """Which of the workspace's collections to add to."""

    collection = forms.TypedChoiceField(coerce=int, required=False, label=gettext_lazy("Collection"))

    def __init__(self, *args: Any, collections: list, **kwargs: Any):
        super().__init__(*args, **kwargs)
        field = self.fields["collection"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [(collection.pk, f"{collection.name} ({collection.item_count})") for collection in collections]


def _chosen(request: ConsoleRequest, data) -> tuple[str, list[str]]:
    """The kind and ids chosen: the library's image selection (`image`), or
    one item of a kind (`kind`, `item`), or the person's kept selection
    (`selection`, studio/selection.py). At most MAX_ZIP_IMAGES at a time."""
    if not data.getlist("image") and data.get("selection"):
        return "images", selection_ids(session=request.session, workspace_id=request.workspace.id)
    if data.getlist("image"):
        kind, raw = "images", data.getlist("image")
    else:
        kind, raw = (data.get("kind") or ""), data.getlist("item")
    if kind not in KINDS:
        return "", []
    ids = list(dict.fromkeys(value for value in (usable_id(item) for item in raw) if value))
    return kind, ids[:MAX_ZIP_IMAGES]


def _entries(request: ConsoleRequest, kind: str, ids: list[str]) -> list[CollectionEntry]:
    """What to add, in words and pictures. Images are read from the service
    (only this workspace's are found); another item, one at a time from its
    page, carries its name and picture in the form like a favourite does
    (labels only: opening it reads the service again)."""
    if kind == "images":
        return [
            CollectionEntry("images", image["id"], image.get("prompt") or "", safe_link(image.get("url")))
            for image in images_by_ids(client=request.workspace.client, image_ids=ids)
        ]
    name = (request.POST.get("name") or "")[:300]
    return [CollectionEntry(kind, item_id, name, safe_link(request.POST.get("picture"))) for item_id in ids[:1]]


def _library_context(**extra: Any) -> dict[str, Any]:
    return {"kinds": KINDS.values(), "kind": None, "labels": KINDS, "on_collections": True, **extra}


@require_GET
def collections_page(request: ConsoleRequest) -> HttpResponse:
    """The workspace's collections, and a form to make one."""
    return _collections(request, CollectionNameForm())


def _collections(request: ConsoleRequest, form: CollectionNameForm, status: int = 200) -> HttpResponse:
    return render(
        request,
        "studio/library_collections.html",
        _library_context(collections=collections_list(workspace_id=request.workspace.id), form=form),
        status=status,
    )


@require_POST
@requires_write(READ_ONLY)
def collection_new(request: ConsoleRequest) -> HttpResponseBase:
    form = CollectionNameForm(request.POST)
    if form.is_valid():
        try:
            made = collection_create(
                workspace_id=request.workspace.id, user_id=request.user.pk, name=form.cleaned_data["name"]
            )
        except CollectionRefused as exc:
            form.add_error("name", str(exc))
        else:
            messages.success(request, f"Made the collection “{made.name}”.")
            return redirect("studio:collection", pk=made.pk)
    return _collections(request, form)


@require_GET
def collection_page(request: ConsoleRequest, pk: int) -> HttpResponse:
    """One collection as a filter of the library: its items (all, or one
    kind: `?kind=`), each opening its library page."""
    collection = collection_get(workspace_id=request.workspace.id, collection_id=pk)
    kind = request.GET.get("kind") or ""
    kind = kind if kind in KINDS else ""
    items = collection_items(collection=collection)
    present = [KINDS[slug] for slug in KINDS if any(item.kind == slug for item in items)]
    shown = [item for item in items if not kind or item.kind == kind]
    return render(
        request,
        "studio/library_collection.html",
        _library_context(
            collection=collection,
            items=shown,
            total=len(items),
            kinds_present=present,
            has_images=any(item.kind == "images" for item in items),
            chosen_kind=kind,
            rename=CollectionNameForm(initial={"name": collection.name}, auto_id="rename-%s"),
        ),
    )


@require_POST
@requires_write(READ_ONLY)
def collection_rename_view(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    collection = collection_get(workspace_id=request.workspace.id, collection_id=pk)
    form = CollectionNameForm(request.POST, auto_id="rename-%s")
    if form.is_valid():
        try:
            collection_rename(collection=collection, name=form.cleaned_data["name"])
        except CollectionRefused as exc:
            form.add_error("name", str(exc))
        else:
            messages.success(request, f"Renamed the collection to “{collection.name}”.")
            return redirect("studio:collection", pk=collection.pk)
    collection.refresh_from_db()
    items = collection_items(collection=collection)
    return render(
        request,
        "studio/library_collection.html",
        _library_context(
            collection=collection,
            items=items,
            total=len(items),
            kinds_present=[KINDS[slug] for slug in KINDS if any(item.kind == slug for item in items)],
            chosen_kind="",
            rename=form,
            rename_open=True,
        ),
    )


@require_POST
@requires_write(READ_ONLY)
def collection_delete_view(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    collection = collection_get(workspace_id=request.workspace.id, collection_id=pk)
    name = collection.name
    collection_delete(collection=collection)
    messages.success(request, f"Removed the collection “{name}”. Its items are still in the library.")
    return redirect("studio:collections")


@require_POST
@requires_write(READ_ONLY)
def collection_remove_view(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    collection = collection_get(workspace_id=request.workspace.id, collection_id=pk)
    kind, item_id = request.POST.get("kind") or "", usable_id(request.POST.get("item"))
    if kind in KINDS and item_id and collection_remove_item(collection=collection, kind=kind, item_id=item_id):
        messages.success(request, f"Removed {request.POST.get('name') or 'it'} from “{collection.name}”.")
    return redirect("studio:collection", pk=collection.pk)


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY, methods=["POST"])
def collection_add_view(request: ConsoleRequest) -> HttpResponseBase:
    """Add an item or the library's selection to a collection (one chosen,
    or a new one named here) or to the person's favourites. GET shows the
    choice (the selection's form is a GET, so it works without JavaScript
    and the ZIP link stays a read); POST adds."""
    data = request.POST if request.method == "POST" else request.GET
    kind, ids = _chosen(request, data)
    back = reverse("studio:library", args=[kind or "images"])
    if not ids:
        messages.error(request, gettext("Choose at least one item to add."))
        return redirect(back)
    collections = collections_list(workspace_id=request.workspace.id)
    form = CollectionNameForm(
        request.POST if request.POST.get("to") == "new" else None, auto_id="new-%s", use_required_attribute=False
    )
    context = _library_context(
        chosen_kind=KINDS[kind],
        ids=ids,
        collections=collections,
        form=form,
        name=(data.get("name") or "")[:300],
        picture=safe_link(data.get("picture")),
        choice=CollectionChoiceForm(
            initial={"collection": database_id(data.get("collection"))}, collections=collections, auto_id="add-%s"
        ),
    )
    if request.method == "GET":
        return render(request, "studio/library_collection_add.html", context)
    to = request.POST.get("to")
    if to == "new" and not form.is_valid():
        return render(request, "studio/library_collection_add.html", context)
    entries = _entries(request, kind, ids)
    if not entries:
        messages.error(request, gettext("None of the chosen items is in this workspace any more."))
        return redirect(back)
    what = "1 item" if len(entries) == 1 else f"{len(entries)} items"
    if to == "favourites":
        added, left_out = favourites_add(
            user_id=request.user.pk,
            workspace_id=request.workspace.id,
            entries=[(entry.kind, entry.item_id, entry.name, entry.picture) for entry in entries],
        )
        words = f"Added {added} to your favourites." if added else "They were all in your favourites already."
        if left_out:
            words += f" {left_out} left out: favourites hold at most {MAX_FAVOURITES}."
        messages.success(request, words)
        return redirect("studio:library_favourites")
    try:
        if to == "new":
            collection = collection_create(
                workspace_id=request.workspace.id, user_id=request.user.pk, name=form.cleaned_data["name"]
            )
        else:
            chosen = database_id(request.POST.get("collection"))
            if chosen is None:
                raise CollectionRefused("Choose a collection, or name a new one.")
            collection = collection_get(workspace_id=request.workspace.id, collection_id=chosen)
        added = collection_add(collection=collection, entries=entries, user_id=request.user.pk)
    except CollectionRefused as exc:
        if to == "new":
            form.add_error("name", str(exc))
        else:
            context["refusal"] = str(exc)
        return render(request, "studio/library_collection_add.html", context)
    messages.success(
        request,
        f"Added {added} of {what} to “{collection.name}”."
        if added != len(entries)
        else f"Added {what} to “{collection.name}”.",
    )
    return redirect("studio:collection", pk=collection.pk)
