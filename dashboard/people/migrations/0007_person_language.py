from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("people", "0006_person_getting_started_hidden"),
    ]

    operations = [
        migrations.AddField(
            model_name="person",
            name="language",
            field=models.CharField(blank=True, default="", max_length=8),
        ),
    ]
