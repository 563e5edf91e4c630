"""Boards as messages: the headline above a board, the rendered image, its buttons, and posting it.

One board per turn: a move against the computer is shown on one board together with the computer's answer. Only
the newest board of a match carries buttons (the previous one's are removed when a new one is posted, as far as
Discord lets us; a click that still arrives answers "out of date"). A board pings only when a seated player's
action made it: the player to move (never in solitaire, where that is the player who just moved), or, on the
final board, both human players (nobody on the board of an aborted match); a member who turned pings off
(``/notify pings:off``) is named in bold instead, never @-mentioned. A running match's board says who of its players
is on vacation, and until when. A finished match's board reads the result, never "to move".
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import io
import logging
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

import renderers
from bot.exts.match._views import RematchButton
from bot.service import MoveResult, load_state
from games import GAMES, Outcome, State, Termination
from games.base import read_stored_outcome
from storage import MatchRecord, SeatRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

PLAYER_ENDS = {Termination.RESIGNED: "resigned", Termination.OUT_OF_TIME: "ran out of time"}
"""How an end caused by one player reads after their name."""

BoardItems = Callable[[MatchRecord, State[Any]], Sequence[discord.ui.Item[Any]]]


@dataclass
class Board:
    """What a board message says besides the position.

    Attributes:
        results: the moves this board reports (a member's move, then the computer's answers), oldest first.
        first: the match's first board (it explains how to move).
        ping: whether the board may ping (only boards made by a seated player's action, or by the bot's own
            deadline and computer work, do).
    """

    results: list[MoveResult] = field(default_factory=list)
    first: bool = False
    ping: bool = True
    note: str | None = None
    """What the game says about the start (:meth:`games.Game.start_note`), shown on the first board."""
    actor: int | None = None
    """The member whose interaction made this board (they are not sent a direct message about it)."""
    notice: str | None = None
    """A line about the moves for a player (their conditional moves discarded, when a direct message could not tell
    them: :func:`bot.exts.match._premove.tell_discarded`)."""


_last_boards: dict[int, discord.Message] = {}
"""The newest board message of each match posted by this process (its buttons are removed by the next one)."""


def names_of(match: MatchRecord) -> list[str]:
    """Display names per seat."""
    return [seat.display_name for seat in match.seats]


NAME_LIMIT = 64
"""Longest display name shown in a message, in characters (longer ones end with "…")."""


def plain_name(name: str) -> str:
    """A display name on one line: control, line and paragraph separator characters become spaces, runs of
    spaces one, and at most :data:`NAME_LIMIT` characters."""
    text = " ".join("".join(" " if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") and c != "\u200d" else c
                            for c in name).split())
    text = text or "?"
    return text if len(text) <= NAME_LIMIT else text[:NAME_LIMIT - 1] + "…"


def escape(name: str) -> str:
    """A display name safe inside a message (:func:`plain_name`, then markdown, masked links and mentions shown as
    typed: no formatting, link, heading or ping is formed)."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(plain_name(name)))


def game_module(game: str) -> Any | None:
    """The game's Discord module (buttons, extra commands), or ``None`` when the game has none."""
    name = GAMES[game].extension_module()
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        return None


def board_items(match: MatchRecord, state: State[Any]) -> Sequence[discord.ui.Item[Any]]:
    """The buttons under a running match's board, from the game's module (``board_items``), if it has any."""
    module = game_module(match.game)
    builder: BoardItems | None = getattr(module, "board_items", None)
    return builder(match, state) if builder is not None else ()


def describe_outcome(match: MatchRecord) -> str:
    """One line about how a finished match ended (``**alice** wins: bob resigned.``)."""
    if match.status == "aborted" or match.outcome is None:
        seat = read_stored_outcome(match.outcome).loser if match.outcome else None
        if seat is not None and 0 <= seat < len(match.seats):  # aborted at the deadline by the deadline pass
            return (f"Match aborted: {escape(match.seats[seat].display_name)} made no first move before the "
                    "deadline; it counts for nobody.")
        return "Match aborted; it counts for nobody."
    game = GAMES[match.game]
    outcome = read_stored_outcome(match.outcome)  # rows stored before outcomes had a termination, too
    why = game.describe_end(outcome)
    if outcome.loser is not None and outcome.termination in PLAYER_ENDS:
        why = f"{escape(match.seats[outcome.loser].display_name)} {PLAYER_ENDS[outcome.termination]}"
    if outcome.draw:
        return f"Draw: {why}."
    if outcome.winner is None:
        return f"Finished: {why}."
    return f"**{escape(match.seats[outcome.winner].display_name)}** wins: {why}."


