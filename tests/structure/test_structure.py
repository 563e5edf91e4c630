"""The bot's house rules, read from the code's own imports and calls (:mod:`ast`), function-level imports included:
no private module of the bot imported from outside its package (tests and benchmarks too); no circle of imports that
run; no storage transaction or service construction in the extensions, ``bot.utils`` and the games' Discord
modules; a type-only import of the client really type-only (how large modules and classes may grow is
tests/structure/test_rooms.py's). ``make lint`` checks the same layers with import-linter (``pyproject.toml``); this
test also reads ``tests/`` and ``bench/``, which import-linter does not.

Each rule is a function over source text, and each is shown to catch a violation before it is run on the tree.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DISCORD_SIDE = ("bot.exts", "bot.utils", "bot.games")
"""Packages that talk to Discord and use the services built at start-up."""
CLIENT = "bot.client"


@dataclass(frozen=True)
class Import:
    """One import statement's target, as the module it makes run (``from a import b``: ``a.b`` when that is a
    module of the tree, else ``a``)."""

    module: str
    line: int
    type_only: bool
    """Under ``if TYPE_CHECKING:`` (never run)."""


def module_name(path: Path) -> str:
    """``bot/exts/match/_cog.py`` → ``bot.exts.match._cog``; a package's ``__init__.py`` is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(name: str) -> bool:
    """Whether ``name`` is a module or package of this tree."""
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(source: str) -> list[Import]:
    """Every import in ``source``, at any depth (inside functions and classes too)."""
    found: list[Import] = []

    def visit(node: ast.AST, type_only: bool) -> None:
        if isinstance(node, ast.If) and _type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, type_only)
            return
        if isinstance(node, ast.Import):
            found.extend(Import(alias.name, node.lineno, type_only) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                found.append(Import(name if is_module(name) else node.module, node.lineno, type_only))
        for child in ast.iter_child_nodes(node):
            visit(child, type_only)

    visit(ast.parse(source), False)
    return found


def private_imports(importer: str, source: str, owner: str = "bot") -> list[str]:
    """Imports in ``source`` (the module ``importer``) of a private module (a ``_name`` part) of ``owner``'s tree
    from outside the package holding that private part."""
    problems = []
    for found in imports_of(source):
        parts = found.module.split(".")
        if parts[0] != owner:
            continue
        for index, part in enumerate(parts):
            if part.startswith("_") and not part.startswith("__"):
                package = ".".join(parts[:index])
                if importer != package and not importer.startswith(package + "."):
                    problems.append(f"line {found.line}: {found.module}")
                break
    return problems


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles of ``graph`` (module -> modules it imports): its strongly connected components of two modules or
    more, and modules that import themselves (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def discord_side_problems(source: str) -> list[str]:
    """What a module of the Discord side must not do: run a storage transaction (``.read(`` / ``.write(``, the
    database, ``Tx`` / ``ReadTx``) or build a service."""
    problems: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("read", "write"):
            problems.append((node.lineno, f"a storage transaction (.{node.func.attr})"))
        elif isinstance(node, ast.Call):
            called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if called.endswith(("Service", "Services")):
                problems.append((node.lineno, f"builds {called}"))
        if isinstance(node, ast.Attribute) and node.attr == "db":
            problems.append((node.lineno, f"uses .{node.attr}"))
        if isinstance(node, ast.ImportFrom) and node.module == "storage":
            held = sorted({alias.name for alias in node.names} & {"Database", "Tx", "ReadTx"})
            if held:
                problems.append((node.lineno, f"imports {', '.join(held)}"))
    return [f"line {line}: {what}" for line, what in sorted(problems)]


def sources(*folders: str) -> Iterator[tuple[str, Path, str]]:
    """``(module name, path, text)`` of every Python file under ``folders``."""
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield module_name(path), path, path.read_text(encoding="utf-8")


# ---------------------------------------------------------------- each rule catches what it is for


def test_the_rules_catch_what_they_are_for() -> None:
    source = ("from typing import TYPE_CHECKING\nfrom bot.exts.match import _cog\nimport bot.exts.match._moves\n"
              "def later():\n    from bot.exts.match._starts import rematch\n"
              "if TYPE_CHECKING:\n    from bot.client import NapkinBot\n")
    found = imports_of(source)
    assert [(i.module, i.type_only) for i in found] == [
        ("typing", False), ("bot.exts.match._cog", False), ("bot.exts.match._moves", False),
        ("bot.exts.match._starts", False), ("bot.client", True)]
    assert private_imports("tests.bot.test_x", source) == [
        "line 2: bot.exts.match._cog", "line 3: bot.exts.match._moves", "line 5: bot.exts.match._starts"]
    assert private_imports("bot.exts.match._cog", source) == []
    assert private_imports("bot.exts.deadlines", "from bot.utils import queues\n") == []
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"a"}}) == [["a"]]
    assert circles({"a": {"b"}, "b": set()}) == []
    bad = ("from storage import MatchRecord, Tx\nasync def f(bot):\n    await bot.db.read(x)\n"
           "    bot.services.moves.play(1)\n    VacationService(bot)\n")
    assert discord_side_problems(bad) == [
        "line 1: imports Tx", "line 3: a storage transaction (.read)", "line 3: uses .db",
        "line 5: builds VacationService"]
    assert discord_side_problems("async def f(bot):\n    await bot.services.moves.play(1)\n") == []


