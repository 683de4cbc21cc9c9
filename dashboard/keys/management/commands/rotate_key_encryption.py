from django.core.management.base import BaseCommand, CommandError

from dashboard.keys.services import api_key_reencrypt_all


class Command(BaseCommand):
    help = (
        "Re-encrypt every stored API key under the newest key in KEY_ENCRYPTION_KEYS. "
        "Put the new Fernet key first, keep the old ones after it, run this, then remove the old ones."
    )

    def handle(self, *args, **options) -> None:
        done, unreadable = api_key_reencrypt_all()
        self.stdout.write(self.style.SUCCESS(f"Re-encrypted {done} stored API key(s) under the newest encryption key."))
        if unreadable:
            listing = ", ".join(f"#{key.pk} {key.label!r} of {key.user}" for key in unreadable)
            raise CommandError(
                f"{len(unreadable)} stored key(s) could not be decrypted with any configured key and were left as they are: {listing}. "
                "Their owners must add them again."
            )