def match_outcome(match: MatchRecord) -> Outcome | None:
    """The stored outcome of a finished or aborted match (for its board: a resignation, a forfeit or an agreed draw
    is not in the position itself), else ``None``."""
    return read_stored_outcome(match.outcome) if match.status != "active" and match.outcome else None


def how_to_move(match: MatchRecord, state: State[Any]) -> str:
    """One line for a match's first board: the move command with a real example, the buttons, and ``/rules``."""
    game = GAMES[match.game]
    legal = list(state.legal_moves())
    parts = []
    if legal:
        name, options = game.command_for(state, state.format_move(legal[0]))
        example = " ".join(f"{key}:{value}" for key, value in options.items())
        parts.append(f"`/{game.command} {name} {example}`")
        others = [f"`/{game.command} {command.name}`" for command in game.moves if command.name != name]
        if others:
            parts[-1] += " (also " + ", ".join(others) + ")"
    if board_items(match, state):
        parts.append("the buttons below")
    how = " or ".join(parts) if parts else f"the `/{game.command}` commands"
    return f"How to move: {how}. Rules: `/rules game:{match.game}` · all commands: `/help`."


def headline(match: MatchRecord, state: State[Any], board: Board | None = None) -> str:
    """The text above a board: game, match, the moves just played, scores, whose move and the deadline."""
    board = board or Board()
    game = GAMES[match.game]
    moves = f"move {state.ply}" if state.ply else "new match"
    lines = [f"**{game.title}** · match #{match.id} · {moves}"]
    played = [f"{escape(match.seats[r.seat].display_name)}'s conditional move `{r.notation}` was played"
              if r.conditional else f"{escape(match.seats[r.seat].display_name)} played `{r.notation}`"
              for r in board.results]
    if played:
        lines.append("; ".join(played) + ".")
    if board.notice:
        lines.append(board.notice)
    scores = state.scores
    if scores is not None and len(match.seats) > 1:
        lines.append("Score: " + " – ".join(f"{escape(seat.display_name)} {scores[seat.seat]}"
                                            for seat in match.seats))
    elif scores is not None:
        lines.append(f"Turns so far: {scores[0]}")
    lines.extend(_end_lines(match, board) if match.status != "active" else _turn_lines(match, board))
    if match.status == "active":
        lines.extend(f"{escape(seat.display_name)} is on vacation until <t:{int(seat.away_until)}:f> (their deadlines "
                     "are paused)." for seat in match.seats if seat.away_until is not None and not seat.is_computer)
    if match.draw_offer_seat is not None and match.status == "active":
        offer = escape(match.seats[match.draw_offer_seat].display_name)
        lines.append(f"{offer} offers a draw (`/match draw` to accept).")
    if board.first and match.status == "active":
        if board.note:
            lines.append(board.note)
        lines.append(how_to_move(match, state))
    return "\n".join(lines)


def _end_lines(match: MatchRecord, board: Board) -> list[str]:
    """A final board's lines: the outcome, the rating changes and the thanks to both players."""
    lines = [describe_outcome(match)]
    if match.rating_changes:
        changes = match.rating_changes
        lines.append("Ratings: " + ", ".join(rating_change(seat.display_name, *changes[str(seat.user_id)])
                                             for seat in match.seats if str(seat.user_id) in changes))
    humans = sorted({seat.user_id: seat for seat in match.seats if not seat.is_computer}.values(),
                    key=lambda seat: seat.user_id)
    if board.ping and len(match.seats) > 1 and humans and match.status != "aborted":
        lines.append(" ".join(member_name(seat) for seat in humans) + " — thanks for the match!")
    return lines


def _turn_lines(match: MatchRecord, board: Board) -> list[str]:
    """A running match's line about whose move it is and the deadline (none while nobody is to move); the player
    to move is addressed (:func:`member_name`) only in a duel on a board that may ping."""
    if match.current_seat is None:
        return []
    seat = match.seats[match.current_seat]
    due = f" · deadline <t:{int(match.deadline)}:R>" if match.deadline else ""
    if seat.is_computer:
        return [f"{escape(seat.display_name)} is thinking…"]
    if len(match.seats) > 1 and board.ping:
        return [f"{member_name(seat)}, your move{due}."]
    return [f"{escape(seat.display_name)} to move{due}."]


