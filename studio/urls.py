from django.urls import path, register_converter

from dashboard.web import converters  # noqa: F401  (the remote_id and pk path converters)
from studio.views import apps, briefs, collections, library, selection, share, takes, turns, versions, zips


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
# A share link's token (secrets.token_urlsafe: letters, digits, - and _).
_words("[A-Za-z0-9_-]{1,128}", "share_token")

app_name = "studio"
urlpatterns = [
    path("", turns.index, name="index"),
    path("turns/", turns.start_turn, name="start"),
    path("turns/<pk:pk>/", turns.turn, name="turn"),
    path("turns/<pk:pk>/live", turns.conversation_live, name="conversation_live"),
    path("turns/<pk:pk>/artifact", turns.artifact_pane, name="artifact_pane"),
    path("turns/<pk:pk>/reply", turns.reply, name="reply"),
    path("turns/<pk:pk>/try-again", turns.try_again, name="try_again"),
    # Alternatives side by side, kept in the console (studio/takes.py).
    path("turns/<pk:pk>/another-take", takes.take_turn_new, name="take_turn_new"),
    path("takes/<pk:pk>/", takes.takes_page, name="takes"),
    path("takes/<pk:pk>/live", takes.takes_live, name="takes_live"),
    path("takes/<pk:pk>/compare", takes.takes_compare, name="takes_compare"),
    path("takes/<pk:pk>/keep", takes.take_keep, name="take_keep"),
    # The team's saved briefs, kept in the console (studio/briefs.py).
    path("briefs/", briefs.briefs_page, name="briefs"),
    path("briefs/new", briefs.brief_new, name="brief_new"),
    path("briefs/<pk:pk>/", briefs.brief_page, name="brief"),
    path("briefs/<pk:pk>/use", briefs.brief_use, name="brief_use"),
    path("briefs/<pk:pk>/edit", briefs.brief_edit, name="brief_edit"),
    path("briefs/<pk:pk>/delete", briefs.brief_delete, name="brief_delete"),
    path("apps/", apps.catalogue, name="apps"),
    path("apps/runs/<pk:pk>/", apps.run_detail, name="app_run"),
    path("apps/runs/<pk:pk>/try-again", apps.run_try_again, name="app_run_try_again"),
    path("apps/runs/<pk:pk>/another-take", apps.run_take_again, name="app_run_take_again"),
    path("apps/<app_studio:studio>/<app_id:app>/", apps.app_page, name="app"),
    # A selection's ZIP, built by a worker (studio/zip_jobs.py).
    path("library/images/zip", zips.library_zip, name="library_zip"),
    path("library/zips/<pk:pk>/", zips.zip_job_page, name="zip_job"),
    path("library/zips/<pk:pk>/live", zips.zip_job_live, name="zip_job_live"),
    path("library/zips/<pk:pk>/download", zips.zip_download, name="zip_download"),
    path("library/favourites/", library.favourites, name="library_favourites"),
    # The selection of images kept in the session per workspace (studio/selection.py).
    path("library/selection/", selection.selection_page, name="selection"),
    path("library/selection/update", selection.selection_update, name="selection_update"),
    path("library/selection/add-all", selection.selection_add_all, name="selection_add_all"),
    path("library/selection/clear", selection.selection_clear_view, name="selection_clear"),
    # Collections kept in the console, shared by the workspace (studio/library_collections.py).
    path("library/collections/", collections.collections_page, name="collections"),
    path("library/collections/new", collections.collection_new, name="collection_new"),
    path("library/collections/add", collections.collection_add_view, name="collection_add"),
    path("library/collections/<pk:pk>/", collections.collection_page, name="collection"),
    path("library/collections/<pk:pk>/rename", collections.collection_rename_view, name="collection_rename"),
    path("library/collections/<pk:pk>/delete", collections.collection_delete_view, name="collection_delete"),
    path("library/collections/<pk:pk>/remove", collections.collection_remove_view, name="collection_remove"),
    path(
        "library/<library_kind:kind>/<remote_id:item_id>/favourite",
        library.favourite_toggle_view,
        name="library_favourite",
    ),
    path("library/<library_kind:kind>/", library.library_list, name="library"),
    path("library/<library_kind:kind>/<remote_id:item_id>/", library.library_item, name="library_item"),
    # A document's versions, kept by the console (studio/versions.py): read-only pages.
    path("library/documents/<remote_id:item_id>/versions/", versions.document_versions_page, name="document_versions"),
    # A website's or app's versions are its turns: the newest conversation about it.
    path(
        "library/<library_kind:kind>/<remote_id:item_id>/history/", versions.artifact_history, name="artifact_history"
    ),
    path("versions/<pk:pk>/", versions.document_version, name="document_version"),
    path("versions/<pk:pk>/download", versions.document_version_download, name="document_version_download"),
    # Make an earlier version the current one again: a revision turn carrying it (studio/rollback.py).
    path("versions/<pk:pk>/restore", versions.document_version_restore, name="document_version_restore"),
    path("versions/<pk:pk>/restore/send", versions.document_version_restore_send, name="document_version_restore_send"),
    # A website's or app's kept result asked for again (studio/rollback.py).
    path("results/<pk:pk>/go-back", versions.artifact_go_back, name="artifact_go_back"),
    path("results/<pk:pk>/go-back/send", versions.artifact_go_back_send, name="artifact_go_back_send"),
    path("shares/", share.shares, name="shares"),
    path("shares/new/images/", share.share_images, name="share_images"),
    path("shares/new/<library_kind:kind>/<remote_id:item_id>/", share.share_new, name="share_new"),
    path("shares/<pk:pk>/revoke", share.share_revoke, name="share_revoke"),
    path("shared/<share_token:token>/", share.shared, name="shared"),
]
