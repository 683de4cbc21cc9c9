"""/scim/v2/ (dashboard/urls.py): the SCIM service for a company directory."""

from django.urls import path

from dashboard.directory import views_scim

app_name = "scim"

urlpatterns = [
    path("ServiceProviderConfig", views_scim.service_provider_config, name="service_provider_config"),
    path("ResourceTypes", views_scim.resource_types, name="resource_types"),
    path("ResourceTypes/<str:name>", views_scim.resource_type, name="resource_type"),
    path("Schemas", views_scim.schemas, name="schemas"),
    path("Schemas/<str:schema_id>", views_scim.schema, name="schema"),
    path("Users", views_scim.users, name="users"),
    path("Users/<str:scim_id>", views_scim.user, name="user"),
    path("Groups", views_scim.groups, name="groups"),
    path("Groups/<str:scim_id>", views_scim.group, name="group"),
]
