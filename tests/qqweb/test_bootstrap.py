import stat

from django.contrib.auth import authenticate
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import RequestFactory

LOGIN = RequestFactory().post("/accounts/login/")  # django-axes counts logins per request


def test_bootstrap_creates_the_roles_and_an_admin_who_can_sign_in(db, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("bootstrap")
    assert set(Group.objects.values_list("name", flat=True)) >= {"viewer", "curator", "admin"}
    credentials = tmp_path / "admin-credentials.txt"
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    password = credentials.read_text().split("password: ")[1].strip()
    user = authenticate(LOGIN, username="admin", password=password)
    assert user is not None and user.is_superuser


def test_a_second_bootstrap_keeps_the_admins_password(db, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("bootstrap")
    first = (tmp_path / "admin-credentials.txt").read_text()
    call_command("bootstrap")
    assert (tmp_path / "admin-credentials.txt").read_text() == first
    password = first.split("password: ")[1].strip()
    assert authenticate(LOGIN, username="admin", password=password) is not None
