from django.urls import path

from dashboard.web import converters  # noqa: F401  (the remote_id and pk path converters)
from objects.views import export, records, relationships, schema

app_name = "objects"
urlpatterns = [
    # The objects themselves
    path("", schema.index, name="index"),
    path("new/", schema.object_new, name="new"),
    path("create/", schema.object_create_view, name="create"),
    path("new/key/", schema.object_key_preview, name="key_preview"),
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
    # Their records
    path("<remote_id:object_key>/records/", records.records, name="records"),
    path("<remote_id:object_key>/records/columns/", records.records_columns, name="records_columns"),
    path("<remote_id:object_key>/records/export.csv", export.records_export, name="records_export"),
    path("<remote_id:object_key>/records/new/", records.record_new, name="record_new"),
    path("<remote_id:object_key>/records/<remote_id:record_id>/", records.record, name="record"),
    path("<remote_id:object_key>/records/<remote_id:record_id>/edit/", records.record_edit, name="record_edit"),
    path("<remote_id:object_key>/records/<remote_id:record_id>/delete/", records.record_delete, name="record_delete"),
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
