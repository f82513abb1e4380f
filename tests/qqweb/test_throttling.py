"""Wrong passwords lock a login out for a while (django-axes); API tokens are rate
limited (django-ratelimit), and so are guesses of tokens."""

import pytest
from django.test import Client

from qqweb.services import api_token_create, api_token_revoke

pytestmark = pytest.mark.django_db


def login(client, password):
    return client.post("/accounts/login/", {"username": "vera-viewer", "password": password})


def test_after_five_wrong_passwords_the_right_one_is_refused_too(viewer):
    client = Client()
    answers = [login(client, "wrong").status_code for _ in range(5)]
    assert answers == [200, 200, 200, 200, 429]  # the form again with its error, then locked
    locked = login(client, "pw-vera-viewer")
    assert locked.status_code == 429
    assert "_auth_user_id" not in client.session
    assert client.get("/").status_code == 302  # still sent to the login page


def test_a_right_password_before_the_limit_signs_in_and_resets_the_count(viewer, settings):
    settings.AXES_FAILURE_LIMIT = 3
    client = Client()
    for _ in range(2):
        login(client, "wrong")
    assert login(client, "pw-vera-viewer").status_code == 302
    other = Client()
    for _ in range(2):
        login(other, "wrong")
    assert login(other, "pw-vera-viewer").status_code == 302


