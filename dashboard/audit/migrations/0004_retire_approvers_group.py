"""The Approvers group is retired: its members have had the Approver role
since people.0002 (which read the group), and the console roles now grant
"decide approvals" and "view the audit trail" (`dashboard/people/roles.py`).

Left in place, the group would go on granting both through Django's
ModelBackend, whatever role the People page gives its members later (a
member made Viewer would still decide approvals, and read the trail, which
the Approver role no longer does). Going back re-creates the group, as
0002 made it, with every Approver in it."""

from django.db import migrations

APPROVERS = "Approvers"
CODENAMES = ("decide_approvals", "view_audit_trail")


def retire(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=APPROVERS).delete()


def restore(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    Person = apps.get_model("people", "Person")
    group, _ = Group.objects.get_or_create(name=APPROVERS)
    group.permissions.add(*Permission.objects.filter(content_type__app_label="audit", codename__in=CODENAMES))
    group.user_set.add(*Person.objects.filter(role="approver").values_list("user_id", flat=True))


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0003_account_events"),
        # The roles are given from the group first.
        ("people", "0002_roles_from_groups"),
    ]

    operations = [migrations.RunPython(retire, restore)]
