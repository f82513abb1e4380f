"""Processes that die in the middle of an action, for the crash-recovery tests.

A fork server (``python -m tests.crashing``) sets Django up once, on the test database,
and then, for each request read from its stdin (one JSON line), forks a child that points
its settings at the test's stores, counts every write at the store boundary (MongoDB
writes of the notes store, ``archive.jsonl`` appends and rewrites, memory-file imports,
Neo4j write transactions and graph imports, and the Django rows the action writes: audit
events, review pairs, runs) and calls ``os._exit(137)`` right after the write numbered
``crash_after``: a ``kill -9`` at that point, with nothing flushed and no ``finally``
run. The child runs one named action (``ACTIONS``); the server answers with the exit code
and the writes the child made, named in order.

The patches live only in the forked children: the test process, which then retries and
checks, runs the code as it ships. The server itself opens no connection, so each child
builds its own clients after the fork.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from tests.services import ROOT

CRASH_EXIT = 137


# --- the test side --------------------------------------------------------------------------


class CrashServer:
    """The fork server, seen from the test: :meth:`run` one action in a child that dies
    after its ``crash_after``-th write (never, when it makes fewer)."""

    def __init__(self, env: dict[str, str], workdir: Path) -> None:
        self.workdir = workdir
        self.log = workdir / "crash-server.log"
        self._numbers = iter(range(1, 1_000_000))
        self._log = open(self.log, "ab")  # noqa: SIM115 (closed by close())
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.crashing"],
            cwd=ROOT,
            env={**os.environ, **env},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        if ready.strip() != "ready":
            raise RuntimeError(f"the crash server did not start:\n{self.log.read_text()}")

    def run(
        self, action: str, args: dict[str, Any], stores: dict[str, Any], crash_after: int
    ) -> tuple[int, list[str]]:
        """(exit code, the writes made, in order). 137: it died after write ``crash_after``;
        0: the action finished; 1: it raised (the traceback is in the server's log)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        steps = self.workdir / f"steps-{next(self._numbers)}.log"
        request = {
            "action": action,
            "args": args,
            "settings": stores,
            "crash_after": crash_after,
            "steps": str(steps),
        }
        self.proc.stdin.write(json.dumps(request, default=str) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the crash server stopped:\n{self.log.read_text()}")
        rc = int(json.loads(answer)["rc"])
        names = steps.read_text().splitlines() if steps.exists() else []
        if rc not in (0, CRASH_EXIT):
            raise AssertionError(
                f"{action} raised in the child (after {names}):\n{self.log.read_text()[-4000:]}"
            )
        return rc, names

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self._log.close()


# --- the child side ---------------------------------------------------------------------------


class _Counter:
    """Counts the outermost store writes of this process; dies after the chosen one."""

    def __init__(self, crash_after: int, steps: IO[str]) -> None:
        self.crash_after, self.steps, self.count = crash_after, steps, 0
        self.depth = threading.local()

    def wrap(self, owner: type, name: str, counts: Callable[..., bool] | None = None) -> None:
        original = getattr(owner, name)
        counter = self

        def write(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(counter.depth, "n", 0)
            counted = depth == 0 and (counts is None or counts(*args, **kwargs))
            counter.depth.n = depth + 1
            try:
                result = original(*args, **kwargs)
            finally:
                counter.depth.n = depth
            if counted:
                counter.count += 1
                counter.steps.write(f"{owner.__name__}.{name}\n")
                counter.steps.flush()
                if counter.count == counter.crash_after:
                    os._exit(CRASH_EXIT)
            return result

        setattr(owner, name, write)


def _is_graph_write(store: Any, text: str, /, **params: Any) -> bool:
    return "CREATE" in text  # the backup mixin's _write also runs its reads


def _model_save(model: Any) -> Callable[..., bool]:
    def counts(instance: Any, *args: Any, **kwargs: Any) -> bool:
        return isinstance(instance, model)

    return counts


def _install(counter: _Counter) -> None:
    from graph_app.knowledge.store import GraphStore
    from memory_app.notes.lib.archive.file import ArchiveFile
    from memory_app.notes.lib.backup_files import MemoryFiles
    from memory_app.notes.lib.mongo_store import MongoNotesStore
    from memory_app.notes.models import ReviewPair
    from qqweb.audit.models import AuditEvent
    from qqweb.jobs.models import Run

    for name in (
        "update_if_unchanged",
        "delete_if_unchanged",
        "insert_agent_documents",
        "merge_into_primary",
        "unmerge_primary",
        "insert_exported",
    ):
        counter.wrap(MongoNotesStore, name)
    counter.wrap(ArchiveFile, "append")
    counter.wrap(ArchiveFile, "rewrite")
    counter.wrap(MemoryFiles, "import_file")
    for name in (
        "apply_merge",
        "write_entity_props",
        "delete_entity",
        "restore_entities",
        "rewrite_relationship",
        "delete_relationship",
        "recreate_relationship",
    ):
        counter.wrap(GraphStore, name)  # each one write transaction (its reads: curate too)
    counter.wrap(GraphStore, "_write", _is_graph_write)
    for model in (AuditEvent, ReviewPair, Run):
        counter.wrap(model, "save", _model_save(model))


def _actor() -> Any:
    from qqweb.lib.actors import Actor

    return Actor("user", "ada-admin", None, "admin")


def _archive(note_id: str) -> None:
    from memory_app.notes.services.notes import note_archive

    note_archive(actor=_actor(), note_id=note_id)


def _restore(note_id: str) -> None:
    from memory_app.notes.services.notes import note_restore

    note_restore(actor=_actor(), note_id=note_id)


def _merge(pair_id: int, verdict: str, content: str | None = None) -> None:
    from memory_app.notes.services.review import review_verdict

    review_verdict(actor=_actor(), pair_id=pair_id, verdict=verdict, content=content)


def _purge(days: int) -> None:
    from memory_app.notes.services.archive import archive_purge

    archive_purge(actor=_actor(), days=days)


def _graph_merge(source: list[str], target: list[str]) -> None:
    from graph_app.services.merge import entity_merge

    entity_merge(actor=_actor(), source=(source[0], source[1]), target=(target[0], target[1]))


def _import(run_id: int) -> None:
    from qqweb.jobs.models import Run
    from qqweb.jobs.tasks import run_backup_task

    run_backup_task.run(Run.objects.get(pk=run_id).pk)


ACTIONS: dict[str, Callable[..., None]] = {
    "archive": _archive,
    "restore": _restore,
    "merge": _merge,
    "purge": _purge,
    "graph_merge": _graph_merge,
    "import": _import,
}


def _child(request: dict[str, Any]) -> None:
    """In the forked child: never returns."""
    os.dup2(2, 1)  # the server's stdout is its answers
    code = 1
    try:
        from django.conf import settings

        for name, value in request["settings"].items():
            setattr(settings, name, value)
        with open(request["steps"], "w") as steps:
            _install(_Counter(int(request["crash_after"]), steps))
            ACTIONS[request["action"]](**request["args"])
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(code)


def _requests(stream: IO[str]) -> Iterator[dict[str, Any]]:
    for line in stream:
        if line.strip():
            yield json.loads(line)


def main() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qqweb.settings")
    django.setup()
    modules = ("memory_app.notes.services.review", "graph_app.services.merge", "qqweb.jobs.tasks")
    for module in modules:
        __import__(module)  # imported once here, not in every child
    print("ready", flush=True)
    for request in _requests(sys.stdin):
        pid = os.fork()
        if pid == 0:
            _child(request)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"rc": os.waitstatus_to_exitcode(status)}), flush=True)


if __name__ == "__main__":
    main()
