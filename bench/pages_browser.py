"""The curator of bench/pages_http.py over HTTP: signed in through the login form (its
CSRF cookie, the session), asking the pages and the search API of gunicorn's workers,
warming each worker before a timed row, and waiting until every worker answers a search.
"""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor

WORKERS = 3
PASSWORD = "bench-pages-password-1"  # noqa: S105 - a throwaway user of the bench's database


class Browser:
    """A signed-in curator over HTTP (the login form, its CSRF cookie, the session)."""

    def __init__(self, base: str) -> None:
        import requests

        self.base = base
        self.http = requests.Session()

    def sign_in(self, username: str, password: str) -> None:
        login = self.http.get(f"{self.base}/accounts/login/", timeout=60)
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.text)
        assert csrf, f"no CSRF token on the login page (HTTP {login.status_code})"
        answer = self.http.post(
            f"{self.base}/accounts/login/",
            data={"username": username, "password": password, "csrfmiddlewaretoken": csrf[1]},
            headers={"Referer": f"{self.base}/accounts/login/"},
            allow_redirects=False,
            timeout=60,
        )
        assert answer.status_code == 302 and "sessionid" in self.http.cookies, (
            f"sign-in failed: HTTP {answer.status_code}"
        )

    def get(self, path: str) -> str:
        answer = self.http.get(f"{self.base}{path}", timeout=120, allow_redirects=False)
        if answer.status_code != 200:
            raise RuntimeError(f"GET {path}: HTTP {answer.status_code}")
        return answer.text

    def warm(self, path: str, rounds: int = 3) -> None:
        """``path`` asked by WORKERS clients at once, ``rounds`` times: every worker answers
        it at least once (one client's requests may all reach one worker), so its first
        answer (a first parse of the archive, say) is not among the timed ones."""
        import requests

        def ask(_: int) -> None:
            with requests.Session() as other:
                other.cookies.update(self.http.cookies)
                other.get(f"{self.base}{path}", timeout=120)

        with ThreadPoolExecutor(WORKERS) as pool:
            for _ in range(rounds):
                list(pool.map(ask, range(WORKERS)))

    def api_search(self, token: str, query: str) -> None:
        answer = self.http.post(
            f"{self.base}/api/notes/search",
            json={"query": query, "limit": 20},
            headers={"Authorization": f"Bearer {token}"},
            timeout=120,
        )
        if answer.status_code != 200:
            raise RuntimeError(f"API search: HTTP {answer.status_code} {answer.text[:120]}")


def curator() -> str:
    """A curator of the bench's database (shared with gunicorn); its username."""
    from django.contrib.auth.models import Group, User

    from qqweb.lib.auth import CURATOR
    from qqweb.services import roles_ensure

    roles_ensure()
    user, _ = User.objects.get_or_create(username="bench-pages")
    user.set_password(PASSWORD)
    user.save()
    user.groups.add(Group.objects.get(name=CURATOR))
    return user.username


def wait_workers_ready(browser: Browser, token: str, give_up_s: float = 600.0) -> float:
    """Ask the search API until 4 x WORKERS answers in a row are 200 (each worker's model
    and index loaded; gunicorn spreads the requests); the seconds it took."""
    t = time.perf_counter()
    in_a_row = 0
    while in_a_row < 4 * WORKERS:
        if time.perf_counter() - t > give_up_s:
            raise SystemExit(f"the workers did not all answer a search in {give_up_s:.0f} s")
        try:
            browser.api_search(token, "billing topic")
            in_a_row += 1
        except Exception:
            in_a_row = 0
            time.sleep(1.0)
    return time.perf_counter() - t
