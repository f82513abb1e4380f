"""The notes store: the only code that speaks pymongo to the agent's ``notes`` collection.

- ``base.py``: client, collection, change notices (error classification, outage or bug,
  is the kernel's: ``qqweb.lib.mongo.guard``);
- ``seed.py``: :class:`MongoNotesStore` and the seed API agent code calls;
- ``writes.py``: the named compare-and-set writes of qqweb's services;
- ``reads.py``: the dashboard's reads and what the vector index is fed with;
- ``scans.py``: the maintenance walks (decay, archival, re-embed, dedup vectors);
- ``paging.py``: the notes list, read through bounded index ranges.
"""

from memory_app.notes.lib.mongo.scans import DecayReport, EmbeddingWrite
from memory_app.notes.lib.mongo.seed import MongoNotesStore
from memory_app.notes.lib.mongo.writes import MERGED_IDS_FIELD
from qqweb.lib.mongo.guard import classify

__all__ = ["MERGED_IDS_FIELD", "DecayReport", "EmbeddingWrite", "MongoNotesStore", "classify"]
