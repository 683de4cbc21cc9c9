from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ObjectsConfig(AppConfig):
    name = "objects"

    def ready(self) -> None:
        from dashboard.frame.areas import Area, HomeCard, ListPage, NavEntry, Periodic, StatusPart, register_area
        from objects import bulk, imports, job_undo, merge, trash
        from objects.api import router as records_api
        from objects.assistant_tools import RECORD_TOOLS
        from objects.comments import RECORDS_INBOX
        from objects.home import records_you_edited
        from objects.jobs import OBJECT_JOB, phases_register
        from objects.models import ObjectJob
        from objects.palette import PALETTE_SOURCES
        from objects.status import job_backlog
        from objects.tallies import RECORD_TALLY

        # The chunk of each phase of a job: (status, kind) -> its function (objects/jobs.py).
        phases_register(
            {
                (ObjectJob.COLLECTING, ObjectJob.KIND_EDIT): bulk.collect_chunk,
                (ObjectJob.COLLECTING, ObjectJob.KIND_DELETE): bulk.collect_chunk,
                (ObjectJob.RUNNING, ObjectJob.KIND_EDIT): bulk.write_chunk,
                (ObjectJob.RUNNING, ObjectJob.KIND_DELETE): bulk.write_chunk,
                (ObjectJob.CHECKING, ObjectJob.KIND_IMPORT): imports.check_chunk,
                (ObjectJob.RUNNING, ObjectJob.KIND_IMPORT): imports.write_chunk,
                (ObjectJob.RUNNING, ObjectJob.KIND_RESTORE): trash.restore_chunk,
                (ObjectJob.RUNNING, ObjectJob.KIND_UNDO): job_undo.undo_chunk,
                (ObjectJob.RUNNING, ObjectJob.KIND_MERGE): merge.merge_chunk,
            }
        )

        register_area(
            Area(
                name="objects",
                order=30,
                nav=(NavEntry(_("Objects"), "objects:index"),),
                cards=(
                    HomeCard(
                        _("Objects"), _("The workspace's record systems: schemas, records and links."), "objects:index"
                    ),
                ),
                list_pages=(ListPage(_("Back to objects"), "objects:index"),),
                remote_resources=("objects",),
                palette_sources=PALETTE_SOURCES,
                home_sections=(records_you_edited,),
                inbox_sources=(RECORDS_INBOX,),
                api_routers=(("/", records_api),),
                job_kinds=(OBJECT_JOB, RECORD_TALLY),
                mcp_tools=RECORD_TOOLS,
                status_parts=(
                    StatusPart(
                        "Object jobs",
                        "Bulk edits, bulk deletes and CSV imports that are not over, by status",
                        job_backlog,
                        empty="No bulk job or import is waiting or running.",
                    ),
                ),
                # Uploaded files and the trash are not kept for ever (a job whose
                # step message was lost is the core's jobs.watch: dashboard/schedule.py).
                periodic=(
                    Periodic("objects.uploads_prune", every=24 * 3600.0),
                    Periodic("objects.trash_expire", every=24 * 3600.0),
                    # Presence rows long past their last beat (objects/presence.py).
                    Periodic("objects.presence_prune", every=3600.0),
                ),
            )
        )
        # Object jobs by kind and state in every metrics scrape (dashboard/metrics/collect.py).
        from dashboard.metrics.collect import register_gauges
        from dashboard.metrics.initial import register_series
        from objects.metrics import job_gauges, job_row_series

        register_gauges("object_jobs", job_gauges)
        register_series("object_job_rows", job_row_series)
