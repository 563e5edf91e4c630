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

from bot.answers import language_of, respond, suggest_in_time
from bot.service import BadOption, MoveResult, ServiceError, load_state
from bot.texts import quote
from bot.utils.messages import send_dm
from bot.utils.names import escape
from games import GAMES, RulesError, State
from i18n import Channel, Text, _, n_
from storage import MatchRecord, PremoveRecord

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
            raise BadOption(_("To cancel, give only `if_they_play` (one line) or nothing (all your lines); leave out "
                              "`{option}`.", option=extra[0]))
        key, count = await service.cancel(record.id, record.guild_id, user_id, if_they_play)
        if key is None:
            text = (n_("Cancelled your {count} conditional move in match #{match}.",
                       "Cancelled your {count} conditional moves in match #{match}.", count, match=str(record.id))
                    if count else _("You hold no conditional moves in match #{match}; there was nothing to cancel.",
                                    match=str(record.id)))
        else:
            text = (_("Cancelled your line for `{move}` in match #{match}.", move=quote(key), match=str(record.id))
                    if count else _("You hold no line for `{move}` in match #{match}; `/match premove` lists yours.",
                                    move=quote(key), match=str(record.id)))
    elif action == "list" or not given:
        if given:
            raise BadOption(_("`action:list` only lists your conditional moves; leave `action` out to store "
                              "`{typed}`.", typed=quote(next(iter(given.values())))))
        match, lines = await service.lines_of(record.id, record.guild_id, user_id)
        opponent = _opponent(match, user_id)
        if not lines:
            text = _("You hold no conditional moves in match #{match}. When it is {opponent}'s turn, store one with "
                     "`/match premove if_they_play: reply:`; only you will see it.", match=str(match.id),
                     opponent=opponent)
        else:
            reader = language_of(interaction, private=True)
            listed = "\n".join(_("{number}. {line}.", number=number, line=_line(line, opponent, first=True)).render(
                reader) for number, line in enumerate(lines, 1))
            text = _("Your conditional moves in match #{match} (only you see them):\n{lines}\n`/match premove "
                     "action:cancel` clears them (with `if_they_play:`, just that line).", match=str(match.id),
                     lines=listed)
    else:
        if if_they_play is None or reply is None:
            missing = "reply" if reply is None else "if_they_play"
            raise BadOption(_("A conditional move needs `if_they_play` (your opponent's move) and `reply` (your "
                              "answer); `{option}` is missing.", option=missing))
        line, replaced, count = await service.store(record.id, record.guild_id, user_id, if_they_play,
                                                     reply, then_if, then_reply)
        opponent = _opponent(record, user_id)
        held = n_("You hold {count} conditional move here; only you see it. Any other move by {opponent} discards it. "
                  "`/match premove` lists it, `/match premove action:cancel` clears it.",
                  "You hold {count} conditional moves here; only you see them. Any other move by {opponent} discards "
                  "them. `/match premove` lists them, `/match premove action:cancel` clears them.", count,
                  opponent=opponent)
        if replaced:
            text = _("Stored for match #{match}: {line}. It replaces your earlier line for `{move}`. {held}",
                     match=str(record.id), line=_line(line, opponent), move=line.if_move, held=held)
        else:
            text = _("Stored for match #{match}: {line}. {held}", match=str(record.id), line=_line(line, opponent),
                     held=held)
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


async def tell_discarded(bot: NapkinBot, result: MoveResult) -> Text | None:
    """Tell the player whose conditional moves ``result`` (the opponent's move) discarded, by a direct message.
    Returns ``None`` when it was delivered, else the neutral line the board carries instead (it names the player,
    never their lines)."""
    if result.discarded is None:
        return None
    match = result.match
    seat = match.seats[result.discarded]
    mover = escape(match.seats[result.seat].display_name)
    words = {"match": str(match.id), "game": GAMES[match.game].title_text, "channel": Channel(match.post_channel_id),
             "mover": mover, "move": result.notation}
    text = (_("Match #{match} ({game}, {channel}): {mover} played `{move}`, which none of your conditional moves "
              "expected, so they were all discarded. It is your move.", **words) if match.current_seat == seat.seat
            else _("Match #{match} ({game}, {channel}): {mover} played `{move}`, which none of your conditional moves "
                   "expected, so they were all discarded.", **words))
    if not await send_dm(bot, seat.user_id, text):
        return _("{name}'s conditional moves did not expect this move and were discarded.",
                 name=escape(seat.display_name))
    return None


def _line(line: PremoveRecord, opponent: str, *, first: bool = False) -> Text:
    """A line in words for its owner: ``if bob plays `LL`, you play `RR`; then if bob plays `LR`, you play `RL```
    (``first``: starting a sentence, ``If bob plays …``)."""
    words = {"opponent": opponent, "move": line.if_move, "reply": line.reply, "then": line.then_if,
             "then_reply": line.then_reply}
    if line.then_if is None:
        return (_("If {opponent} plays `{move}`, you play `{reply}`", **words) if first else
                _("if {opponent} plays `{move}`, you play `{reply}`", **words))
    return (_("If {opponent} plays `{move}`, you play `{reply}`; then if {opponent} plays `{then}`, you play "
              "`{then_reply}`", **words) if first else
            _("if {opponent} plays `{move}`, you play `{reply}`; then if {opponent} plays `{then}`, you play "
              "`{then_reply}`", **words))
