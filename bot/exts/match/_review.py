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
from bot.answers import defer, language_of, progress, respond
from bot.ops.interactions import RESTARTING
from bot.service import BadOption, NotAllowed, replay
from bot.service.computer_scheduler import LongWork
from bot.service.computer_workers import ComputerStopped, WorkerLost
from bot.service.reviews import review_match
from bot.texts import quote
from bot.utils.boards import match_outcome
from bot.utils.converters import MatchOption, the_match
from bot.utils.images import DESCRIPTION_LIMIT as ALT_TEXT_LIMIT
from bot.utils.images import image_file
from bot.utils.names import escape, names_of
from bot.utils.queues import member_key
from games import GAMES
from games.review import REVIEW_SECONDS, Review
from games.values import GameValue
from i18n import N_, Listed, Text, _, n_, speaking, spoken
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
    "exact": N_("Exact values from a complete search: for the player who moved, the value before the move (the best "
                "they could get) and after it."),
    "mixed": N_("Exact values (before → after the move, for the player who moved) where the position is solved; "
                "lines with ≈ or without values are an estimate from the hard computer player."),
    "estimate": N_("Estimate from the hard computer player, not exact: each move is compared with the computer's "
                   "choice, with the computer's evaluation (≈) where it has one."),
    "none": N_("No move could be reviewed in the time available."),
}
UNITS = {
    "outcome": N_("Values: win, draw or loss with perfect play."),
    "margin": N_("Values: the final point margin with perfect play (+ ahead)."),
    "turns": N_("Values: the turns the game takes with perfect play from there."),
}


def waiting_text(match_id: int, ahead: int) -> Text:
    """What a member reads while their review of match ``match_id`` waits with ``ahead`` reviews before it."""
    if ahead:
        return n_("Your review of match #{match} is waiting: {count} review ahead of yours.",
                  "Your review of match #{match} is waiting: {count} reviews ahead of yours.", ahead,
                  match=str(match_id))
    return _("Your review of match #{match} is next.", match=str(match_id))


def _start_text(value: GameValue, seats: int) -> Text | None:
    if value.kind == "turns":
        return _("Par from the start: {value}.", value=value.describe())
    if seats == 1 or value.result is None:
        return None
    if value.result == "draw":
        return _("With perfect play from the start the game is a draw.")
    if value.kind == "margin":
        if value.result == "win":
            return n_("With perfect play from the start the first player wins by {count} point.",
                      "With perfect play from the start the first player wins by {count} points.", abs(value.amount))
        return n_("With perfect play from the start the second player wins by {count} point.",
                  "With perfect play from the start the second player wins by {count} points.", abs(value.amount))
    if value.result == "win":
        return _("With perfect play from the start the first player wins.")
    return _("With perfect play from the start the second player wins.")


def _counts_text(result: Review, seat: int, name: str) -> Text:
    counts = result.counts(seat)
    reviewed = sum(counts.values())
    if not reviewed:
        return _("{name}: no move reviewed", name=name)
    parts: list[Text] = []
    # a move that gave nothing away in a position already lost is not a good move: said apart
    lost = sum(1 for move in result.moves if move.seat == seat and move.basis != "none" and not move.severity
               and move.before is not None and move.before.result == "loss")
    good = counts.get(0, 0) - lost
    if good:
        parts.append(n_("{count} giving nothing away", "{count} giving nothing away", good))
    if lost:
        parts.append(n_("{count} in a lost position", "{count} in a lost position", lost))
    for severity, marked in ((1, n_("{count} inaccuracy", "{count} inaccuracies", counts.get(1, 0))),
                             (2, n_("{count} mistake", "{count} mistakes", counts.get(2, 0))),
                             (3, n_("{count} blunder", "{count} blunders", counts.get(3, 0)))):
        if counts.get(severity, 0):
            parts.append(marked)
    return n_("{name}: {count} move ({tally})", "{name}: {count} moves ({tally})", reviewed, name=name,
              tally=Listed(tuple(parts)))


def review_lines(result: Review, names: Sequence[str], limit: int = DESCRIPTION_LIMIT,
                 locale: str | None = None) -> list[str]:
    """The moves as lines in ``locale`` (English by default) within ``limit`` characters in all: every move if they
    fit, else the key moments (the moves that lost something, and the turning point), with a line saying what was
    left out."""
    lines = [move.line(names[move.seat]).render(locale) for move in result.moves]
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
    shown.append(n_("Key moments only: {count} other move is not listed.",
                    "Key moments only: {count} other moves are not listed.", left).render(locale))
    return shown


