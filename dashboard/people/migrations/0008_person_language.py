from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("people", "0007_workspace_role"),
    ]

    operations = [
        migrations.AddField(
            model_name="person",
            name="language",
            field=models.CharField(blank=True, default="", max_length=8),
        ),
    ]
