"""gunicorn settings for `make run` (Procfile) and the container image.

Read by gunicorn from the working directory. Environment:
WEB_HOST (127.0.0.1; the image sets 0.0.0.0), WEB_PORT (8000),
WEB_CONCURRENCY (worker processes, 2), WEB_THREADS (threads per worker, 8).
"""

import os

bind = f"{os.environ.get('WEB_HOST', '127.0.0.1')}:{os.environ.get('WEB_PORT', '8000')}"
wsgi_app = "dashboard.wsgi:application"

# Threads, not only processes: every browser polls status partials every
# 2 s and some pages wait on the remote service, so a request must not hold
# a whole process. Threads keep the worker count (and memory) small.
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("WEB_THREADS", "8"))
timeout = 120
graceful_timeout = 20
keepalive = 5

accesslog = "-"
errorlog = "-"
# Query strings can carry search terms but never the API key (it only ever
# travels in the Authorization header to the remote service).
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'

# gunicorn 27 opens a control socket under the home folder by default; the
# console does not use gunicornc, so there is nothing to leave behind.
control_socket_disable = True


def when_ready(server):
    host, port = bind.rsplit(":", 1)
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    server.log.info("Workspace Console is ready at http://%s:%s", shown, port)
    # `make run` sets this: its login banner has scrolled away by now.
    hint = os.environ.get("WEB_READY_HINT")
    if hint:
        server.log.info("%s", hint)
