"""The facts database is chosen as the agent chooses it: from the URI's path."""

from __future__ import annotations

from typing import Any

import pytest

from memory_app.facts.apps import facts_settings_check
from memory_app.facts.lib import FactsConfigError, facts_database


def test_the_database_comes_from_the_uri_path() -> None:
    assert facts_database("mongodb://127.0.0.1:27017/lily") == "lily"
    assert facts_database("mongodb://u:p@host/lily?authSource=admin") == "lily"


def test_the_setting_wins_over_the_uri() -> None:
    assert facts_database("mongodb://127.0.0.1:27017/lily", "other") == "other"


@pytest.mark.parametrize("uri", ["mongodb://127.0.0.1:27017/", "mongodb://127.0.0.1:27017"])
def test_neither_is_a_clear_error(uri: str) -> None:
    with pytest.raises(FactsConfigError, match="no database in its path"):
        facts_database(uri)


def test_the_system_check_names_it(settings: Any) -> None:
    settings.QQ_FACTS_MONGO_URI = "mongodb://127.0.0.1:27017/"
    settings.QQ_FACTS_MONGO_DB = ""
    [error] = facts_settings_check()
    assert error.id == "facts.E001"
    settings.QQ_FACTS_MONGO_DB = "lily"
    assert facts_settings_check() == []
    settings.QQ_FACTS_MONGO_URI = ""
    assert facts_settings_check() == []