# ---------------------------------------------------------------- the tree


def test_no_private_module_of_the_bot_is_imported_from_outside_its_package() -> None:
    problems = [f"{path.relative_to(ROOT)} {problem}"
                for name, path, text in sources("bot", "bench", "tests")
                for problem in private_imports(name, text)]
    assert problems == []


def test_no_circle_of_imports_that_run_in_the_bot() -> None:
    graph = {name: {i.module for i in imports_of(text) if i.module.startswith("bot") and not i.type_only}
             for name, _, text in sources("bot")}
    assert len(graph) > 50  # every module of the bot was read
    assert circles(graph) == []


def test_the_discord_side_names_the_client_for_types_only() -> None:
    runtime = [f"{path.relative_to(ROOT)} line {i.line}"
               for name, path, text in sources(*(package.replace(".", "/") for package in DISCORD_SIDE))
               for i in imports_of(text) if i.module == CLIENT and not i.type_only]
    assert runtime == []


def test_the_discord_side_runs_no_transaction_and_builds_no_service() -> None:
    problems = [f"{path.relative_to(ROOT)} {problem}"
                for _, path, text in sources(*(package.replace(".", "/") for package in DISCORD_SIDE))
                for problem in discord_side_problems(text)]
    assert problems == []


MARKUP = ("<t:", "<@", "<#")
"""Discord's markup for a timestamp, a member and a channel: written by the bot's edge (``i18n.Moment``,
``i18n.Member``, ``i18n.Channel`` placeholders), never by the Discord-free layers."""
DISCORD_FREE = ("bot/service", "games", "storage", "i18n")


def markup_written(source: str) -> list[int]:
    """The lines of ``source`` whose string literals (f-strings' fixed parts too) write Discord markup; docstrings
    aside."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return sorted({node.lineno for node in ast.walk(tree)
                   if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                   and any(mark in node.value for mark in MARKUP)})


def test_the_discord_free_layers_write_no_discord_markup() -> None:
    assert markup_written('def f(until):\n    """Says <t:1:f>."""\n    return f"until <t:{until}:f>"\n') == [3]
    assert markup_written('x = ", ".join(f"<#{c}>" for c in (1, 2))\ny = "<b>"\n') == [1]
    found = {f"{path.relative_to(ROOT)}:{line}" for layer in DISCORD_FREE for path in (ROOT / layer).rglob("*.py")
             for line in markup_written(path.read_text(encoding="utf-8"))}
    assert not found, found