def review_embed(record: MatchRecord, result: Review, image: str | None, locale: str | None = None) -> discord.Embed:
    """The review as an embed in ``locale`` (English by default): what the values are, the moves
    (:func:`review_lines`), each player's tally, and the turning point (its board as the attachment named
    ``image``)."""
    game = GAMES[record.game]
    names = [escape(seat.display_name) for seat in record.seats]
    head = [Text(BASIS_TEXT[result.basis])]
    exact = next((move.before for move in result.moves if move.before is not None), None)
    if exact is not None:
        head.append(Text(UNITS[exact.kind]))
    start = _start_text(result.start_value, len(record.seats)) if result.start_value is not None else None
    if start is not None:
        head.append(start)
    header = " ".join(part.render(locale) for part in head)
    lines = review_lines(result, names, DESCRIPTION_LIMIT - len(header) - 2, locale)
    title = _("Review of match #{match} · {game}", match=str(record.id), game=game.title_text).render(locale)
    embed = discord.Embed(title=title[:256], description=f"{header}\n\n" + "\n".join(lines),
                          colour=discord.Colour.blurple())
    tally = "\n".join(_counts_text(result, seat, names[seat]).render(locale) for seat in range(len(record.seats)))
    embed.add_field(name=_("Players").render(locale), value=tally[:1024], inline=False)
    if result.turning_point is not None:
        move = result.moves[result.turning_point]
        turning = _("Move {ply}, `{move}` by {name}: {verdict}. The board shows the position before it.",
                    ply=str(move.ply), move=move.move, name=names[move.seat], verdict=move.verdict)
    elif result.basis in ("exact", "mixed"):
        turning = _("None: no reviewed move lost anything. The board shows the final position.")
    else:
        turning = _("None found by the computer. The board shows the final position.")
    embed.add_field(name=_("Turning point").render(locale), value=turning.render(locale)[:1024], inline=False)
    if result.out_of_time:
        first = next(move.ply for move in result.moves if move.basis == "none")
        embed.set_footer(text=_("The review ran out of time at move {ply}; the moves from there are not reviewed.",
                                ply=str(first)).render(locale))
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
            raise NotAllowed(_("Match {match} is still being played; a review is for finished matches.",
                               match=shown))
        if record.ply == 0:
            raise BadOption(_("Match {match} ended before any move was played, so there is nothing to review.",
                              match=shown))
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
                await respond(interaction, _("The review is taking too long right now; please try again later."),
                              private=True)
                return
            except WorkerLost:
                await respond(interaction, _("The review could not be made: the computer's worker stopped several "
                                             "times while making it. Please try again later."), private=True)
                return
            except ComputerStopped:
                await respond(interaction, RESTARTING, private=True)
                return
            await self.bot.services.match_puzzles.keep(job, record, [move.notation for move in moves], result)
        reader = language_of(interaction, private=not public)
        with speaking(reader):  # (the board's words and its alt text: asyncio.to_thread carries the language)
            png, alt = await asyncio.to_thread(_turning_point_board, record, moves, result)
        name = f"review-{record.id}.png"
        await respond(interaction, embed=review_embed(record, result, name, reader), file=image_file(png, name, alt),
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
            await progress(interaction, _("Reviewing match #{match}…", match=str(match_id)))


def _turning_point_board(record: MatchRecord, moves: Sequence[Any], result: Review) -> tuple[bytes, str]:
    """The board before the turning point's move, or the final board when there is none: the PNG and its alt text
    (what the board is, then the position as :func:`renderers.alt_text` says it), in the language being spoken
    (:func:`i18n.speaking`)."""
    states = replay(record, moves)
    names = names_of(record)
    if result.turning_point is None:
        lead = _("Review of match #{match}: the final position.", match=str(record.id)).render(spoken())
        state, outcome = states[-1], match_outcome(record)
    else:
        lead = _("Review of match #{match}: the position before move {ply}, the turning point.", match=str(record.id),
                 ply=str(result.turning_point + 1)).render(spoken())
        state, outcome = states[result.turning_point], None
    alt = renderers.alt_text(state, names, outcome=outcome, limit=ALT_TEXT_LIMIT - len(lead) - 1)
    return renderers.render(state, names, outcome=outcome), f"{lead} {alt}"
