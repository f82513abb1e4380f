import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qqweb.settings")
application = get_wsgi_application()

from qqweb.security import refuse_public_secret_key  # noqa: E402 - needs the settings

refuse_public_secret_key()
