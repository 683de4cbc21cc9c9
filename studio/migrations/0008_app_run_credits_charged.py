from django.db import migrations, models


def charged_of(answer):
    """studio/costs.py's reader as it was when this migration was written (a migration keeps its own copy)."""
    value = answer.get("credits_charged") if isinstance(answer, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    return round(value) if 0 <= value <= 10**9 else None


def keep_charges(apps, schema_editor):
    """Runs kept before: their charge from the answer they stored (a video
    shot's from its followed operation's last state)."""
    AppRun = apps.get_model("studio", "AppRun")
    for run in AppRun.objects.select_related("operation").iterator(chunk_size=500):
        snapshot = run.operation.snapshot if run.operation_id else None
        charged = charged_of(snapshot) if isinstance(snapshot, dict) else None
        if charged is None:
            charged = charged_of(run.result)
        if charged is not None:
            AppRun.objects.filter(pk=run.pk).update(credits_charged=charged)


class Migration(migrations.Migration):
    dependencies = [
        ("studio", "0007_stepped_job_columns"),
        ("live", "0002_poller_slots"),
    ]

    operations = [
        migrations.AddField(
            model_name="apprun",
            name="credits_charged",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(keep_charges, migrations.RunPython.noop),
    ]
