"""Every image the bot posts carries alt text within Discord's limit: images are made into attachments in one place
(:func:`bot.utils.images.image_file`), and nothing else in the bot builds a ``discord.File`` of an image."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bot.utils.images import DESCRIPTION_LIMIT, image_file

BOT = Path(__file__).resolve().parents[2] / "bot"


def test_only_image_file_builds_attachments_of_images() -> None:
    built = []
    for path in sorted(BOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("discord.File", "File"):
                built.append((path.relative_to(BOT).as_posix(), ast.unparse(node)))
    others = [(path, call) for path, call in built if path != "utils/images.py"]
    # the one other attachment is the match's JSON export of /match history, not an image
    assert [path for path, _ in others] == ["exts/match/_cog.py"] and ".json" in others[0][1], others


def test_the_alt_text_is_held_to_discords_limit_and_never_empty() -> None:
    file = image_file(b"png", "board.png", "A board,\nmove 3.")
    assert file.filename == "board.png" and file.description == "A board, move 3."
    long = image_file(b"png", "board.png", "word " * 400)
    assert long.description is not None and len(long.description) == DESCRIPTION_LIMIT
    assert long.description.endswith("…")
    with pytest.raises(ValueError, match="needs alt text"):
        image_file(b"png", "board.png", " \n")