def test_the_lockout_is_per_address(viewer, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for _ in range(3):
        login(Client(REMOTE_ADDR="10.0.0.1"), "wrong")
    assert login(Client(REMOTE_ADDR="10.0.0.1"), "pw-vera-viewer").status_code == 429
    assert login(Client(REMOTE_ADDR="10.0.0.2"), "pw-vera-viewer").status_code == 302


def test_a_login_from_a_client_with_no_address_signs_in_and_is_locked_out_as_any(viewer, settings):
    """A proxy on a Unix socket leaves REMOTE_ADDR empty, a proxy header may hold no
    address: such a login still signs in (before: a 500 on PostgreSQL, whose column for
    the address takes only addresses), and its wrong passwords still lock it out."""
    settings.AXES_FAILURE_LIMIT = 3
    settings.QQ_CLIENT_IP_HEADER = "X-Real-IP"
    assert login(Client(HTTP_X_REAL_IP="unknown"), "pw-vera-viewer").status_code == 302
    assert login(Client(REMOTE_ADDR=""), "pw-vera-viewer").status_code == 302
    answers = [
        login(Client(HTTP_X_REAL_IP="proxy-gone-wrong"), "wrong").status_code for _ in range(3)
    ]
    assert answers == [200, 200, 429]
    assert login(Client(HTTP_X_REAL_IP="unknown"), "pw-vera-viewer").status_code == 429
    assert login(Client(HTTP_X_REAL_IP="10.0.0.9"), "pw-vera-viewer").status_code == 302


def test_a_token_past_its_rate_is_answered_429(viewer, settings):
    settings.QQ_API_TOKEN_RATE = "3/m"
    _, raw = api_token_create(user=viewer, name="busy script")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert [client.get("/api/me").status_code for _ in range(3)] == [200, 200, 200]
    refused = client.get("/api/me")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert refused["Retry-After"] == "60"
    _, other = api_token_create(user=viewer, name="another script")
    assert Client(HTTP_AUTHORIZATION=f"Bearer {other}").get("/api/me").status_code == 200


def test_guessing_tokens_is_answered_429_but_a_good_token_from_that_address_still_works(
    viewer, settings
):
    settings.QQ_API_TOKEN_FAILURE_RATE = "3/m"
    _, raw = api_token_create(user=viewer, name="script")
    guesses = [
        Client(HTTP_AUTHORIZATION="Bearer qq_guessing").get("/api/me").status_code for _ in range(4)
    ]
    assert guesses == [401, 401, 401, 429]
    assert Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/me").status_code == 200


def test_a_stranger_behind_the_same_address_cannot_lock_out_a_valid_token(viewer, settings):
    """Two clients behind one proxy (one address): one sends twenty bogus tokens a minute,
    even ones that start like the valid token; the other's valid token keeps answering
    200, and the stranger alone is told 429."""
    settings.QQ_API_TOKEN_FAILURE_RATE = "20/m"
    _, raw = api_token_create(user=viewer, name="nightly script")
    stranger = Client(REMOTE_ADDR="10.0.0.7")
    script = Client(REMOTE_ADDR="10.0.0.7", HTTP_AUTHORIZATION=f"Bearer {raw}")
    bogus = [
        stranger.get("/api/me", HTTP_AUTHORIZATION="Bearer qq_bogus-token").status_code
        for _ in range(25)
    ]
    same_start = [
        stranger.get("/api/me", HTTP_AUTHORIZATION=f"Bearer {raw[:10]}x{i}").status_code
        for i in range(25)
    ]
    assert bogus[:20] == [401] * 20 and set(bogus[20:]) == {429}
    assert set(same_start[20:]) == {429}
    answers = [script.get("/api/me") for _ in range(5)]
    assert [a.status_code for a in answers] == [200] * 5
    assert answers[-1].json()["via"] == "token"


def test_a_stranger_varying_its_tokens_is_refused_and_the_valid_token_still_works(viewer, settings):
    """Varying the bogus tokens does not escape the limit: the address's failures count
    too (ten times one token's budget); the valid token from that address still works."""
    settings.QQ_API_TOKEN_FAILURE_RATE = "2/m"
    _, raw = api_token_create(user=viewer, name="script")
    answers = [
        Client().get("/api/me", HTTP_AUTHORIZATION=f"Bearer qq_{i:07d}x").status_code
        for i in range(22)
    ]
    assert answers[:20] == [401] * 20 and answers[20:] == [429, 429]
    assert Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/me").status_code == 200


def test_another_clients_revoked_token_is_told_401_not_the_strangers_429(viewer, settings):
    """The failures count per presented token (its first characters) and address: a
    script with a revoked token behind the same address still learns its token is no
    good (401), not that someone else was refused."""
    settings.QQ_API_TOKEN_FAILURE_RATE = "3/m"
    token, raw = api_token_create(user=viewer, name="old script")
    api_token_revoke(token_id=token.pk)
    for _ in range(5):
        Client().get("/api/me", HTTP_AUTHORIZATION="Bearer qq_strangerxx")
    assert Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/me").status_code == 401


def test_a_client_address_that_is_no_address_is_counted_not_a_500(viewer, settings):
    """A proxy header gone wrong (or a client with no address) still gets its 401s and
    its 429, counted under that value."""
    settings.QQ_API_TOKEN_FAILURE_RATE = "2/m"
    settings.QQ_CLIENT_IP_HEADER = "X-Real-IP"
    odd = {"HTTP_AUTHORIZATION": "Bearer qq_guess", "HTTP_X_REAL_IP": "unknown"}
    assert [Client(**odd).get("/api/me").status_code for _ in range(3)] == [401, 401, 429]
    other = {**odd, "HTTP_X_REAL_IP": "2001:db8::1"}
    assert Client(**other).get("/api/me").status_code == 401


def test_guesses_from_one_ipv6_64_share_a_limit_and_another_64_has_its_own(viewer, settings):
    """An IPv6 client counts by its /64 (one machine's share, which it can vary the rest
    of at will): a guesser moving to the next address of its /64 is still refused; an
    address in another /64 is not."""
    settings.QQ_API_TOKEN_FAILURE_RATE = "2/m"
    settings.QQ_CLIENT_IP_HEADER = "X-Real-IP"

    def guess(address: str) -> int:
        client = Client(HTTP_AUTHORIZATION="Bearer qq_guess", HTTP_X_REAL_IP=address)
        return client.get("/api/me").status_code

    assert [guess("2001:db8:0:1::1"), guess("2001:db8:0:1::2")] == [401, 401]
    assert guess("2001:db8:0:1:ffff:ffff:ffff:ffff") == 429  # the same /64
    assert guess("2001:db8:0:2::1") == 401  # the next /64
