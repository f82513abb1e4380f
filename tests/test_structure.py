"""The shape of the code a newcomer reads (issue 26): small modules, and no import loop, so
each module can be read, and moved, before the ones it uses. import-linter (``make lint``)
holds who may import whom; these hold what it does not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 400
PACKAGES = ("qqweb", "memory_app", "graph_app")


def python_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / name for name in listed if "/migrations/" not in name]


def test_no_module_is_longer_than_400_lines():
    long = {
        str(path.relative_to(ROOT)): n
        for path in python_files()
        if path.exists() and (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these by sub-domain (at most {MAX_LINES} lines): {long}"


def import_loops(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of modules (Tarjan), each a loop of imports,
    counting every import: at the top, inside functions and under TYPE_CHECKING."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []
    counter = 0

    def visit(root: str) -> None:  # iterative: the graph is deeper than the recursion limit
        nonlocal counter
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph.modules), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    loops.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return loops


@pytest.fixture(scope="module")
def import_graph(monkeypatch_module: pytest.MonkeyPatch) -> grimp.ImportGraph:
    monkeypatch_module.syspath_prepend(str(ROOT))
    return grimp.build_graph(*PACKAGES, exclude_type_checking_imports=False)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def test_no_module_imports_itself_through_others(import_graph):
    assert import_loops(import_graph) == []


def test_the_loop_finder_finds_a_loop_and_only_the_loop():
    """The check above can fail: a loop of three modules is found, the module they import
    outside it is not part of it."""
    graph = grimp.ImportGraph()
    for importer, imported in [("a.x", "a.y"), ("a.y", "a.z"), ("a.z", "a.x"), ("a.z", "a.w")]:
        graph.add_import(importer=importer, imported=imported, line_number=1, line_contents="")
    assert import_loops(graph) == [["a.x", "a.y", "a.z"]]


def test_importing_a_library_loads_no_framework():
    """The libraries (and the kernel modules they use) run without Django, Celery or ninja:
    importing them in a fresh interpreter loads none of those."""
    code = (
        "import sys\n"
        "import memory_app.notes.lib, memory_app.facts.lib, graph_app.knowledge\n"
        "print(sorted(m for m in ('django', 'celery', 'ninja', 'kombu') if m in sys.modules))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
