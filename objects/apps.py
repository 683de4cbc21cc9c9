from django.apps import AppConfig


class ObjectsConfig(AppConfig):
    name = "objects"

    def ready(self) -> None:
        from dashboard.frame.areas import Area, HomeCard, ListPage, NavEntry, register_area

        register_area(
            Area(
                name="objects",
                order=30,
                nav=(NavEntry("Objects", "objects:index"),),
                cards=(
                    HomeCard("Objects", "The workspace's record systems: schemas, records and links.", "objects:index"),
                ),
                list_pages=(ListPage("Back to objects", "objects:index"),),
                remote_resources=("objects",),
            )
        )
        # Bulk jobs and imports: a job whose step message was lost goes on, and
        # uploaded files are not kept for ever (objects/jobs.py).
        from dashboard.celery import app

        app.conf.beat_schedule = {
            **(app.conf.beat_schedule or {}),
            "objects.jobs_watch": {"task": "objects.jobs_watch", "schedule": 60.0, "options": {"expires": 55.0}},
            "objects.uploads_prune": {"task": "objects.uploads_prune", "schedule": 24 * 3600.0},
        }