def member_name(seat: SeatRecord) -> str:
    """A seated member as a board addresses them: a mention, or their name in bold when they turned pings off."""
    return f"<@{seat.user_id}>" if seat.pings else f"**{escape(seat.display_name)}**"


def rating_change(name: str, before: int, after: int) -> str:
    """``"alice 1000 → 1012 (+12)"``."""
    return f"{escape(name)} {before} → {after} ({after - before:+d})".replace("-", "−")


def board_mentions(match: MatchRecord, board: Board | None = None) -> discord.AllowedMentions:
    """Who the board may ping: the human player to move in a running duel, both human players at the end; nobody
    in solitaire or when the board was not made by a player's action."""
    if (board is not None and not board.ping) or len(match.seats) == 1:
        return discord.AllowedMentions.none()
    if match.status == "aborted":  # called off: nobody is thanked for a match that never was
        return discord.AllowedMentions.none()
    if match.status != "active":
        users = [discord.Object(s.user_id) for s in match.seats if not s.is_computer and s.pings]
        return discord.AllowedMentions(everyone=False, roles=False, users=users)
    if match.current_seat is not None:
        seat = match.seats[match.current_seat]
        if not seat.is_computer and seat.pings:
            return discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(seat.user_id)])
    return discord.AllowedMentions.none()


async def board_payload(match: MatchRecord, state: State[Any] | None = None,
                        board: Board | None = None) -> dict[str, Any]:
    """Keyword arguments for ``send``: content, the PNG board, the buttons (moves, or Rematch on a final board
    that a player's action made) and the allowed mentions."""
    state = state or load_state(match)
    board = board or Board()
    if board.first and match.status == "active" and board.note is None:  # a search, perhaps: off the event loop
        board.note = await asyncio.to_thread(GAMES[match.game].start_note, state)
    payload: dict[str, Any] = {
        "content": headline(match, state, board),
        "allowed_mentions": board_mentions(match, board),
    }
    try:
        png = await asyncio.to_thread(functools.partial(renderers.render, state, names_of(match),
                                                        outcome=match_outcome(match)))
    except Exception:  # any drawing failure: the stored match is still shown, in words
        log.exception("could not draw the board of match %s at ply %s", match.id, state.ply)
        payload["content"] += "\n(The board image could not be drawn; the position above is what is stored.)"
    else:
        payload["file"] = discord.File(io.BytesIO(png), filename=f"{match.game}-{match.id}-{state.ply}.png")
    items: Sequence[discord.ui.Item[Any]] = board_items(match, state) if match.status == "active" else ()
    if match.status != "active" and board.ping:
        items = (RematchButton(match.id),)  # the final board, posted when the match ended
    if items:
        view: discord.ui.View = discord.ui.View(timeout=None)
        for item in items:
            view.add_item(item)
        payload["view"] = view
    return payload


UNKNOWN_CHANNEL = 10003
"""Discord's error code for a channel or thread that no longer exists."""

PayloadFactory = Callable[[], Awaitable[dict[str, Any]]]


async def _channel(bot: NapkinBot, channel_id: int, match_id: int) -> discord.abc.Messageable:
    channel = bot.get_channel(channel_id) or await bot.fetch_channel(channel_id)
    if not isinstance(channel, discord.abc.Messageable):
        raise discord.ClientException(f"channel {channel_id} of match {match_id} takes no messages")
    return channel


async def forget_thread(bot: NapkinBot, match: MatchRecord) -> None:
    """The match's thread is gone (deleted): clear the stored thread id, so its news goes to its channel."""
    log.info("the thread %s of match %s is gone; posting in its channel %s", match.thread_id, match.id,
             match.channel_id)
    await bot.services.challenges.set_thread(match.id, None)
    match.thread_id = None


async def match_channel(bot: NapkinBot, match: MatchRecord) -> discord.abc.Messageable:
    """The thread (or channel) the match is played in; when its thread was deleted, the channel it was started
    in (and the stored thread id is cleared).

    Raises:
        discord.HTTPException: Discord does not know the channel (any more).
    """
    try:
        return await _channel(bot, match.post_channel_id, match.id)
    except discord.NotFound:
        if match.thread_id is None:
            raise
    await forget_thread(bot, match)
    return await _channel(bot, match.channel_id, match.id)


