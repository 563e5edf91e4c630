"""Boards as messages: the headline above a board, the rendered image, its buttons and who it may ping.

One board per turn: a move against the computer is shown on one board together with the computer's answer. A board
pings only when a seated player's action made it: the player to move (never in solitaire, where that is the player
who just moved), or, on the final board, both human players (nobody on the board of an aborted match); a member who
turned pings off (``/notify pings:off``) is named in bold instead, never @-mentioned. A running match's board says
who of its players is on vacation, and until when. A finished match's board reads the result, never "to move".
Posting a board is :func:`bot.utils.messages.post_board`.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import discord

import renderers
from bot.service import MoveResult, load_state
from bot.service.ratings import PAIR_RATED_PER_DAY
from bot.utils.buttons import RematchButton
from bot.utils.images import image_file
from bot.utils.names import escape, member_name, names_of
from games import GAMES, Outcome, State, Termination
from i18n import N_, Textual, gettext, ngettext, render, speaking, spoken
from storage import MatchRecord

log = logging.getLogger(__name__)


QUICK_MOVES = {"overloaded": N_("{name} played a quick move because the bot is overloaded."),
               "queue_full": N_("{name} played a quick move because the bot is overloaded."),
               "worker_lost": N_("{name} played a quick move because its search failed.")}
"""The line saying that the computer played a quick (``easy``) move instead of searching at its level, by why
(:attr:`bot.service.MoveResult.quick`)."""


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
    notice: Textual | None = None
    """A line about the moves for a player (their conditional moves discarded, when a direct message could not tell
    them: the conditional-move notice of ``/match premove``)."""
    mentions: bool = True
    """Whether the players the board addresses are pinged; a board posted again (``/match board``) pings nobody:
    they were pinged when it was first posted."""


GAME_MODULES = "bot.games"
"""The package of the games' own Discord modules, each named by its game's key (``bot/games/<key>.py``). They are
looked up by key when first needed, as discord.py loads an extension by name: they import this package (its
buttons), so it cannot import them."""

_ADDED: dict[str, str] = {}
"""Games' Discord modules kept outside :data:`GAME_MODULES`, by game key (:func:`add_game_module`)."""


def add_game_module(game: str, module: str) -> None:
    """Use ``module`` (the dotted name of an importable module, as those of :mod:`bot.games`) as the Discord module of
    the game ``game``, for a game kept outside :mod:`games` whose Discord pieces are kept beside it. Registering the
    same again changes nothing.

    Raises:
        ValueError: ``game`` already has another module added.
    """
    if _ADDED.setdefault(game, module) != module:
        raise ValueError(f"the game {game!r} already has the Discord module {_ADDED[game]!r}")


def game_module(game: str) -> ModuleType | None:
    """The Discord module (buttons, extra commands) of the game ``game``: the one added with :func:`add_game_module`,
    else ``bot.games.<game>``; ``None`` when the game has none.

    Raises:
        KeyError: ``game`` is not a registered game.
    """
    GAMES[game]  # a game the registry does not know has no Discord pieces
    name = _ADDED.get(game, f"{GAME_MODULES}.{game}")
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
    """One line about how a finished match ended: the result sentence (:meth:`games.Outcome.result`, the winner in
    bold: ``bob resigned: **alice** wins.``), and for an aborted match that it counts for nobody (and who made no
    first move, when the deadline aborted it)."""
    if match.outcome is None:
        return gettext("Aborted; it counts for nobody.")
    outcome = Outcome.from_dict(match.outcome)
    names = [escape(seat.display_name) for seat in match.seats]
    sentence = outcome.result(names, GAMES[match.game].describe_end(outcome), winner_style=lambda name: f"**{name}**")
    if match.status != "aborted" and outcome.termination is not Termination.ABORTED:
        return gettext("{result}.").format(result=sentence)
    seat = outcome.loser
    if seat is not None and 0 <= seat < len(names):  # aborted at the deadline by the deadline pass
        return gettext("{result}: {name} made no first move before the deadline; it counts for nobody.").format(
            result=sentence, name=names[seat])
    return gettext("{result}; it counts for nobody.").format(result=sentence)


def match_outcome(match: MatchRecord) -> Outcome | None:
    """The stored outcome of a finished or aborted match (for its board: a resignation, a forfeit or an agreed draw
    is not in the position itself), else ``None``."""
    return Outcome.from_dict(match.outcome) if match.status != "active" and match.outcome else None


