"""Boards as messages: the headline above a board, the rendered image, its buttons, and posting it.

A board message pings only the seated player to move (never everyone, roles or anyone else); a finished match's
board reads the result, never "to move".
"""

from __future__ import annotations

import asyncio
import importlib
import io
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import discord

import renderers
from bot.service import MoveResult, load_state
from games import GAMES, Outcome, State, Termination
from storage import MatchRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

PLAYER_ENDS = {Termination.RESIGNED: "resigned", Termination.OUT_OF_TIME: "ran out of time"}
"""How an end caused by one player reads after their name."""

BoardItems = Callable[[MatchRecord, State[Any]], Sequence[discord.ui.Item[Any]]]


def names_of(match: MatchRecord) -> list[str]:
    """Display names per seat."""
    return [seat.display_name for seat in match.seats]


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
    """One line about how a finished match ended."""
    if match.status == "aborted" or match.outcome is None:
        return "Match aborted; it counts for nobody."
    game = GAMES[match.game]
    outcome = Outcome.from_dict(match.outcome)
    why = game.describe_end(outcome)
    if outcome.loser is not None and outcome.termination in PLAYER_ENDS:
        why = f"{match.seats[outcome.loser].display_name} {PLAYER_ENDS[outcome.termination]}"
    if outcome.draw:
        return f"Draw: {why}."
    if outcome.winner is None:
        return f"Finished: {why}."
    return f"**{match.seats[outcome.winner].display_name}** wins: {why}."


def headline(match: MatchRecord, state: State[Any], result: MoveResult | None = None) -> str:
    """The text above a board: game, match, the move just played, scores, who is to move and the deadline."""
    game = GAMES[match.game]
    lines = [f"**{game.title}** · match #{match.id} · ply {state.ply}"]
    if result is not None:
        lines.append(f"{match.seats[result.seat].display_name} played `{result.notation}`.")
    scores = state.scores
    if scores is not None and len(match.seats) > 1:
        lines.append("Score: " + " – ".join(f"{seat.display_name} {scores[seat.seat]}" for seat in match.seats))
    elif scores is not None:
        lines.append(f"Turns: {scores[0]}")
    if match.status != "active":
        lines.append(describe_outcome(match))
    elif match.current_seat is not None:
        seat = match.seats[match.current_seat]
        if seat.is_computer:
            lines.append(f"{seat.display_name} is thinking…")
        else:
            due = f" · deadline <t:{int(match.deadline)}:R>" if match.deadline else ""
            lines.append(f"<@{seat.user_id}>, your move{due}.")
    if match.draw_offer_seat is not None and match.status == "active":
        lines.append(f"{match.seats[match.draw_offer_seat].display_name} offers a draw (`/match draw` to accept).")
    return "\n".join(lines)


def board_mentions(match: MatchRecord) -> discord.AllowedMentions:
    """Allow a ping of the player to move only (never everyone, roles or anyone else)."""
    if match.status == "active" and match.current_seat is not None:
        seat = match.seats[match.current_seat]
        if not seat.is_computer:
            return discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(seat.user_id)])
    return discord.AllowedMentions.none()


async def board_payload(match: MatchRecord, state: State[Any] | None = None,
                        result: MoveResult | None = None) -> dict[str, Any]:
    """Keyword arguments for ``send``: content, the PNG board, the move buttons and the allowed mentions."""
    state = state or load_state(match)
    png = await asyncio.to_thread(renderers.render, state, names_of(match))
    payload: dict[str, Any] = {
        "content": headline(match, state, result),
        "file": discord.File(io.BytesIO(png), filename=f"{match.game}-{match.id}-{state.ply}.png"),
        "allowed_mentions": board_mentions(match),
    }
    if match.status == "active":
        items = board_items(match, state)
        if items:
            view: discord.ui.View = discord.ui.View(timeout=None)
            for item in items:
                view.add_item(item)
            payload["view"] = view
    return payload


async def match_channel(bot: NapkinBot, match: MatchRecord) -> discord.abc.Messageable:
    """The thread (or channel) the match is played in.

    Raises:
        discord.HTTPException: Discord does not know the channel (any more).
    """
    channel = bot.get_channel(match.post_channel_id) or await bot.fetch_channel(match.post_channel_id)
    if not isinstance(channel, discord.abc.Messageable):
        raise discord.ClientException(f"channel {match.post_channel_id} of match {match.id} takes no messages")
    return channel


async def post_board(bot: NapkinBot, match: MatchRecord, state: State[Any] | None = None,
                     result: MoveResult | None = None) -> discord.Message | None:
    """Post a new board message in the match's channel; ``None`` if Discord refused (the move is stored)."""
    try:
        channel = await match_channel(bot, match)
        return await channel.send(**await board_payload(match, state, result))
    except (discord.HTTPException, discord.ClientException) as error:
        log.warning("could not post the board of match %s: %s", match.id, error)
        return None


async def notify(interaction: discord.Interaction[Any], text: str) -> None:
    """Tell the member ``text`` ephemerally (as the response, else a follow-up); a Discord failure is only logged."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException as error:
        log.warning("could not notify interaction %s: %s", interaction.id, error)
