"""How a puzzle reads on Discord: the board image with its alt text (the member's seat named, the opponent as
"opponent"), the goal said from the puzzle's first theme without giving the answer away, the line in the game's
notation, and the message payloads of a puzzle served, an answer judged, a daily post and its reveal."""

from __future__ import annotations

import asyncio
import datetime as dt
import random
from collections.abc import Sequence
from typing import Any

import discord

import renderers
from bot.service.puzzles import Judged, Served, line_state
from bot.texts import plural
from bot.utils.images import image_file
from bot.utils.names import escape
from games import GAMES, State
from games.puzzles import Puzzle
from storage import DailyPuzzleRecord, PuzzleAttemptRecord

OPPONENT = "opponent"
"""How a board names the seat the member does not play."""
PICK_LIMIT = 25
"""Legal moves offered in the pick list at most (Discord's options per select); more: the Answer button only."""


def goal(puzzle: Puzzle) -> str:
    """What to find, from the puzzle's value theme (never the answer's own themes, which would give it away)."""
    theme = puzzle.themes[0] if puzzle.themes else ""
    if theme.startswith("win in "):
        moves = int(theme.removeprefix("win in "))
        return f"Find the move that wins (in {plural(moves, 'move')} of yours)."
    return {"only win": "Find the only move that still wins.",
            "most points": "Find the move that wins by the most points.",
            "save the draw": "Find the only move that saves the draw.",
            "fewest turns": "Find the move that completes the basis in the fewest turns.",
            "win": "Find the move that wins."}.get(theme, "Find the best move: every other gives something away.")


def seat_names(puzzle: Puzzle, solver: int, name: str) -> list[str]:
    """Names per seat for the board: the member's seat, and ``opponent`` for the other."""
    seats = GAMES[puzzle.game].seats_for(puzzle.variant)
    return [name if seat == solver else OPPONENT for seat in range(seats)]


def board_file(state: State[Any], names: Sequence[str], filename: str) -> discord.File:
    """The board as an attachment with its alt text (blocking: run it off the event loop)."""
    return image_file(renderers.render(state, names), filename, renderers.alt_text(state, names))


