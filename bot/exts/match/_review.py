"""``/match review``: a finished match with every move marked (:mod:`games.review`), and the board of its turning
point.

The review is computed in the computer's worker processes, one piece per move in the long lane of the computer's
scheduler (:func:`bot.service.reviews.review_match`), never on the event loop, within
:data:`games.review.REVIEW_SECONDS` of work. The command answers at once (it defers before it waits for anything), and
while the review waits for its turn the member reads where it stands ("2 reviews ahead of yours", as the scheduler
has it, updated as the line moves). A member has one review under way at a time, and a server's and the bot's waiting
reviews are capped (:meth:`bot.service.computer.ComputerPool.long_work`): a review beyond is refused politely.

Anyone in the match's server may review it, once it is finished (a review of a running match would help its
players). It is shown only to the member who asked unless they choose ``public:true``: a review posted in a match
thread would otherwise answer every curious bystander with a long message for all.

A review also keeps the puzzles the match holds (:meth:`bot.service.match_puzzles.MatchPuzzleService.keep` on the
review just made), as every finished match's are in the background: the server's ``/puzzle`` serves them to its
members.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

import renderers
from bot.answers import defer, progress, respond
from bot.ops.interactions import RESTARTING
from bot.service import BadOption, NotAllowed, replay
from bot.service.computer_scheduler import LongWork
from bot.service.computer_workers import ComputerStopped, WorkerLost
from bot.service.reviews import review_match
from bot.texts import plural, quote
from bot.utils.boards import match_outcome
from bot.utils.converters import MatchOption, the_match
from bot.utils.images import DESCRIPTION_LIMIT as ALT_TEXT_LIMIT
from bot.utils.images import image_file
from bot.utils.names import escape, names_of
from bot.utils.queues import member_key
from games import GAMES
from games.review import REVIEW_SECONDS, Review
from games.values import GameValue
from storage import MatchRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

REVIEW_USES = 3
"""``/match review`` uses a minute per member (docs/playing.md, "Rests between uses")."""
REVIEW_COOLDOWN = app_commands.checks.cooldown(REVIEW_USES, 60.0, key=member_key)
"""``/match review`` searches: at most three a minute per member."""
REVIEW_WAIT = 3 * REVIEW_SECONDS
"""Seconds a review may take once its turn came before it is given up (the review bounds its own work first)."""
TURN_WAIT = 12 * 60.0
"""Seconds a review may wait for its turn (under the 15 minutes Discord lets a deferred answer come)."""
DESCRIPTION_LIMIT = 4000
"""Characters of the embed's description used (Discord's limit is 4096)."""

BASIS_TEXT = {
    "exact": "Exact values from a complete search: for the player who moved, the value before the move (the best "
             "they could get) and after it.",
    "mixed": "Exact values (before → after the move, for the player who moved) where the position is solved; "
             "lines with ≈ or without values are an estimate from the hard computer player.",
    "estimate": "Estimate from the hard computer player, not exact: each move is compared with the computer's "
                "choice, with the computer's evaluation (≈) where it has one.",
    "none": "No move could be reviewed in the time available.",
}
UNITS = {
    "outcome": "win, draw or loss with perfect play",
    "margin": "the final point margin with perfect play (+ ahead)",
    "turns": "the turns the game takes with perfect play from there",
}

def waiting_text(match_id: int, ahead: int) -> str:
    """What a member reads while their review of match ``match_id`` waits with ``ahead`` reviews before it."""
    if ahead:
        return f"Your review of match #{match_id} is waiting: {plural(ahead, 'review')} ahead of yours."
    return f"Your review of match #{match_id} is next."


def _start_text(value: GameValue, seats: int) -> str:
    if value.kind == "turns":
        return f"Par from the start: {value.describe()}."
    if seats == 1 or value.result is None:
        return ""
    if value.result == "draw":
        return "With perfect play from the start the game is a draw."
    side = "first" if value.result == "win" else "second"
    margin = f" by {plural(abs(value.amount), 'point')}" if value.kind == "margin" else ""
    return f"With perfect play from the start the {side} player wins{margin}."


def _counts_text(result: Review, seat: int, name: str) -> str:
    counts = result.counts(seat)
    reviewed = sum(counts.values())
    if not reviewed:
        return f"{name}: no move reviewed"
    parts = []
    # a move that gave nothing away in a position already lost is not a good move: said apart
    lost = sum(1 for move in result.moves if move.seat == seat and move.basis != "none" and not move.severity
               and move.before is not None and move.before.result == "loss")
    good = counts.get(0, 0) - lost
    if good:
        parts.append(f"{good} giving nothing away")
    if lost:
        parts.append(f"{lost} in a lost position")
    for severity, word, many in ((1, "inaccuracy", "inaccuracies"), (2, "mistake", None), (3, "blunder", None)):
        count = counts.get(severity, 0)
        if count:
            parts.append(plural(count, word, many))
    return f"{name}: {plural(reviewed, 'move')} ({', '.join(parts)})"


def review_lines(result: Review, names: Sequence[str], limit: int = DESCRIPTION_LIMIT) -> list[str]:
    """The moves as lines within ``limit`` characters in all: every move if they fit, else the key moments (the
    moves that lost something, and the turning point), with a line saying what was left out."""
    lines = [move.line(names[move.seat]) for move in result.moves]
    if sum(len(line) + 1 for line in lines) <= limit:
        return lines
    key = [index for index, move in enumerate(result.moves) if move.severity or index == result.turning_point]
    key.sort(key=lambda index: (index != result.turning_point, -result.moves[index].severity, index))
    kept: list[int] = []
    used = 120  # room for the closing note
    for index in key:
        if used + len(lines[index]) + 1 > limit:
            break
        kept.append(index)
        used += len(lines[index]) + 1
    left = len(lines) - len(kept)
    shown = [lines[index] for index in sorted(kept)]
    shown.append(f"Key moments only: {left} other move{'s are' if left != 1 else ' is'} not listed.")
    return shown


def review_embed(record: MatchRecord, result: Review, image: str | None) -> discord.Embed:
    """The review as an embed: what the values are, the moves (:func:`review_lines`), each player's tally, and the
    turning point (its board as the attachment named ``image``)."""
    game = GAMES[record.game]
    names = [escape(seat.display_name) for seat in record.seats]
    head = [BASIS_TEXT[result.basis]]
    exact = next((move.before for move in result.moves if move.before is not None), None)
    if exact is not None:
        head.append(f"Values: {UNITS[exact.kind]}.")
    if result.start_value is not None:
        head.append(_start_text(result.start_value, len(record.seats)))
    header = " ".join(part for part in head if part)
    lines = review_lines(result, names, DESCRIPTION_LIMIT - len(header) - 2)
    embed = discord.Embed(title=f"Review of match #{record.id} · {game.title}"[:256],
                          description=f"{header}\n\n" + "\n".join(lines), colour=discord.Colour.blurple())
    tally = "\n".join(_counts_text(result, seat, names[seat]) for seat in range(len(record.seats)))
    embed.add_field(name="Players", value=tally[:1024], inline=False)
    if result.turning_point is not None:
        move = result.moves[result.turning_point]
        embed.add_field(name="Turning point", value=(
            f"Move {move.ply}, `{move.move}` by {names[move.seat]}: {move.verdict}. The board shows the position "
            "before it.")[:1024], inline=False)
    elif result.basis in ("exact", "mixed"):
        embed.add_field(name="Turning point", value="None: no reviewed move lost anything. The board shows the "
                                                    "final position.", inline=False)
    else:
        embed.add_field(name="Turning point", value="None found by the computer. The board shows the final "
                                                    "position.", inline=False)
    if result.out_of_time:
        first = next(move.ply for move in result.moves if move.basis == "none")
        embed.set_footer(text=f"The review ran out of time at move {first}; the moves from there are not reviewed.")
    if image:
        embed.set_image(url=f"attachment://{image}")
    return embed


class ReviewCommand(commands.Cog):
    """``/match review``, mixed into the ``/match`` cog (:class:`bot.exts.match._cog.Match`), whose ``bot`` it
    uses."""

    bot: NapkinBot

    @app_commands.command(name="review", description="A finished match with every move marked, exact where solved",
                          extras={"private": lambda interaction: not getattr(interaction.namespace, "public", False)})
    @app_commands.describe(match="Match number (a finished match of this server)",
                           public="Post the review for everyone here (default: only you see it)")
    @REVIEW_COOLDOWN
    async def review(self, interaction: discord.Interaction[NapkinBot], match: MatchOption | None = None,
                     public: bool = False) -> None:
        """Review a finished match: the marked moves and the board of the turning point."""
        record = await the_match(interaction, match)
        typed = getattr(interaction.namespace, "match", None)
        shown = f"`{quote(typed)}`" if typed is not None else f"#{record.id}"
        if record.status == "active":
            raise NotAllowed(f"Match {shown} is still being played; a review is for finished matches.")
        if record.ply == 0:
            raise BadOption(f"Match {shown} ended before any move was played, so there is nothing to review.")
        computer = self.bot.services.computer
        async with computer.long_work(server=record.guild_id, member=interaction.user.id) as job:
            await defer(interaction, private=not public)
            try:
                async with asyncio.timeout(TURN_WAIT):
                    await _wait_turn(interaction, job, record.id)
                moves = await self.bot.services.reading.moves(record.id)
                async with asyncio.timeout(REVIEW_WAIT):
                    result = await review_match(job, record.game, record.initial_state,
                                                [move.notation for move in moves], seed=f"review:{record.id}")
            except TimeoutError:
                log.warning("the review of match %s did not finish in time", record.id)
                await respond(interaction, "The review is taking too long right now; please try again later.",
                              private=True)
                return
            except WorkerLost:
                await respond(interaction, "The review could not be made: the computer's worker stopped several "
                                           "times while making it. Please try again later.", private=True)
                return
            except ComputerStopped:
                await respond(interaction, RESTARTING, private=True)
                return
            await self.bot.services.match_puzzles.keep(job, record, [move.notation for move in moves], result)
        png, alt = await asyncio.to_thread(_turning_point_board, record, moves, result)
        name = f"review-{record.id}.png"
        await respond(interaction, embed=review_embed(record, result, name), file=image_file(png, name, alt),
                      private=not public)


async def _wait_turn(interaction: discord.Interaction[NapkinBot], job: LongWork, match_id: int) -> None:
    """Wait for the review's turn, showing the member where it stands (as the scheduler has it) each time that
    changes.

    Raises:
        ComputerStopped: the computer's workers were stopped meanwhile.
    """
    shown: int | None = None
    while not job.started:
        ahead = job.ahead
        if ahead != shown:
            shown = ahead
            with contextlib.suppress(discord.HTTPException):  # the note is a courtesy; the review goes on
                await progress(interaction, waiting_text(match_id, ahead))
        await job.moved()
    if shown is not None:
        with contextlib.suppress(discord.HTTPException):
            await progress(interaction, f"Reviewing match #{match_id}…")


def _turning_point_board(record: MatchRecord, moves: Sequence[Any], result: Review) -> tuple[bytes, str]:
    """The board before the turning point's move, or the final board when there is none: the PNG and its alt text
    (what the board is, then the position as :func:`renderers.alt_text` says it)."""
    states = replay(record, moves)
    names = names_of(record)
    if result.turning_point is None:
        lead = f"Review of match #{record.id}: the final position."
        state, outcome = states[-1], match_outcome(record)
    else:
        lead = (f"Review of match #{record.id}: the position before move {result.turning_point + 1}, the turning "
                "point.")
        state, outcome = states[result.turning_point], None
    alt = renderers.alt_text(state, names, outcome=outcome, limit=ALT_TEXT_LIMIT - len(lead) - 1)
    return renderers.render(state, names, outcome=outcome), f"{lead} {alt}"
