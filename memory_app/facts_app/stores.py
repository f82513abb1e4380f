"""Wiring: the facts library's store built from settings (cheap, no I/O; the client is
shared per process)."""

from __future__ import annotations

from django.conf import settings

from memory_app.facts import FactsConfigError, FactsStore, facts_database
from qqweb.clients import facts_mongo_client


class FactsOff(Exception):
    """``QQ_FACTS_MONGO_URI`` is not set: the facts pages and API are off."""


def facts_enabled() -> bool:
    return bool(settings.QQ_FACTS_MONGO_URI)


def facts_configuration_error() -> str:
    """'' when the facts settings are usable (or off), else what is wrong."""
    if not facts_enabled():
        return ""
    try:
        facts_database(settings.QQ_FACTS_MONGO_URI, settings.QQ_FACTS_MONGO_DB)
    except FactsConfigError as e:
        return str(e)
    return ""


def facts_store() -> FactsStore:
    """The facts store of the settings; :class:`FactsOff` when the URI is not set,
    :class:`FactsConfigError` when no database can be named."""
    if not facts_enabled():
        raise FactsOff("the facts store is off: QQ_FACTS_MONGO_URI is not set")
    return FactsStore(
        facts_mongo_client(),
        facts_database(settings.QQ_FACTS_MONGO_URI, settings.QQ_FACTS_MONGO_DB),
        settings.QQ_FACTS_COLLECTION,
    )
