from django.urls import path

from dashboard.web import converters  # noqa: F401  (the remote_id and pk path converters)
from objects.views import (
    access,
    cells,
    computed,
    export,
    history,
    home,
    presence,
    previews,
    records,
    relationships,
    saved_views,
    schema,
)

app_name = "objects"
urlpatterns = [
    # The objects themselves
    path("", schema.index, name="index"),
    path("new/", schema.object_new, name="new"),
    path("create/", schema.object_create_view, name="create"),
    path("new/key/", schema.object_key_preview, name="key_preview"),
    path("address-preview/", previews.address_preview, name="address_preview"),
    # The home page's "New record" picker, loaded when opened.
    path("home-picker/", home.home_picker, name="home_picker"),
    # Presence on records: the region's poll (the page's heartbeat) and the beacon of a page left.
    path("presence/leave/", presence.presence_leave, name="presence_leave"),
    path("<remote_id:object_key>/presence/", presence.presence, name="presence"),
    path("builder/field-row/", schema.field_row_new, name="field_row"),
    path("builder/field-row/removed/", schema.field_row_removed, name="field_row_remove"),
    path("builder/option-row/", schema.field_option_new, name="field_option"),
    path("<remote_id:object_key>/settings/", schema.object_settings, name="settings"),
    path("<remote_id:object_key>/settings/save/", schema.object_settings_save, name="settings_save"),
    path(
        "<remote_id:object_key>/settings/fields/<remote_id:field_key>/remove/",
        schema.field_remove_confirm,
        name="field_remove",
    ),
    path(
        "<remote_id:object_key>/settings/fields/<remote_id:field_key>/remove/confirm/",
        schema.field_remove,
        name="field_remove_confirmed",
    ),
    # Who sees which records and fields (objects/views/access.py)
    path("<remote_id:object_key>/settings/access/", access.access_page, name="access"),
    path("<remote_id:object_key>/settings/access/save/", access.access_save, name="access_save"),
    # Computed columns, beside the fields (objects/views/computed.py)
    path("<remote_id:object_key>/settings/computed/", computed.computed_page, name="computed"),
    path("<remote_id:object_key>/settings/computed/add/", computed.computed_add, name="computed_add"),
    path(
        "<remote_id:object_key>/settings/computed/<pk:pk>/remove/",
        computed.computed_remove,
        name="computed_remove",
    ),
    # Their records
    path("<remote_id:object_key>/records/", records.records, name="records"),
    path("<remote_id:object_key>/records/rows/", records.records_rows, name="records_rows"),
    path("<remote_id:object_key>/records/columns/", records.records_columns, name="records_columns"),
    path("<remote_id:object_key>/records/count/<int:count_id>/", records.records_count, name="records_count"),
    path("<remote_id:object_key>/records/footers/<int:count_id>/", records.records_footers, name="records_footers"),
    path("<remote_id:object_key>/records/export.csv", export.records_export, name="records_export"),
    path("<remote_id:object_key>/records/new/", records.record_new, name="record_new"),
    path("<remote_id:object_key>/views/save/", saved_views.view_save, name="view_save"),
    path("<remote_id:object_key>/views/<pk:view_id>/", saved_views.view_open, name="view_open"),
    path("<remote_id:object_key>/views/<pk:view_id>/default/", saved_views.view_default, name="view_default"),
    path("<remote_id:object_key>/views/<pk:view_id>/delete/", saved_views.view_delete, name="view_delete"),
    path("<remote_id:object_key>/records/<remote_id:record_id>/", records.record, name="record"),
    path("<remote_id:object_key>/records/<remote_id:record_id>/edit/", records.record_edit, name="record_edit"),
    path("<remote_id:object_key>/records/<remote_id:record_id>/delete/", records.record_delete, name="record_delete"),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/duplicate/",
        records.record_duplicate,
        name="record_duplicate",
    ),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/cells/<remote_id:field_key>/",
        cells.record_cell,
        name="record_cell",
    ),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/history/<pk:change_id>/undo/",
        history.record_undo,
        name="record_undo",
    ),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/history/<pk:change_id>/put-back/<remote_id:field_key>/",
        history.record_put_back,
        name="record_put_back",
    ),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/timeline/",
        history.record_timeline,
        name="record_timeline",
    ),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/history/<pk:change_id>/then/",
        history.record_then,
        name="record_then",
    ),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/links/new/",
        relationships.relationship_new,
        name="relationship_new",
    ),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/links/pick/",
        relationships.relationship_picker,
        name="relationship_picker",
    ),
]

