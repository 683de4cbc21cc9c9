from django.apps import AppConfig


class ObjectsConfig(AppConfig):
    name = "objects"

    def ready(self) -> None:
        from dashboard.frame.areas import Area, HomeCard, ListPage, NavEntry, Periodic, StatusPart, register_area
        from objects.home import records_you_edited
        from objects.palette import PALETTE_SOURCES
        from objects.status import job_backlog

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
                palette_sources=PALETTE_SOURCES,
                home_sections=(records_you_edited,),
                status_parts=(
                    StatusPart(
                        "Object jobs",
                        "Bulk edits, bulk deletes and CSV imports that are not over, by status",
                        job_backlog,
                        empty="No bulk job or import is waiting or running.",
                    ),
                ),
                # A job whose step message was lost goes on (objects/jobs.py);
                # uploaded files and the trash are not kept for ever.
                periodic=(
                    Periodic("objects.jobs_watch", every=60.0, expires=55.0),
                    Periodic("objects.uploads_prune", every=24 * 3600.0),
                    Periodic("objects.trash_expire", every=24 * 3600.0),
                ),
            )
        )
        # Object jobs by kind and state in every metrics scrape (dashboard/metrics/collect.py).
        from dashboard.metrics.collect import register_gauges
        from objects.metrics import job_gauges

        register_gauges("object_jobs", job_gauges)