def line_text(puzzle: Puzzle) -> str:
    """The line as read: ``RR`` · opponent `split 2 2` · ``LL``, with the accepted alternatives of each step."""
    parts = []
    for index, move in enumerate(puzzle.line):
        if index % 2:
            parts.append(f"{OPPONENT} `{move}`")
            continue
        others = [m for m in puzzle.proof[index // 2].accepted if m != move]
        parts.append(f"`{move}`" + (f" (or {', '.join(f'`{m}`' for m in others)})" if others else ""))
    return " · ".join(parts)


def example(served: Served) -> str:
    """A legal move of the position to show how moves are written, only where the moves are too many to list (over
    :data:`PICK_LIMIT`), and never one of the answer's: with that many moves, ruling one out gives nothing away."""
    step = served.puzzle.proof[served.attempt.progress]
    moves = [notation for notation, _ in step.values if notation not in step.accepted]
    if len(step.values) <= PICK_LIMIT or not moves:
        return ""
    return random.Random(served.attempt.id * 1000 + served.attempt.progress).choice(moves)


def pick_moves(served: Served) -> list[str]:
    """The legal moves to offer in the pick list, in the game's order (empty when over :data:`PICK_LIMIT`)."""
    moves = [served.state.format_move(move) for move in served.state.legal_moves()]
    return moves if len(moves) <= PICK_LIMIT else []


def _rating_line(before: float | None, after: float | None, streak: int | None) -> str:
    if before is None or after is None:
        return ""
    change = round(after) - round(before)
    line = f"\nPuzzle rating: {round(before)} → **{round(after)}** ({'+' if change >= 0 else '−'}{abs(change)})"
    return line + (f" · streak {streak}" if streak else "")


def served_text(served: Served, name: str) -> str:
    """The text above a puzzle put before a member."""
    game = GAMES[served.puzzle.game]
    head = f"**Puzzle** · {game.title} · puzzle rating {round(served.puzzle.rating)}"
    if served.daily is not None:
        head = f"**Daily puzzle** of {served.daily.day} · {game.title}"
    lines = [head]
    if served.again:
        lines.append("Your open puzzle (answer it, or show the answer, to get another).")
    if served.attempt.progress:
        lines.append(f"Line so far: {line_text_prefix(served)}. Your move again.")
    lines.append(f"You are **{escape(name)}**. {goal(served.puzzle)}")
    if pick_moves(served):
        lines.append("**Pick** your move below, or press **Answer** to type it.")
    else:
        lines.append(f"Press **Answer** to type your move, written as `/{game.command}` takes it (such as "
                     f"`{example(served)}`).")
    return "\n".join(lines)


def line_text_prefix(served: Served) -> str:
    """The moves of the line played so far (the member's and the bot's)."""
    shown = served.puzzle.line[:2 * served.attempt.progress]
    return " · ".join(f"`{m}`" if i % 2 == 0 else f"{OPPONENT} `{m}`" for i, m in enumerate(shown))


def source_text(puzzle: Puzzle, players: Sequence[str] = ()) -> str:
    """Where a puzzle was met, as its answer names it: ``"alice vs bob, move 14"`` when its match's players are
    named (every seat allowed it: :attr:`Judged.players`; ``"alice's match, move 3"`` for a solitaire), else
    ``"match #14, move 14"``
    (:meth:`games.puzzles.Source.describe`)."""
    if not players:
        return puzzle.source.describe()
    who = " vs ".join(escape(name) for name in players) if len(players) > 1 else f"{escape(players[0])}'s match"
    return f"{who}, move {puzzle.source.move_number}"


def judged_text(judged: Judged) -> str:
    """What an answer did, in words."""
    puzzle, attempt = judged.puzzle, judged.attempt
    rating = _rating_line(judged.rating_before, judged.rating_after,
                          judged.player.streak if judged.player is not None else None)
    if judged.verdict == "wrong":
        worth = judged.worth.describe() if judged.worth else "less"
        best = judged.best.describe() if judged.best else "more"
        return (f"`{judged.move}` is not the best move: it leads to {worth}, and the best keeps {best}.{rating}\n"
                "Try again, or show the answer.")
    if judged.verdict == "right":
        return f"Right: `{judged.move}`. The {OPPONENT} answers `{judged.defence}`. Your move again."
    themes = ", ".join(puzzle.themes)
    source = "" if puzzle.source.kind == "self-play" else f"\nFrom {source_text(puzzle, judged.players)}."
    if judged.verdict == "shown":
        return f"The answer: {line_text(puzzle)}.\nThemes: {themes}.{source}{rating}"
    if attempt.daily_id:
        tries = plural(attempt.tries, "try", "tries")
        return (f"Solved, in {tries}: {line_text(puzzle)}. Who solved it, and in how many tries, is revealed under "
                "the daily puzzle when the day ends.")
    how = "Solved!" if attempt.solved else f"Found, after {plural(attempt.tries, 'try', 'tries')} (rated as missed)."
    return f"{how} {line_text(puzzle)}.\nThemes: {themes}.{source}{rating}"


async def served_file(served: Served, name: str) -> discord.File:
    """The board of a puzzle put before a member."""
    names = seat_names(served.puzzle, served.solver_seat, name)
    return await asyncio.to_thread(board_file, served.state, names,
                                   f"puzzle-{served.attempt.id}-{served.attempt.progress}.png")


async def judged_file(judged: Judged, solver: int, name: str) -> discord.File:
    """The board after an answer (the position to move in, or the end of the line)."""
    names = seat_names(judged.puzzle, solver, name)
    return await asyncio.to_thread(board_file, judged.state, names,
                                   f"puzzle-{judged.attempt.id}-{judged.attempt.progress}-{judged.verdict}.png")


def daily_text(daily: DailyPuzzleRecord, puzzle: Puzzle) -> str:
    """The daily post's text (nothing of the answer)."""
    game = GAMES[puzzle.game]
    reveal = int(daily.reveal_at)
    return (f"**Daily puzzle** of {daily.day} · {game.title}\n{goal(puzzle)}\n"
            f"Press **Solve it** to answer privately; who solved it, and in how many tries, is revealed "
            f"<t:{reveal}:R>.")


async def daily_file(daily: DailyPuzzleRecord, puzzle: Puzzle) -> discord.File:
    """The daily puzzle's board (the member's seat named ``you``)."""
    state = line_state(puzzle, 0)
    solver = state.current_seat or 0
    return await asyncio.to_thread(board_file, state, seat_names(puzzle, solver, "you"),
                                   f"daily-{daily.guild_id}-{daily.day}.png")


def reveal_text(daily: DailyPuzzleRecord, puzzle: Puzzle, attempts: Sequence[PuzzleAttemptRecord]) -> str:
    """The reveal: the answer, the themes and who found it, in how many tries (at most 20 names, within Discord's
    2,000 characters)."""
    found = [a for a in attempts if a.finished and not a.shown]
    lines = [f"**Daily puzzle of {daily.day}: the answer** {line_text(puzzle)}", f"Themes: {', '.join(puzzle.themes)}."]
    if found:
        lines.append(f"Solved by {plural(len(found), 'member')}:")
        lines += [f"{rank}. {escape(a.display_name)} — {plural(a.tries, 'try', 'tries')}"
                  for rank, a in enumerate(found[:20], start=1)]
        if len(found) > 20:
            lines.append(f"… and {len(found) - 20} more.")
    else:
        lines.append("Nobody solved it.")
    shown = sum(1 for a in attempts if a.shown)
    trying = sum(1 for a in attempts if not a.finished)
    if shown or trying:
        lines.append(f"{plural(shown, 'member')} looked at the answer; {plural(trying, 'member')} did not finish.")
    text = "\n".join(lines)
    return text if len(text) <= 2000 else text[:1999] + "…"


def month_title(month: str) -> str:
    """``"December 2026"`` from ``"2026-12"``."""
    return dt.date.fromisoformat(f"{month}-01").strftime("%B %Y")
