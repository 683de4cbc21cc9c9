# A 401 to any call made with a stored key marks it refused (issue 24, item 4).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("keys", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="apikey",
            name="refused_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="apikey",
            name="refused_request_id",
            field=models.CharField(blank=True, max_length=200),
        ),
    ]
