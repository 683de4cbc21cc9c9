from django.urls import path

from objects import views

app_name = "objects"
urlpatterns = [
    # --- schema ---
    path("", views.index, name="index"),
    path("new/", views.object_new, name="new"),
    path("create/", views.object_create_view, name="create"),
    path("new/key/", views.object_key_preview, name="key_preview"),
    path("builder/field-row/", views.field_row_new, name="field_row"),
    path("builder/field-row/removed/", views.field_row_removed, name="field_row_remove"),
    path("builder/option-row/", views.field_option_new, name="field_option"),
    path("<str:object_key>/settings/", views.object_settings, name="settings"),
    path("<str:object_key>/settings/save/", views.object_settings_save, name="settings_save"),
    path("<str:object_key>/settings/fields/<str:field_key>/remove/", views.field_remove_confirm, name="field_remove"),
    path(
        "<str:object_key>/settings/fields/<str:field_key>/remove/confirm/",
        views.field_remove,
        name="field_remove_confirmed",
    ),
    # --- records ---
    path("<str:object_key>/records/", views.records, name="records"),
    path("<str:object_key>/records/columns/", views.records_columns, name="records_columns"),
    path("<str:object_key>/records/export.csv", views.records_export, name="records_export"),
    path("<str:object_key>/records/new/", views.record_new, name="record_new"),
    path("<str:object_key>/records/<str:record_id>/", views.record, name="record"),
    path("<str:object_key>/records/<str:record_id>/edit/", views.record_edit, name="record_edit"),
    path("<str:object_key>/records/<str:record_id>/delete/", views.record_delete, name="record_delete"),
    path("<str:object_key>/records/<str:record_id>/links/new/", views.relationship_new, name="relationship_new"),
    path("<str:object_key>/records/<str:record_id>/links/pick/", views.relationship_picker, name="relationship_picker"),
]