async def send_to_match(bot: NapkinBot, match: MatchRecord, payload: PayloadFactory) -> discord.Message:
    """Send ``await payload()`` in the match's thread, or, when the thread turns out to be gone, in its channel
    (the payload is built again: a file cannot be sent twice).

    Raises:
        discord.HTTPException, discord.ClientException: Discord refused (``NotFound``: the channel is gone too).
    """
    channel = await match_channel(bot, match)
    try:
        return await channel.send(**await payload())
    except discord.NotFound as error:
        if match.thread_id is None or error.code != UNKNOWN_CHANNEL:
            raise
    await forget_thread(bot, match)
    return await (await _channel(bot, match.channel_id, match.id)).send(**await payload())


async def retire_previous_board(match_id: int, current: discord.Message | None = None) -> None:
    """Remove the buttons of the match's previous board (best effort) and remember ``current`` as the newest."""
    previous = _last_boards.pop(match_id, None)
    if current is not None:
        _last_boards[match_id] = current
    if previous is None or (current is not None and previous.id == current.id) or not previous.components:
        return
    try:
        await previous.edit(view=None)
    except discord.HTTPException as error:  # deleted, archived, or Discord failed: its clicks say "out of date"
        log.info("could not clear the buttons of an old board of match %s: %s", match_id, error)


async def post_board(bot: NapkinBot, match: MatchRecord, state: State[Any] | None = None,
                     board: Board | None = None) -> discord.Message | None:
    """Post a new board message in the match's channel; ``None`` if Discord refused (the move is stored)."""
    try:
        message = await send_to_match(bot, match, lambda: board_payload(match, state, board))
    except (discord.HTTPException, discord.ClientException) as error:
        log.warning("could not post the board of match %s: %s", match.id, error)
        await queue_result(bot, match)
        return None
    await retire_previous_board(match.id, message)
    if board is not None and board.ping:
        await tell_turn(bot, match, message, skip=board.actor)
    return message


def match_link(match: MatchRecord) -> str:
    """A link that opens the match's thread (or channel) in Discord."""
    return f"https://discord.com/channels/{match.guild_id}/{match.post_channel_id}"


def server_name(bot: NapkinBot, guild_id: int) -> str:
    """The server's name, safe in a message (``"a server"`` when the bot does not see it)."""
    guild = bot.get_guild(guild_id)
    return escape(guild.name) if guild is not None else "a server"


async def tell_turn(bot: NapkinBot, match: MatchRecord, message: discord.Message | None = None, *,
                    skip: int | None = None, reminder: bool = False) -> bool:
    """Send the member to move in ``match`` a direct message that it is their turn (``reminder``: that a third of
    their time is left), with a link to ``message`` (the board or the reminder) or to the match's thread, if they
    asked for such messages (``/notify dm:on``) and are not ``skip`` (who just acted). Returns whether it was sent;
    a failure (closed direct messages, anything Discord refuses) is only logged, never raised."""
    if match.status != "active" or match.current_seat is None or len(match.seats) == 1:
        return False
    seat = match.seats[match.current_seat]
    if seat.is_computer or not seat.dm or seat.user_id == skip:
        return False
    opponents = ", ".join(escape(s.display_name) for s in match.seats if s.user_id != seat.user_id)
    server = server_name(bot, match.guild_id)
    where = f"**{GAMES[match.game].title}** match #{match.id} against {opponents} in **{server}**"
    due = f" (deadline <t:{int(match.deadline)}:f>)" if match.deadline else ""
    text = (f"A third of your time is left in {where}{due}" if reminder else f"It is your move in {where}{due}")
    link = message.jump_url if message is not None else match_link(match)
    try:
        user = bot.get_user(seat.user_id) or await bot.fetch_user(seat.user_id)
        await user.send(f"{text}: {link}", allowed_mentions=discord.AllowedMentions.none())
    except (discord.HTTPException, discord.ClientException) as error:
        log.info("could not send member %s a direct message about match %s: %s", seat.user_id, match.id, error)
        return False
    return True


async def queue_result(bot: NapkinBot, match: MatchRecord) -> None:
    """A finished match's final board could not be posted: queue it in the outbox (retried with back-off until
    delivered, or until its channel is known gone) and wake the deadline task to deliver it. Nothing for a running
    match (its next board, or ``/match board``, shows it)."""
    if match.status == "active":
        return
    await bot.services.outbox.queue_result(match)
    cog = bot.get_cog("Deadlines")
    wake: Callable[[], None] | None = getattr(cog, "wake", None)
    if wake is not None:
        wake()


async def notify(interaction: discord.Interaction[Any], text: str) -> None:
    """Tell the member ``text`` ephemerally (as the response, else a follow-up); a Discord failure is only logged."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException as error:
        log.warning("could not notify interaction %s: %s", interaction.id, error)