def how_to_move(match: MatchRecord, state: State[Any]) -> str:
    """One line for a match's first board: the move command with a real example, the buttons, and ``/rules``."""
    game = GAMES[match.game]
    legal = list(state.legal_moves())
    example, others = "", ""
    if legal:
        name, options = game.command_for(state, state.format_move(legal[0]))
        shown = " ".join(f"{key}:{value}" for key, value in options.items())
        example = f"`/{game.command} {name} {shown}`"
        others = ", ".join(f"`/{game.command} {command.name}`" for command in game.moves if command.name != name)
    buttons = bool(board_items(match, state))
    if example and others:
        how = (gettext("How to move: {example} (also {others}) or the buttons below.") if buttons
               else gettext("How to move: {example} (also {others}).")).format(example=example, others=others)
    elif example:
        how = (gettext("How to move: {example} or the buttons below.") if buttons
               else gettext("How to move: {example}.")).format(example=example)
    else:
        how = gettext("How to move: the `/{command}` commands.").format(command=game.command)
    rules = gettext("Rules: `/rules game:{game}` · all commands: `/help`.").format(game=match.game)
    return f"{how} {rules}"


def headline(match: MatchRecord, state: State[Any], board: Board | None = None) -> str:
    """The text above a board: game, match, the moves just played, scores, whose move and the deadline."""
    board = board or Board()
    game = GAMES[match.game]
    title = f"**{game.local_title}**"
    lines = [(gettext("{game} · match #{match} · move {ply}") if state.ply else
              gettext("{game} · match #{match} · new match")).format(game=title, match=match.id, ply=state.ply)]
    # Each move is a clause of its own; the line joins them with "; " (the same in every language shipped).
    played = [(gettext("{name}'s conditional move {move} was played") if r.conditional
               else gettext("{name} played {move}")).format(name=escape(match.seats[r.seat].display_name),
                                                            move=f"`{r.notation}`")
              for r in board.results]
    if played:
        lines.append("; ".join(played) + ".")
    lines.extend(gettext(QUICK_MOVES.get(r.quick, N_("{name} played a quick move."))).format(
        name=escape(match.seats[r.seat].display_name)) for r in board.results if r.quick)
    if board.notice:
        lines.append(render(board.notice, spoken()) or "")
    scores = state.scores
    if scores is not None and len(match.seats) > 1:
        lines.append(gettext("Score: {scores}").format(scores=" – ".join(
            f"{escape(seat.display_name)} {scores[seat.seat]}" for seat in match.seats)))
    elif scores is not None:
        lines.append(gettext("Turns so far: {count}").format(count=scores[0]))
    lines.extend(_end_lines(match, board) if match.status != "active" else _turn_lines(match, board))
    if match.status == "active":
        lines.extend(gettext("{name} is on vacation until {time} (their deadlines are paused).").format(
            name=escape(seat.display_name), time=f"<t:{int(seat.away_until)}:f>")
            for seat in match.seats if seat.away_until is not None and not seat.is_computer)
    if match.draw_offer_seat is not None and match.status == "active":
        offer = escape(match.seats[match.draw_offer_seat].display_name)
        lines.append(gettext("{name} offers a draw (`/match draw` to accept).").format(name=offer))
    if board.first and match.status == "active":
        if board.note:
            lines.append(board.note)
        lines.append(how_to_move(match, state))
    return "\n".join(lines)


def _end_lines(match: MatchRecord, board: Board) -> list[str]:
    """A final board's lines: the outcome, the rating changes and the thanks to both players."""
    lines = [describe_outcome(match)]
    members = [seat for seat in match.seats if not seat.is_computer]
    if match.status == "finished" and not match.rated and len(members) == 2 == len(match.seats):
        lines.append(ngettext(
            "Not rated: {first} and {second} already have {count} rated result against each other in the last 24 "
            "hours, the most that counts in a day.",
            "Not rated: {first} and {second} already have {count} rated results against each other in the last 24 "
            "hours, the most that count in a day.", PAIR_RATED_PER_DAY).format(
                first=escape(members[0].display_name), second=escape(members[1].display_name),
                count=PAIR_RATED_PER_DAY))
    if match.rating_changes:
        changes = match.rating_changes
        lines.append(gettext("Ratings: {changes}").format(changes=", ".join(
            rating_change(seat.display_name, *changes[str(seat.user_id)])
            for seat in match.seats if str(seat.user_id) in changes)))
    humans = sorted({seat.user_id: seat for seat in match.seats if not seat.is_computer}.values(),
                    key=lambda seat: seat.user_id)
    if board.ping and len(match.seats) > 1 and humans and match.status != "aborted":
        lines.append(gettext("{names} — thanks for the match!").format(
            names=" ".join(member_name(seat) for seat in humans)))
    return lines


