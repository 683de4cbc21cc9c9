from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class StudioConfig(AppConfig):
    name = "studio"

    def ready(self) -> None:
        from dashboard.frame.areas import Area, HomeCard, ListPage, NavEntry, Periodic, register_area
        from studio.assistant_tools import STUDIO_TOOLS
        from studio.home import recent_conversations
        from studio.inbox import STUDIO_INBOX
        from studio.live import APP_SHOT, STUDIO_TURN
        from studio.palette import PALETTE_SOURCES
        from studio.zip_jobs import ZIP_JOB

        register_area(
            Area(
                name="studio",
                order=10,
                nav=(NavEntry(_("Studio"), "studio:index"),),
                cards=(
                    HomeCard(
                        _("Studio"),
                        _("Websites, documents, apps, images and video, made turn by turn."),
                        "studio:index",
                    ),
                ),
                list_pages=(ListPage(_("Back to Studio"), "studio:index"),),
                tracked_kinds=(STUDIO_TURN, APP_SHOT),
                inbox_sources=(STUDIO_INBOX,),
                home_sections=(recent_conversations,),
                remote_resources=("studio", "turns", "websites", "documents", "apps", "images", "videos", "boards"),
                palette_sources=PALETTE_SOURCES,
                # A selection's ZIP files are not kept for ever (studio/zip_jobs.py).
                periodic=(Periodic("studio.zips_prune", every=3600.0, expires=3000.0),),
                job_kinds=(ZIP_JOB,),
                mcp_tools=STUDIO_TOOLS,
            )
        )
