#!/usr/bin/env python3
"""Check the documentation against the code (run by `make lint`).

1. Settings: every environment variable the settings read (``qqweb/settings.py`` through
   its ``env*`` helpers, and ``os.environ.get`` there or in ``qqweb/__init__.py``) has a
   row in a table of ``docs/configuration.md`` whose first column is ``variable``, no row
   names a variable nothing reads, and where the code's default is a literal the row's
   default column says the same value.
2. Links: every relative link and image in ``README.md`` and ``docs/*.md`` points at a file
   of the repository, and every ``#anchor`` at a heading of its target (GitHub's slugs).

Pure Python, no dependencies: ``python scripts/check_docs.py [ROOT]`` prints each problem
and exits 1 when there is one.
"""

from __future__ import annotations

import ast
import re
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

SETTINGS_FILES = ("qqweb/settings.py", "qqweb/__init__.py")
CONFIGURATION = "docs/configuration.md"
ENV_HELPERS = {"envstr": str, "envbool": bool, "envint": int, "envfloat": float, "envlist": str}


class _NotLiteral:
    def __repr__(self) -> str:
        return "<not a literal>"


NOT_LITERAL = _NotLiteral()


@dataclass(frozen=True)
class EnvRead:
    name: str
    default: object  # str, bool, int, float, or NOT_LITERAL
    where: str


# --- 1. settings ---------------------------------------------------------------------------


def _is_os_environ_get(func: ast.expr) -> bool:
    """``os.environ.get`` or ``os.getenv``."""
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr == "getenv":
        return isinstance(func.value, ast.Name) and func.value.id == "os"
    return (
        func.attr == "get"
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "environ"
        and isinstance(func.value.value, ast.Name)
        and func.value.value.id == "os"
    )


def _literal_default(call: ast.Call, kind: type) -> object:
    if len(call.args) < 2:
        return NOT_LITERAL if kind is not str else ""
    try:
        value = ast.literal_eval(call.args[1])
    except ValueError:
        return NOT_LITERAL
    if kind is bool and isinstance(value, bool):
        return value
    if kind in (int, float) and isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if kind is str and isinstance(value, str):
        return value
    return NOT_LITERAL


def settings_env_reads(root: Path) -> dict[str, EnvRead]:
    """Every environment variable the settings read, by name, with its default."""
    reads: dict[str, EnvRead] = {}
    for relative in SETTINGS_FILES:
        path = root / relative
        if not path.exists():
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            first = node.args[0]
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                continue
            if isinstance(node.func, ast.Name) and node.func.id in ENV_HELPERS:
                kind = ENV_HELPERS[node.func.id]
            elif _is_os_environ_get(node.func):
                kind = str
            else:
                continue
            read = EnvRead(first.value, _literal_default(node, kind), f"{relative}:{node.lineno}")
            known = reads.get(read.name)
            if known is not None and known.default != read.default:
                read = EnvRead(read.name, NOT_LITERAL, known.where)
            reads[read.name] = known if known == read else read
    return reads


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def documented_variables(text: str) -> dict[str, tuple[str, int]]:
    """The rows of every table whose first header cell is ``variable``: name -> (default
    cell, line number). A row names one variable, in backticks."""
    rows: dict[str, tuple[str, int]] = {}
    in_table = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.lstrip().startswith("|"):
            in_table = False
            continue
        cells = _cells(line)
        if cells and cells[0].lower() == "variable":
            in_table = True
            continue
        if not in_table or set(cells[0]) <= set("-: "):
            continue
        match = re.fullmatch(r"`([A-Za-z_][A-Za-z0-9_]*)`", cells[0])
        name = match.group(1) if match else cells[0]
        rows[name] = (cells[1] if len(cells) > 1 else "", number)
    return rows


BOOLEAN_WORDS = {"on": True, "off": False, "true": True, "false": False, "1": True, "0": False}


def _first_token(cell: str) -> str:
    code = re.search(r"`([^`]*)`", cell)
    if code:
        return code.group(1)
    words = cell.split()
    return words[0].rstrip(",;.") if words else ""


def default_matches(default: object, cell: str) -> bool:
    """Whether a default column cell states the code's literal default."""
    if default is NOT_LITERAL:
        return True
    token = _first_token(cell)
    if isinstance(default, bool):
        return BOOLEAN_WORDS.get(token.lower()) is default
    if isinstance(default, int | float):
        try:
            return float(token.replace("_", "").replace(",", "")) == float(default)
        except ValueError:
            return False
    if default == "":
        return cell.lower().startswith("empty") or cell.startswith('`""`')
    return "`" in cell and token == default