def _turn_lines(match: MatchRecord, board: Board) -> list[str]:
    """A running match's line about whose move it is and the deadline (none while nobody is to move); the player
    to move is addressed (:func:`member_name`) only in a duel on a board that may ping."""
    if match.current_seat is None:
        return []
    seat = match.seats[match.current_seat]
    due = f"<t:{int(match.deadline)}:R>" if match.deadline else ""
    if seat.is_computer:
        return [gettext("{name} is thinking…").format(name=escape(seat.display_name))]
    if len(match.seats) > 1 and board.ping:
        line = gettext("{name}, your move · deadline {due}.") if due else gettext("{name}, your move.")
        return [line.format(name=member_name(seat), due=due)]
    line = gettext("{name} to move · deadline {due}.") if due else gettext("{name} to move.")
    return [line.format(name=escape(seat.display_name), due=due)]


def rating_change(name: str, before: int, after: int, provisional_before: int = 0, provisional_after: int = 0) -> str:
    """``"alice 1000? → 1012? (+12)"``: a provisional rating marked ``?`` as ``/stats`` marks it (matches recorded
    before the marks were stored show none)."""
    marked_before, marked_after = ("?" if provisional_before else ""), ("?" if provisional_after else "")
    return f"{escape(name)} {before}{marked_before} → {after}{marked_after} ({after - before:+d})".replace("-", "−")


def board_mentions(match: MatchRecord, board: Board | None = None) -> discord.AllowedMentions:
    """Who the board may ping: the human player to move in a running duel, both human players at the end; nobody
    in solitaire, on a board posted again, or when the board was not made by a player's action."""
    if (board is not None and not (board.ping and board.mentions)) or len(match.seats) == 1:
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


def board_image(match: MatchRecord, state: State[Any]) -> tuple[bytes, str]:
    """The board of ``match`` at ``state``: the PNG and its alt text (:func:`renderers.alt_text`). Blocking: run it off
    the event loop."""
    names, outcome = names_of(match), match_outcome(match)
    return renderers.render(state, names, outcome=outcome), renderers.alt_text(state, names, outcome=outcome)


async def board_payload(match: MatchRecord, state: State[Any] | None = None,
                        board: Board | None = None, *, language: str | None = None) -> dict[str, Any]:
    """Keyword arguments for ``send``: content, the PNG board, the buttons (moves, or Rematch on a final board
    that a player's action made) and the allowed mentions; its words (the headline, the image's, its alt text) in
    ``language``, the server's (a shipped locale; ``None``: English)."""
    with speaking(language):
        return await _board_payload(match, state, board)


async def _board_payload(match: MatchRecord, state: State[Any] | None, board: Board | None) -> dict[str, Any]:
    state = state or load_state(match)
    board = board or Board()
    if board.first and match.status == "active" and board.note is None:  # a search, perhaps: off the event loop
        board.note = await asyncio.to_thread(GAMES[match.game].start_note, state)
    payload: dict[str, Any] = {
        "content": headline(match, state, board),
        "allowed_mentions": board_mentions(match, board),
    }
    try:
        png, alt = await asyncio.to_thread(board_image, match, state)
    except Exception:  # any drawing failure: the stored match is still shown, in words
        log.exception("could not draw the board of match %s at ply %s", match.id, state.ply)
        payload["content"] += "\n" + gettext("(The board image could not be drawn; the position above is what is "
                                             "stored.)")
    else:
        payload["file"] = image_file(png, f"{match.game}-{match.id}-{state.ply}.png", alt)
    items: Sequence[discord.ui.Item[Any]] = board_items(match, state) if match.status == "active" else ()
    if match.status != "active" and board.ping:
        items = (RematchButton(match.id, language=spoken()),)  # the final board, posted when the match ended
    if items:
        view: discord.ui.View = discord.ui.View(timeout=None)
        for item in items:
            view.add_item(item)
        payload["view"] = view
    return payload