# Bulk actions, CSV import and the kanban board.
from objects.views import bulk as bulk_views  # noqa: E402
from objects.views import grid_paste as grid_paste_views  # noqa: E402
from objects.views import imports as import_views  # noqa: E402
from objects.views import jobs as job_views  # noqa: E402
from objects.views import kanban as kanban_views  # noqa: E402

urlpatterns += [
    path("<remote_id:object_key>/bulk/", bulk_views.bulk_action, name="bulk"),
    path("<remote_id:object_key>/paste/", grid_paste_views.grid_paste_view, name="grid_paste"),
    path("<remote_id:object_key>/import/", import_views.import_upload, name="import"),
    path("imports/<pk:pk>/columns/", import_views.import_map, name="import_map"),
    path("jobs/", job_views.job_list, name="jobs"),
    path("jobs/<pk:pk>/", job_views.job_detail, name="job"),
    path("jobs/<pk:pk>/status/", job_views.job_status, name="job_status"),
    path("jobs/<pk:pk>/cancel/", job_views.job_cancel, name="job_cancel"),
    path("jobs/<pk:pk>/run/", job_views.job_run, name="job_run"),
    path("jobs/<pk:pk>/problems.csv", job_views.job_report, name="job_report"),
    path("<remote_id:object_key>/kanban/", kanban_views.kanban, name="kanban"),
    path("<remote_id:object_key>/kanban/move/", kanban_views.kanban_move, name="kanban_move"),
    path("<remote_id:object_key>/kanban/more/", kanban_views.kanban_column, name="kanban_column"),
    path("<remote_id:object_key>/kanban/counts/<pk:pk>/", kanban_views.kanban_counts, name="kanban_counts"),
]

# More ways to look: calendar, gallery, chart (objects/looks.py).
from objects.views import calendar as calendar_views  # noqa: E402
from objects.views import charts as chart_views  # noqa: E402
from objects.views import gallery as gallery_views  # noqa: E402

urlpatterns += [
    path("<remote_id:object_key>/calendar/", calendar_views.calendar, name="calendar"),
    path("<remote_id:object_key>/gallery/", gallery_views.gallery, name="gallery"),
    path("<remote_id:object_key>/chart/", chart_views.chart, name="chart"),
    path("<remote_id:object_key>/chart/<pk:pk>/status/", chart_views.chart_status, name="chart_status"),
]

# The trash (records deleted through the console) and undo of whole jobs.
from objects.views import job_undo as job_undo_views  # noqa: E402
from objects.views import trash as trash_views  # noqa: E402

urlpatterns += [
    path("<remote_id:object_key>/trash/", trash_views.trash_page, name="trash"),
    path("<remote_id:object_key>/trash/restore/", trash_views.trash_restore, name="trash_restore"),
    path("<remote_id:object_key>/trash/purge/", trash_views.trash_purge, name="trash_purge"),
    path("<remote_id:object_key>/trash/<pk:pk>/restore/", trash_views.trash_restore_one, name="trash_restore_one"),
    path("jobs/<pk:pk>/undo/", job_undo_views.job_undo_start, name="job_undo"),
]

# Find and merge duplicates (objects/duplicates.py, objects/merge.py).
from objects.views import duplicates as duplicate_views  # noqa: E402

urlpatterns += [
    path("<remote_id:object_key>/duplicates/", duplicate_views.duplicates_page, name="duplicates"),
    path("<remote_id:object_key>/merge/", duplicate_views.merge_page, name="merge"),
    path("<remote_id:object_key>/merge/run/", duplicate_views.merge_run, name="merge_run"),
]

# Comments on a record and watching it (objects/comments.py).
from objects.views import comments as comment_views  # noqa: E402

urlpatterns += [
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/comments/",
        comment_views.comment_post,
        name="comment_post",
    ),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/comments/<pk:comment_id>/edit/",
        comment_views.comment_edit,
        name="comment_edit",
    ),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/comments/<pk:comment_id>/delete/",
        comment_views.comment_delete,
        name="comment_delete",
    ),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/watch/", comment_views.record_watch, name="record_watch"
    ),
    path(
        "<remote_id:object_key>/records/<remote_id:record_id>/comments/people/",
        comment_views.mention_people,
        name="mention_people",
    ),
]
