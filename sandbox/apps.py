from django.apps import AppConfig


class SandboxConfig(AppConfig):
    """Registered only for its management commands (runsandbox, sandbox_keys).

    The sandbox has no models and never touches the console's database.
    """

    name = "sandbox"
