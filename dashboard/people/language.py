"""A person's language: their own choice (Person.language, set on the
account page) over the browser's Accept-Language (LocaleMiddleware).

The choice travels in the session (copied at sign-in and when changed), so a
page, a poll or a region reads no row for it; blank means "the browser's".
Emails and notifications use `language_of_person` (the row: the recipient
is not the one asking) under `translation.override`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET
from django.views.i18n import JavaScriptCatalog

SESSION_KEY = "console_language"


def language_choices() -> list[tuple[str, str]]:
    """The languages a person may choose, each named in itself ("Deutsch")."""
    return [(code, name) for code, name in settings.LANGUAGES]


def is_language(code: str) -> bool:
    return code in dict(settings.LANGUAGES)


def language_of_person(user: Any) -> str:
    """The language to write to `user` in (an email, a notification): their
    choice, else the console's default (a message has no browser to ask)."""
    from dashboard.people.models import Person

    code = Person.objects.filter(user_id=user.pk).values_list("language", flat=True).first() or ""
    return code if is_language(code) else settings.LANGUAGE_CODE


def languages_of_people(user_ids: Iterable[int]) -> dict[int, str]:
    """`language_of_person` for many recipients in one read: each user id's
    language (a user without a choice, or without a row, is not listed:
    `.get(pk, settings.LANGUAGE_CODE)`)."""
    from dashboard.people.models import Person

    rows = Person.objects.filter(user_id__in=list(user_ids)).values_list("user_id", "language")
    return {user_id: code for user_id, code in rows if is_language(code)}


def session_language_set(request: HttpRequest, code: str) -> None:
    """The session's language from now on ("" = the browser's)."""
    if is_language(code):
        request.session[SESSION_KEY] = code
    else:
        request.session.pop(SESSION_KEY, None)


def session_language_from_person(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """user_logged_in receiver: the person's choice into the new session."""
    from dashboard.people.models import Person

    code = Person.objects.filter(user_id=user.pk).values_list("language", flat=True).first() or ""
    session_language_set(request, code)
    if is_language(code):
        translation.activate(code)
        request.LANGUAGE_CODE = code


def person_language_set(*, user: Any, language: str) -> None:
    """Keep the person's language ("" = the browser's). A preference of their
    own like the theme: no audit entry, no role needed, nothing sent to the service."""
    from dashboard.people.models import Person

    Person.objects.update_or_create(user_id=user.pk, defaults={"language": language if is_language(language) else ""})


def role_words(role: str) -> str:
    """A role's name in the audit trail: its entries are kept words, written in
    the console's language whatever the language of the person acting."""
    from dashboard.people.roles import Role

    with translation.override(settings.LANGUAGE_CODE):
        return str(Role(role).label)


class PersonLanguageMiddleware:
    """After authentication: the session's language (the person's choice)
    replaces the one LocaleMiddleware found in the browser's Accept-Language."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        session = getattr(request, "session", None)
        # Only a session that already exists: an anonymous request starts none.
        code = session.get(SESSION_KEY, "") if session is not None and session.session_key else ""
        if code and is_language(code):
            translation.activate(code)
            request.LANGUAGE_CODE = code
        return self.get_response(request)


# A week: the address carries the catalog's version (the .mo file's size and
# time), so a new catalog is a new address.
CATALOG_SECONDS = 7 * 24 * 3600


@login_not_required
@require_GET
def javascript_catalog(request: HttpRequest, language: str, version: str) -> HttpResponse:
    """The strings of static/js in `language` (djangojs.po), the same for
    everyone: cached publicly, and loaded only by pages not in English
    (templates/base.html), so the English first load carries none of it."""
    if not is_language(language) or language == settings.LANGUAGE_CODE:
        raise Http404("No such catalog")
    with translation.override(language):
        response = JavaScriptCatalog.as_view(domain="djangojs")(request)
    assert isinstance(response, HttpResponse)  # the catalog is rendered, never streamed
    patch_cache_control(response, public=True, max_age=CATALOG_SECONDS, immutable=True)
    return response


def catalog_version(language: str) -> str:
    """A short stamp of the language's djangojs.mo, for the catalog's address."""
    path = Path(settings.LOCALE_PATHS[0]) / language / "LC_MESSAGES" / "djangojs.mo"
    try:
        stat = path.stat()
    except OSError:
        return "0"
    return f"{stat.st_size:x}{int(stat.st_mtime):x}"
