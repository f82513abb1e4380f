"""gunicorn's configuration for the production image and docker-compose.yml
(``gunicorn -c qqweb/gunicorn.conf.py ...``; the command line adds the bind address, the
workers and the timeouts).

The request line (method, path and query string) may be up to 8,190 bytes, gunicorn's
largest; its default, 4,094, answered 414 to queries the API's schemas allow (a note list
with every filter at its length limit, its text percent-encoded, is about 6,300 bytes).
Every GET route fits at its limits when its text is ASCII; text in other scripts takes 6
to 12 bytes a character once percent-encoded, and a line past 8,190 bytes is still
answered 414 (by gunicorn, before the app). Long texts and lists go in POST bodies.

The application is imported once, in the master, and the workers are forked from it
(``preload_app``): three workers importing Django, the memory library and their
dependencies at once on a 2-core machine took three times the CPU of one, and the first
search after a restart waited for it; forked, they share those pages too (private memory
per worker). The master also loads the embedding model (numpy engine), which the workers
share; each worker starts its vector index in the ``post_fork`` hook
(``qqweb/warm_up.py``): nothing that holds a thread or a socket is started in the
master.
"""

from typing import Any

import qqweb.warm_up

qqweb.warm_up.after_fork = True
preload_app = True


def pre_fork(server: Any, worker: Any) -> None:
    qqweb.warm_up.before_fork()


def post_fork(server: Any, worker: Any) -> None:
    qqweb.warm_up.in_worker(server.pid)


limit_request_line = 8190
