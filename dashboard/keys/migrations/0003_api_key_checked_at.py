# The last time the console asked the service about a stored key, whatever it
# answered: the claim and the clock of the key re-check (issue 30, item 1).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("keys", "0002_api_key_refused"),
    ]

    operations = [
        migrations.AddField(
            model_name="apikey",
            name="checked_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
