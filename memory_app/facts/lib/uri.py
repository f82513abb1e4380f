"""Which database a facts store lives in, decided as the agent decides it."""

from __future__ import annotations

from pymongo.uri_parser import parse_uri

from qqweb.lib.errors import QQError


class FactsConfigError(QQError, ValueError):
    """The facts store's settings cannot name a database: a misconfiguration (500, logged)."""

    code = "misconfigured"


def facts_database(uri: str, database: str = "") -> str:
    """``database`` when given; else the database in the URI's path, as the agent's
    ``client.get_database()`` takes it. The agent has no default: neither is an error."""
    if database:
        return database
    try:
        named = parse_uri(uri, validate=False, warn=True).get("database")
    except Exception as e:  # pymongo raises several types for a malformed URI
        raise FactsConfigError(f"QQ_FACTS_MONGO_URI is not a MongoDB URI: {e}") from e
    if not named:
        raise FactsConfigError(
            "no facts database: QQ_FACTS_MONGO_URI has no database in its path "
            "(e.g. mongodb://host:27017/lily, as the agent's MONGO_URI must) "
            "and QQ_FACTS_MONGO_DB is not set"
        )
    return str(named)
