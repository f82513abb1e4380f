"""The WSGI entry point (gunicorn, runserver).

The embedding model and the vector index start loading in the background before Django
sets up its apps: they need only the settings and the memory library, so their file
reads and MongoDB catch-up overlap the seconds the apps and the URLconf take to import,
and the first search after a start is answered sooner (see qqweb.lib.clients and
memory_app.notes.stores; a request that comes before they are ready is told "loading").
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qqweb.settings")

from qqweb.warm_up import at_import

at_import()  # under gunicorn's config: the model now, the rest after the fork (warm_up.py)

from django.core.wsgi import get_wsgi_application  # noqa: E402

application = get_wsgi_application()

# qqweb.urls: the URLconf, every view and the API's schemas imported now rather than by
# each process's first request: under gunicorn's preload once, in the master, for every
# worker it forks.
import qqweb.urls  # noqa: E402, F401
from qqweb.lib.security import refuse_public_secret_key  # noqa: E402 - needs the apps

refuse_public_secret_key()
