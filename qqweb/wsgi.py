import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qqweb.settings")
application = get_wsgi_application()

from qqweb.security import refuse_public_secret_key  # noqa: E402 - needs the settings

refuse_public_secret_key()

# The embedding model and the vector index load in the background from now on (see
# qqweb.clients and memory_app.stores).
from memory_app.stores import vector_index_warm_up  # noqa: E402  (after Django is set up)
from qqweb.clients import embedder_warm_up  # noqa: E402

embedder_warm_up(wait_while_loading=False)
vector_index_warm_up()
