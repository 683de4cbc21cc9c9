"""Every existing account gets its role: a superuser is an Administrator, a
member of the Approvers group an Approver, anyone else a Member (what they
could do before roles)."""

from django.db import migrations


def give_roles(apps, schema_editor):
    User = apps.get_model("auth", "User")
    Person = apps.get_model("people", "Person")
    have = set(Person.objects.values_list("user_id", flat=True))
    rows = []
    for user in User.objects.exclude(pk__in=have).prefetch_related("groups"):
        if user.is_superuser:
            role = "administrator"
        elif any(group.name == "Approvers" for group in user.groups.all()):
            role = "approver"
        else:
            role = "member"
        rows.append(Person(user_id=user.pk, role=role))
    Person.objects.bulk_create(rows)


class Migration(migrations.Migration):
    dependencies = [
        ("people", "0001_initial"),
        ("audit", "0002_approvers_group"),
    ]

    operations = [migrations.RunPython(give_roles, migrations.RunPython.noop)]
