"""How a puzzle reads on Discord: the board image with its alt text (the member's seat named, the opponent as
"opponent"), the goal said from the puzzle's first theme without giving the answer away, the line in the game's
notation, and the message payloads of a puzzle served, an answer judged, a daily post and its reveal."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import Any

import discord

import renderers
from bot.exts.puzzles._views import ANSWER, SOLVE
from bot.service.puzzles import Judged, Served, line_state
from bot.utils.images import image_file
from bot.utils.names import escape
from games import GAMES, State
from games.puzzles import Puzzle
from i18n import Listed, Moment, Period, Text, _, n_, p_, speaking
from storage import DailyPuzzleRecord, PuzzleAttemptRecord

OPPONENT = p_("puzzle seat", "opponent")
"""How a board names the seat the member does not play."""
PICK_LIMIT = 25
"""Legal moves offered in the pick list at most (Discord's options per select); more: the Answer button only."""
THEMES: dict[str, Text] = {
    "only win": p_("puzzle theme", "only win"), "most points": p_("puzzle theme", "most points"),
    "save the draw": p_("puzzle theme", "save the draw"), "fewest turns": p_("puzzle theme", "fewest turns"),
    "win": p_("puzzle theme", "win"), "split": p_("puzzle theme", "split"),
    "self-tap": p_("puzzle theme", "self-tap"), "kill": p_("puzzle theme", "kill"),
    "sacrifice": p_("puzzle theme", "sacrifice"), "quiet move": p_("puzzle theme", "quiet move"),
    "last choice": p_("puzzle theme", "last choice"), "first segment": p_("puzzle theme", "first segment"),
    "last segment": p_("puzzle theme", "last segment"), "pass": p_("puzzle theme", "pass"),
    "last stick": p_("puzzle theme", "last stick"),
}
"""Each theme the search names (:func:`games.puzzles.judge.themes` and the games' own), in players' words of any
shipped language; ``win in N`` is said with its number."""


def theme_words(theme: str) -> Text | str:
    """A stored theme in the reader's words (one we do not know yet stays as stored)."""
    if theme.startswith("win in ") and theme.removeprefix("win in ").isdigit():
        return n_("win in {count}", "win in {count}", int(theme.removeprefix("win in ")))
    return THEMES.get(theme, theme)


def _themes(puzzle: Puzzle) -> Listed:
    return Listed(tuple(theme_words(theme) for theme in puzzle.themes))


def goal(puzzle: Puzzle) -> Text:
    """What to find, from the puzzle's value theme (never the answer's own themes, which would give it away)."""
    theme = puzzle.themes[0] if puzzle.themes else ""
    if theme.startswith("win in "):
        moves = int(theme.removeprefix("win in "))
        return n_("Find the move that wins (in {count} move of yours).",
                  "Find the move that wins (in {count} moves of yours).", moves)
    return {"only win": _("Find the only move that still wins."),
            "most points": _("Find the move that wins by the most points."),
            "save the draw": _("Find the only move that saves the draw."),
            "fewest turns": _("Find the move that completes the basis in the fewest turns."),
            "win": _("Find the move that wins.")}.get(
        theme, _("Find the best move: every other gives something away."))


def seat_names(puzzle: Puzzle, solver: int, name: str, language: str) -> list[str]:
    """Names per seat for the board: the member's seat, and ``opponent`` (in ``language``) for the other."""
    seats = GAMES[puzzle.game].seats_for(puzzle.variant)
    return [name if seat == solver else OPPONENT.render(language) for seat in range(seats)]


def board_file(state: State[Any], names: Sequence[str], filename: str) -> discord.File:
    """The board as an attachment with its alt text, in the language being spoken (:func:`i18n.speaking`; blocking:
    run it off the event loop)."""
    return image_file(renderers.render(state, names), filename, renderers.alt_text(state, names))


def line_text(puzzle: Puzzle, language: str) -> str:
    """The line as read: ``RR`` · opponent `split 2 2` · ``LL``, with the accepted alternatives of each step."""
    parts = []
    for index, move in enumerate(puzzle.line):
        if index % 2:
            parts.append(f"{OPPONENT.render(language)} `{move}`")
            continue
        others = [f"`{m}`" for m in puzzle.proof[index // 2].accepted if m != move]
        parts.append(_("`{move}` (or {others})", move=move, others=Listed(tuple(others), style="or")).render(language)
                     if others else f"`{move}`")
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


def _rating_line(before: float | None, after: float | None, streak: int | None) -> Text | None:
    if before is None or after is None:
        return None
    change = round(after) - round(before)
    words = {"before": str(round(before)), "after": str(round(after)),
             "change": f"{'+' if change >= 0 else '−'}{abs(change)}"}
    if streak:
        return _("Puzzle rating: {before} → **{after}** ({change}) · streak {streak}", streak=streak, **words)
    return _("Puzzle rating: {before} → **{after}** ({change})", **words)


def served_text(served: Served, name: str, language: str) -> str:
    """The text above a puzzle put before a member, in ``language``."""
    game = GAMES[served.puzzle.game]
    if served.daily is not None:
        lines = [_("**Daily puzzle** of {day} · {game}", day=served.daily.day, game=game.title_text)]
    else:
        lines = [_("**Puzzle** · {game} · puzzle rating {rating}", game=game.title_text,
                   rating=str(round(served.puzzle.rating)))]
    if served.again:
        lines.append(_("Your open puzzle (answer it, or show the answer, to get another)."))
    if served.attempt.progress:
        lines.append(_("Line so far: {line}. Your move again.", line=line_text_prefix(served, language)))
    lines.append(_("You are **{name}**. {goal}", name=escape(name), goal=goal(served.puzzle)))
    if pick_moves(served):
        lines.append(_("**Pick** your move below, or press **{button}** to type it.", button=ANSWER))
    else:
        lines.append(_("Press **{button}** to type your move, written as `/{command}` takes it (such as `{example}`).",
                       button=ANSWER, command=game.command, example=example(served)))
    return "\n".join(line.render(language) for line in lines)


def line_text_prefix(served: Served, language: str) -> str:
    """The moves of the line played so far (the member's and the bot's)."""
    shown = served.puzzle.line[:2 * served.attempt.progress]
    return " · ".join(f"`{m}`" if i % 2 == 0 else f"{OPPONENT.render(language)} `{m}`" for i, m in enumerate(shown))


def source_text(puzzle: Puzzle, players: Sequence[str] = ()) -> Text:
    """Where a puzzle was met, as its answer names it: ``"alice vs bob, move 14"`` when its match's players are
    named (every seat allowed it: :attr:`Judged.players`; ``"alice's match, move 3"`` for a solitaire), else
    ``"match #14, move 14"``."""
    source = puzzle.source
    move = str(source.move_number)
    if not players:
        if source.kind == "match":
            return _("match #{match}, move {move}", match=str(source.match), move=move)
        return _("self-play (seed {seed}, match {match}), move {move}", seed=str(source.seed), match=str(source.match),
                 move=move)
    if len(players) > 1:
        return _("{players}, move {move}", players=" vs ".join(escape(name) for name in players), move=move)
    return _("{player}'s match, move {move}", player=escape(players[0]), move=move)


def judged_text(judged: Judged, language: str) -> str:
    """What an answer did, in words of ``language``."""
    puzzle, attempt = judged.puzzle, judged.attempt
    rating = _rating_line(judged.rating_before, judged.rating_after,
                          judged.player.streak if judged.player is not None else None)
    lines: list[Text | None]
    if judged.verdict == "wrong":
        lines = [_("`{move}` is not the best move: it leads to {worth}, and the best keeps {best}.", move=judged.move,
                   worth=judged.worth.describe() if judged.worth else _("less"),
                   best=judged.best.describe() if judged.best else _("more")),
                 rating, _("Try again, or show the answer.")]
    elif judged.verdict == "right":
        lines = [_("Right: `{move}`. The opponent answers `{defence}`. Your move again.", move=judged.move,
                   defence=judged.defence)]
    else:
        source = None if puzzle.source.kind == "self-play" else _("From {source}.",
                                                                   source=source_text(puzzle, judged.players))
        line = line_text(puzzle, language)
        if judged.verdict == "shown":
            lines = [_("The answer: {line}.", line=line), _("Themes: {themes}.", themes=_themes(puzzle)), source,
                     rating]
        elif attempt.daily_id:
            lines = [n_("Solved, in {count} try: {line}. Who solved it, and in how many tries, is revealed under the "
                        "daily puzzle when the day ends.",
                        "Solved, in {count} tries: {line}. Who solved it, and in how many tries, is revealed under the "
                        "daily puzzle when the day ends.", attempt.tries, line=line)]
        else:
            found = (_("Solved! {line}.", line=line) if attempt.solved else
                     n_("Found, after {count} try (rated as missed). {line}.",
                        "Found, after {count} tries (rated as missed). {line}.", attempt.tries, line=line))
            lines = [found, _("Themes: {themes}.", themes=_themes(puzzle)), source, rating]
    return "\n".join(line.render(language) for line in lines if line is not None)


async def served_file(served: Served, name: str, language: str) -> discord.File:
    """The board of a puzzle put before a member, its words in ``language``."""
    names = seat_names(served.puzzle, served.solver_seat, name, language)
    with speaking(language):
        return await asyncio.to_thread(board_file, served.state, names,
                                       f"puzzle-{served.attempt.id}-{served.attempt.progress}.png")


async def judged_file(judged: Judged, solver: int, name: str, language: str) -> discord.File:
    """The board after an answer (the position to move in, or the end of the line), its words in ``language``."""
    names = seat_names(judged.puzzle, solver, name, language)
    with speaking(language):
        return await asyncio.to_thread(board_file, judged.state, names,
                                       f"puzzle-{judged.attempt.id}-{judged.attempt.progress}-{judged.verdict}.png")


def daily_text(daily: DailyPuzzleRecord, puzzle: Puzzle, language: str) -> str:
    """The daily post's text (nothing of the answer), in ``language``."""
    return _("**Daily puzzle** of {day} · {game}\n{goal}\nPress **{button}** to answer privately; who solved it, and "
             "in how many tries, is revealed {when}.", button=SOLVE, day=daily.day, game=GAMES[puzzle.game].title_text,
             goal=goal(puzzle), when=Moment(daily.reveal_at, relative=True)).render(language)


async def daily_file(daily: DailyPuzzleRecord, puzzle: Puzzle, language: str) -> discord.File:
    """The daily puzzle's board (the member's seat named ``you``), its words in ``language``."""
    state = line_state(puzzle, 0)
    solver = state.current_seat or 0
    names = seat_names(puzzle, solver, p_("puzzle seat", "you").render(language), language)
    with speaking(language):
        return await asyncio.to_thread(board_file, state, names, f"daily-{daily.guild_id}-{daily.day}.png")


def reveal_text(daily: DailyPuzzleRecord, puzzle: Puzzle, attempts: Sequence[PuzzleAttemptRecord],
                language: str) -> str:
    """The reveal in ``language``: the answer, the themes and who found it, in how many tries (at most 20 names,
    within Discord's 2,000 characters)."""
    found = [a for a in attempts if a.finished and not a.shown]
    lines = [_("**Daily puzzle of {day}: the answer** {line}", day=daily.day, line=line_text(puzzle, language)),
             _("Themes: {themes}.", themes=_themes(puzzle))]
    if found:
        lines.append(n_("Solved by {count} member:", "Solved by {count} members:", len(found)))
        lines += [n_("{rank}. {name} — {count} try", "{rank}. {name} — {count} tries", a.tries, rank=rank,
                     name=escape(a.display_name)) for rank, a in enumerate(found[:20], start=1)]
        if len(found) > 20:
            lines.append(_("… and {count} more.", count=len(found) - 20))
    else:
        lines.append(_("Nobody solved it."))
    shown = sum(1 for a in attempts if a.shown)
    trying = sum(1 for a in attempts if not a.finished)
    if shown or trying:
        lines.append(_("{looked} looked at the answer; {trying} did not finish.",
                       looked=n_("{count} member", "{count} members", shown),
                       trying=n_("{count} member", "{count} members", trying)))
    text = "\n".join(line.render(language) for line in lines)
    return text if len(text) <= 2000 else text[:1999] + "…"


def month_title(month: str) -> Period:
    """The month ``"2026-12"`` as a placeholder value: ``December 2026`` / ``décembre 2026``."""
    year, number = month.split("-")
    return Period(int(year), month=int(number))
