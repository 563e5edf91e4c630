"""ARCHITECTURE.md's code map stays in step with the tree: every path it names exists, and every room of the packages
is named in it (each top-level module or package of ``games``, ``renderers``, ``storage`` and ``bot``, and each
module of ``bot/service``, where most changes start)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "ARCHITECTURE.md"
MAPPED = ("games", "renderers", "storage", "bot")
"""The packages whose every top-level room the map names."""
EVERY_MODULE = ("bot/service",)
"""The packages whose every module the map names."""
TREES = ("games/", "renderers/", "storage/", "bot/", "bench/", "tests/", "seeds/", "docs/")
"""Where a path the map names may point."""

_CODE = re.compile(r"`([^`\s]+)`")


def named_paths(text: str) -> set[str]:
    """The paths of the tree a Markdown text names in code spans (``bot/service/outbox.py``, ``bot/exts/``): those
    starting with one of :data:`TREES`, a trailing ``/`` kept."""
    return {span for span in _CODE.findall(text) if span.startswith(TREES)}


def missing_paths(names: Iterable[str], root: Path) -> list[str]:
    """The names that are no file or folder under ``root`` (a name ending in ``/`` must be a folder)."""
    return sorted(name for name in names
                  if not ((root / name).is_dir() if name.endswith("/") else (root / name).exists()))


def rooms(root: Path) -> list[str]:
    """The rooms the map must name: each module (``bot/client.py``) and package (``bot/exts/``) directly in
    :data:`MAPPED`, and each module of :data:`EVERY_MODULE`; ``__init__.py`` and caches aside."""
    found = []
    for package in MAPPED:
        for path in sorted((root / package).iterdir()):
            if path.is_dir() and (path / "__init__.py").exists():
                found.append(f"{package}/{path.name}/")
            elif path.suffix == ".py" and path.name != "__init__.py":
                found.append(f"{package}/{path.name}")
    for package in EVERY_MODULE:
        found += [f"{package}/{path.name}" for path in sorted((root / package).glob("*.py"))
                  if path.name != "__init__.py"]
    return found


def unnamed_rooms(names: set[str], all_rooms: Iterable[str]) -> list[str]:
    """The rooms not among ``names`` (a package is named as ``pkg/room/``)."""
    return [room for room in all_rooms if room not in names]


def test_the_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    text = ("The outbox is `bot/service/outbox.py`, posted by `bot/exts/` through `bot/utils/outbox.py`; "
            "`make test` and `Director.pair_next` are no paths; `bot/gone.py` and `bot/service/outbox.py/` are wrong.")
    assert named_paths(text) == {"bot/service/outbox.py", "bot/exts/", "bot/utils/outbox.py", "bot/gone.py",
                                 "bot/service/outbox.py/"}
    for folder in ("bot/service", "bot/exts", "bot/exts/match", "bot/utils", "games", "renderers", "storage"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("")
    for module in ("bot/service/outbox.py", "bot/service/finisher.py", "bot/utils/outbox.py", "bot/client.py"):
        (tmp_path / module).write_text("")
    assert missing_paths(named_paths(text), tmp_path) == ["bot/gone.py", "bot/service/outbox.py/"]
    assert rooms(tmp_path) == ["bot/client.py", "bot/exts/", "bot/service/", "bot/utils/",
                               "bot/service/finisher.py", "bot/service/outbox.py"]
    assert unnamed_rooms(named_paths(text), rooms(tmp_path)) == ["bot/client.py", "bot/service/", "bot/utils/",
                                                                 "bot/service/finisher.py"]


def test_every_path_the_map_names_exists() -> None:
    names = named_paths(MAP.read_text(encoding="utf-8"))
    assert len(names) > 60
    assert missing_paths(names, ROOT) == []


def test_every_room_is_named_in_the_map() -> None:
    all_rooms = rooms(ROOT)
    assert "bot/service/tournament_director.py" in all_rooms and "games/chopsticks/" in all_rooms
    assert unnamed_rooms(named_paths(MAP.read_text(encoding="utf-8")), all_rooms) == []


def test_the_readme_links_the_map() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](ARCHITECTURE.md)" in readme
