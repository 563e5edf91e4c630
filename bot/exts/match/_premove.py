"""``/match premove`` on Discord: store, list and cancel conditional moves (:mod:`bot.service.premoves`), their
autocomplete, and the private notice to a player whose lines the opponent's move discarded.

Every answer is ephemeral and the lines are never posted: the only public trace of a conditional move is the move
itself once played ("alice's conditional move `RR` was played"). A player whose lines were discarded is told by a
direct message; only when Discord refuses it (direct messages closed) does the board carry one neutral line
addressed to them, which says that they had conditional moves but not which.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.answers import respond, suggest_in_time
from bot.service import BadOption, MoveResult, ServiceError, load_state, premoves
from bot.texts import plural, quote
from bot.utils.messages import send_dm
from bot.utils.names import escape
from games import GAMES, RulesError, State
from storage import MatchRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

DESCRIPTIONS = {
    "if_they_play": "Your opponent's move you expect, as the boards write moves (e.g. LL, e5, 1-3)",
    "reply": "Your answer to it, played at once when they play it",
    "then_if": "Optional: their next move you expect after your answer",
    "then_reply": "Optional: your answer to that one",
    "action": "Leave empty to store a line (or, with no move given, to list yours); cancel clears them",
    "match": "The match (implied inside its thread)",
}
AUTOCOMPLETE_LIMIT = 25
"""Discord shows at most 25 suggestions."""
ACTIONS = [app_commands.Choice(name="list my conditional moves", value="list"),
           app_commands.Choice(name="cancel (all, or the one for if_they_play)", value="cancel")]


def _opponent(match: MatchRecord, user_id: int) -> str:
    return escape(next((s.display_name for s in match.seats if s.user_id != user_id), "your opponent"))


async def premove_command(interaction: discord.Interaction[NapkinBot], record: MatchRecord, *,
                          if_they_play: str | None, reply: str | None, then_if: str | None, then_reply: str | None,
                          action: str | None) -> None:
    """Handle ``/match premove``: store a line (``if_they_play`` and ``reply``, optionally ``then_if`` and
    ``then_reply``), list the member's lines (no option, or ``action:list``), or cancel them (``action:cancel``, all
    or the one for ``if_they_play``); answered only to the member.

    Raises:
        BadOption (options that do not go together, or a line the rules refuse, quoted), NotAllowed, NotYourTurn,
        LimitReached, NotFound, MatchOver (see :mod:`bot.service.premoves`).
    """
    service = interaction.client.services.premoves
    user_id = interaction.user.id
    given = {name: value for name, value in (("if_they_play", if_they_play), ("reply", reply),
                                             ("then_if", then_if), ("then_reply", then_reply)) if value is not None}
    if action == "cancel":
        extra = [name for name in ("reply", "then_if", "then_reply") if name in given]
        if extra:
            raise BadOption(f"To cancel, give only `if_they_play` (one line) or nothing (all your lines); leave out "
                            f"`{extra[0]}`.")
        key, count = await service.cancel(record.id, record.guild_id, user_id, if_they_play)
        if key is None:
            text = (f"Cancelled your {plural(count, 'conditional move')} in match #{record.id}." if count else
                    f"You hold no conditional moves in match #{record.id}; there was nothing to cancel.")
        else:
            text = (f"Cancelled your line for `{quote(key)}` in match #{record.id}." if count else
                    f"You hold no line for `{quote(key)}` in match #{record.id}; `/match premove` lists "
                    "yours.")
    elif action == "list" or not given:
        if given:
            raise BadOption(f"`action:list` only lists your conditional moves; leave `action` out to store "
                            f"`{quote(next(iter(given.values())))}`.")
        match, lines = await service.lines_of(record.id, record.guild_id, user_id)
        opponent = _opponent(match, user_id)
        if not lines:
            text = (f"You hold no conditional moves in match #{match.id}. When it is {opponent}'s turn, store one "
                    "with `/match premove if_they_play: reply:`; only you will see it.")
        else:
            listed = "\n".join(f"{number}. I{premoves.describe(line, opponent)[1:]}."  # "if bob plays …"
                               for number, line in enumerate(lines, 1))
            text = (f"Your conditional moves in match #{match.id} (only you see them):\n{listed}\n"
                    "`/match premove action:cancel` clears them (with `if_they_play:`, just that line).")
    else:
        if if_they_play is None or reply is None:
            missing = "reply" if reply is None else "if_they_play"
            raise BadOption(f"A conditional move needs `if_they_play` (your opponent's move) and `reply` (your "
                            f"answer); `{missing}` is missing.")
        line, replaced, count = await service.store(record.id, record.guild_id, user_id, if_they_play,
                                                     reply, then_if, then_reply)
        opponent = _opponent(record, user_id)
        again = f" It replaces your earlier line for `{line.if_move}`." if replaced else ""
        them = "it" if count == 1 else "them"
        text = (f"Stored for match #{record.id}: {premoves.describe(line, opponent)}.{again} You hold "
                f"{plural(count, 'conditional move')} here; only you see {them}. Any other move by {opponent} "
                f"discards {them}. `/match premove` lists {them}, `/match premove action:cancel` clears {them}.")
    await respond(interaction, text, private=True, allowed_mentions=discord.AllowedMentions.none())


# ---------------------------------------------------------------- autocomplete

_STEPS = ("if_they_play", "reply", "then_if", "then_reply")


MatchFinder = Callable[[discord.Interaction["NapkinBot"]], Awaitable[MatchRecord]]
"""Finds the match an interaction is about (its ``match`` option as typed, else the one its context implies)."""


def suggester(option: str, find_match: MatchFinder) -> Callable[[discord.Interaction[NapkinBot], str],
                                                                Coroutine[Any, Any, list[app_commands.Choice[str]]]]:
    """Autocomplete for one of the line's options: the legal moves (the game's own list, as its move commands
    suggest them) in the position the line reaches before it, as far as the options before it are filled in and
    legal; nothing once one of them is not. ``find_match`` names the match."""
    depth = _STEPS.index(option)

    async def suggest(interaction: discord.Interaction[NapkinBot], current: str) -> list[app_commands.Choice[str]]:
        namespace = interaction.namespace
        try:
            state: State[Any] = load_state(await find_match(interaction))
            for name in _STEPS[:depth]:
                typed = getattr(namespace, name, None)
                if not typed or state.is_over:
                    return []
                state = state.play(str(typed).strip())
        except (ServiceError, RulesError):  # no match, or an earlier move is not legal: nothing to suggest
            return []
        if state.is_over:
            return []
        needle = current.strip().lower()
        choices: list[app_commands.Choice[str]] = []
        for move in state.legal_moves():
            text = state.format_move(move)
            if needle in text.lower():
                choices.append(app_commands.Choice(name=text[:100], value=text[:100]))
                if len(choices) == AUTOCOMPLETE_LIMIT:
                    break
        return choices

    suggest.__qualname__ = suggest.__name__ = f"suggest_{option}"
    return suggest_in_time(suggest)


# ---------------------------------------------------------------- discarded lines


async def tell_discarded(bot: NapkinBot, result: MoveResult) -> str | None:
    """Tell the player whose conditional moves ``result`` (the opponent's move) discarded, by a direct message.
    Returns ``None`` when it was delivered, else the neutral line the board carries instead (it names the player,
    never their lines)."""
    if result.discarded is None:
        return None
    match = result.match
    seat = match.seats[result.discarded]
    mover = escape(match.seats[result.seat].display_name)
    turn = " It is your move." if match.current_seat == seat.seat else ""
    text = (f"Match #{match.id} ({GAMES[match.game].title}, <#{match.post_channel_id}>): {mover} played "
            f"`{result.notation}`, which none of your conditional moves expected, so they were all discarded.{turn}")
    if not await send_dm(bot, seat.user_id, text):
        return f"{escape(seat.display_name)}'s conditional moves did not expect this move and were discarded."
    return None