def check_settings(root: Path) -> list[str]:
    config = root / CONFIGURATION
    if not config.exists():
        return [f"{CONFIGURATION}: missing"]
    reads = settings_env_reads(root)
    documented = documented_variables(config.read_text())
    problems = []
    for name, read in sorted(reads.items()):
        if name not in documented:
            problems.append(f"{CONFIGURATION}: {name} ({read.where}) is not documented")
            continue
        cell, line = documented[name]
        if not default_matches(read.default, cell):
            problems.append(
                f"{CONFIGURATION}:{line}: {name}'s default is {read.default!r} in {read.where},"
                f" the table says {cell!r}"
            )
    for name, (_, line) in sorted(documented.items()):
        if name not in reads:
            problems.append(
                f"{CONFIGURATION}:{line}: {name} is documented but no setting reads it"
                f" ({', '.join(SETTINGS_FILES)})"
            )
    return problems


# --- 2. links ------------------------------------------------------------------------------

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _without_code(text: str) -> str:
    """The text with fenced code blocks and inline code spans blanked out, every line kept
    in its place (so an offset still gives its line number)."""
    kept = dict(_fenced_free_raw_lines(text))
    lines = [kept.get(number, "") for number in range(1, len(text.splitlines()) + 1)]
    blanked = "\n".join(lines)
    return re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group(0)), blanked)


def _link_targets(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every inline link, image and reference definition outside
    code; a link's text may run over several lines."""
    prose = _without_code(text)
    found = [(prose.count("\n", 0, m.start()) + 1, m.group(1)) for m in LINK.finditer(prose)]
    for number, line in enumerate(prose.splitlines(), start=1):
        reference = REFERENCE.match(line)
        if reference:
            found.append((number, reference.group(1)))
    return sorted(found, key=lambda item: item[0])


def heading_text(markdown: str) -> str:
    """A heading's rendered text: code spans, emphasis and links reduced to their text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "")
    text = re.sub(r"(\*\*|__|\*)", "", text)
    return text


def _kept_in_slug(char: str) -> bool:
    category = unicodedata.category(char)
    return char in " -" or category[0] in "LMN" or category == "Pc"


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, every character but letters, marks,
    numbers, connector punctuation (``_``), spaces and hyphens dropped, spaces to hyphens."""
    kept = "".join(char for char in heading_text(heading).strip().lower() if _kept_in_slug(char))
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    result = set()
    for _, line in _fenced_free_raw_lines(text):
        match = HEADING.match(line)
        if not match:
            continue
        slug = github_slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    for explicit in re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text):
        result.add(explicit)
    return result


def _fenced_free_raw_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, as written (headings keep their code spans)."""
    lines = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        lines.append((number, line))
    return lines


def doc_files(root: Path) -> list[Path]:
    files = [root / "README.md", *sorted((root / "docs").glob("**/*.md"))]
    return [path for path in files if path.exists()]


def _link_problem(root: Path, source: Path, target: str, cache: dict[Path, set[str]]) -> str:
    """What is wrong with one link of ``source`` ("" when nothing is)."""
    if not target or SCHEME.match(target) or target.startswith("//"):
        return ""  # a web address, not checked
    file_part, _, anchor = target.partition("#")
    resolved = (source.parent / file_part).resolve() if file_part else source
    if not resolved.is_relative_to(root):
        return f"{target} points outside the repository"
    if not resolved.exists():
        return f"{target}: no such file"
    if not anchor:
        return ""
    if resolved.suffix != ".md" or not resolved.is_file():
        return f"{target}: an anchor into a file that is not markdown"
    if resolved not in cache:
        cache[resolved] = anchors(resolved.read_text())
    if anchor not in cache[resolved]:
        return f"{target}: no heading has the anchor #{anchor}"
    return ""


def check_links(root: Path) -> list[str]:
    root = root.resolve()
    cache: dict[Path, set[str]] = {}
    problems = []
    for path in doc_files(root):
        source = path.resolve()
        for number, target in _link_targets(path.read_text()):
            problem = _link_problem(root, source, target, cache)
            if problem:
                problems.append(f"{source.relative_to(root)}:{number}: {problem}")
    return problems


def check(root: Path) -> list[str]:
    return check_settings(root) + check_links(root)


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_docs: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_docs: settings table and links of {len(doc_files(root))} files are in order")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
