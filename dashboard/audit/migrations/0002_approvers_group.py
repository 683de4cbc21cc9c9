"""The Approvers group: who may decide approvals and read the audit trail."""

from django.db import migrations

APPROVERS = "Approvers"
PERMISSIONS = {"decide_approvals": "Can decide approvals", "view_audit_trail": "Can view the audit trail"}


def create_approvers(apps, schema_editor):
    # Permissions are normally created after all migrations ran (post_migrate);
    # make the two this group needs now, as post_migrate would.
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    Group = apps.get_model("auth", "Group")
    content_type, _ = ContentType.objects.get_or_create(app_label="audit", model="auditentry")
    permissions = [
        Permission.objects.get_or_create(content_type=content_type, codename=codename, defaults={"name": name})[0]
        for codename, name in PERMISSIONS.items()
    ]
    group, _ = Group.objects.get_or_create(name=APPROVERS)
    group.permissions.add(*permissions)


def remove_approvers(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=APPROVERS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_approvers, remove_approvers)]
