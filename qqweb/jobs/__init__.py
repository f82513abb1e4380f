"""The jobs app: the kinds of work qqweb runs in the background (a *job*: archival, a dedup
scan, an export) and each execution of one (a *run*: its lock, progress, cancel, retry).

It imports no app. The apps register their jobs in their ``AppConfig.ready()``
(:func:`qqweb.jobs.registry.register_job`), as they register undo handlers with
:mod:`qqweb.audit.registry`.
"""
