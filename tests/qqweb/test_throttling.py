"""Wrong passwords lock a login out for a while (django-axes); API tokens are rate
limited (django-ratelimit), and so are guesses of tokens."""

import pytest
from django.test import Client

from qqweb.services import api_token_create

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


def test_guessing_tokens_is_answered_429_then_even_a_good_token_waits(viewer, settings):
    settings.QQ_API_TOKEN_FAILURE_RATE = "3/m"
    _, raw = api_token_create(user=viewer, name="script")
    guesses = [
        Client(HTTP_AUTHORIZATION=f"Bearer qq_guess{i}").get("/api/me").status_code
        for i in range(4)
    ]
    assert guesses == [401, 401, 401, 429]
    assert Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/me").status_code == 429
    elsewhere = Client(HTTP_AUTHORIZATION=f"Bearer {raw}", REMOTE_ADDR="10.0.0.9")
    assert elsewhere.get("/api/me").status_code == 200


def test_a_client_address_that_is_no_address_is_counted_not_a_500(viewer, settings):
    """A proxy header gone wrong (or a client with no address) still gets its 401s and
    its 429, counted under that value."""
    settings.QQ_API_TOKEN_FAILURE_RATE = "2/m"
    settings.QQ_CLIENT_IP_HEADER = "X-Real-IP"
    odd = {"HTTP_AUTHORIZATION": "Bearer qq_guess", "HTTP_X_REAL_IP": "unknown"}
    assert [Client(**odd).get("/api/me").status_code for _ in range(3)] == [401, 401, 429]
    other = {**odd, "HTTP_X_REAL_IP": "2001:db8::1"}
    assert Client(**other).get("/api/me").status_code == 401
