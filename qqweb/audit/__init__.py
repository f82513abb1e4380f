"""Audit and undo: the trail every service writes, and undo by replaying an event's
``before``. Every app uses it through these public modules, never the other way round
(this package imports no app):

- :mod:`qqweb.audit.services`: ``audit_begin``, ``audited``, ``audit_undo``, ``batch_undo``,
  ``BulkResult``;
- :mod:`qqweb.audit.selectors`: ``audit_events``, ``target_history``;
- :mod:`qqweb.audit.registry`: ``register_undo(action, handler)``, called by each app's
  ``AppConfig.ready()``;
- :mod:`qqweb.audit.snapshots`: ``to_json`` / ``from_json``;
- :mod:`qqweb.audit.errors`: ``UndoRefused``;
- :mod:`qqweb.audit.models`: ``AuditEvent``.
"""
