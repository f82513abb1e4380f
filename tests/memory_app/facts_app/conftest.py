from tests.memory_app.facts.conftest import facts_store

__all__ = ["facts_store"]
