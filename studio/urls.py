from django.urls import path, register_converter

from dashboard.web import converters  # noqa: F401  (the remote_id and pk path converters)
from studio.views import apps, library, turns


def _words(pattern: str, name: str) -> None:
    """A path converter for a fixed set of words (the value is kept as it is)."""

    class Words:
        regex = pattern

        def to_python(self, value: str) -> str:
            return value

        def to_url(self, value: str) -> str:
            return value

    register_converter(Words, name)


# The studios that have Content Apps; an app id as the catalogue writes them
# (`remove-background`); the library's six lists.
_words("image|video", "app_studio")
_words("[a-z0-9][a-z0-9-]{0,63}", "app_id")
_words("websites|documents|apps|boards|images|videos", "library_kind")

app_name = "studio"
urlpatterns = [
    path("", turns.index, name="index"),
    path("turns/", turns.start_turn, name="start"),
    path("turns/<pk:pk>/", turns.turn, name="turn"),
    path("turns/<pk:pk>/live", turns.conversation_live, name="conversation_live"),
    path("turns/<pk:pk>/artifact", turns.artifact_pane, name="artifact_pane"),
    path("turns/<pk:pk>/reply", turns.reply, name="reply"),
    path("turns/<pk:pk>/try-again", turns.try_again, name="try_again"),
    path("apps/", apps.catalogue, name="apps"),
    path("apps/runs/<pk:pk>/", apps.run_detail, name="app_run"),
    path("apps/runs/<pk:pk>/try-again", apps.run_try_again, name="app_run_try_again"),
    path("apps/<app_studio:studio>/<app_id:app>/", apps.app_page, name="app"),
    path("library/<library_kind:kind>/", library.library_list, name="library"),
    path("library/<library_kind:kind>/<remote_id:item_id>/", library.library_item, name="library_item"),
]
