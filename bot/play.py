"""The Discord side of playing: starting matches, posting boards, submitting moves, computer replies.

Flow of a move: the interaction is parsed by an extension, :func:`submit_move` asks the service to validate and
store it (one transaction, no Discord call inside), the board is rendered in a worker thread, and a *new*
message is posted in the match's thread (or channel) pinging only the player to move. If a computer seat is to
move next, its move is computed off the event loop and posted the same way.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

import renderers
from bot.service import BadOption, MoveResult, NotAllowed, Player, load_state
from bot.views import challenge_view
from games import GAMES, Level, State
from storage import MatchRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

BoardItems = Callable[[MatchRecord, State], Sequence[discord.ui.Item[Any]]]
BOARD_ITEMS: dict[str, BoardItems] = {}
"""Per-game builders of the buttons under a board (registered by the game's extension)."""

THREAD_ARCHIVE_MINUTES = 10080


def _bot(interaction: discord.Interaction) -> NapkinBot:
    return interaction.client  # type: ignore[return-value]


def player_of(user: discord.abc.User) -> Player:
    """The service's view of a Discord user."""
    return Player(user.id, user.display_name)


def require_guild(interaction: discord.Interaction) -> int:
    """The interaction's server id (raises :class:`NotAllowed` in DMs)."""
    if interaction.guild_id is None:
        raise NotAllowed("Napkin Games works in servers, not in direct messages.")
    return interaction.guild_id


# ---------------------------------------------------------------- rendering and posting


def names_of(match: MatchRecord) -> list[str]:
    """Display names per seat."""
    return [seat.display_name for seat in match.seats]


def describe_outcome(match: MatchRecord) -> str:
    """One line about how a finished match ended."""
    outcome = match.outcome or {}
    reason = outcome.get("reason") or match.end_reason or match.status
    if match.status == "aborted":
        return "Match aborted; it counts for nobody."
    if outcome.get("draw"):
        return f"Draw ({reason})."
    winner = outcome.get("winner")
    if winner is None:
        return f"Finished ({reason})."
    return f"**{match.seats[winner].display_name}** wins ({reason})."


def headline(match: MatchRecord, state: State, result: MoveResult | None = None) -> str:
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
    """Allow a ping of the player to move only (never everyone, roles or anyone else; nobody in solitaire)."""
    if match.status == "active" and match.current_seat is not None and len(match.seats) > 1:
        seat = match.seats[match.current_seat]
        if not seat.is_computer:
            return discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(seat.user_id)])
    return discord.AllowedMentions.none()


async def board_payload(match: MatchRecord, state: State | None = None,
                        result: MoveResult | None = None) -> dict[str, Any]:
    """Keyword arguments for ``send``: content, the PNG board, the move buttons and the allowed mentions."""
    state = state or load_state(match)
    png = await asyncio.to_thread(renderers.render, state, names_of(match))
    payload: dict[str, Any] = {
        "content": headline(match, state, result),
        "file": discord.File(io.BytesIO(png), filename=f"{match.game}-{match.id}-{state.ply}.png"),
        "allowed_mentions": board_mentions(match),
    }
    builder = BOARD_ITEMS.get(match.game)
    if builder is not None and match.status == "active":
        items = builder(match, state)
        if items:
            view = discord.ui.View(timeout=None)
            for item in items:
                view.add_item(item)
            payload["view"] = view
    return payload


async def match_channel(bot: NapkinBot, match: MatchRecord) -> discord.abc.Messageable:
    """The thread (or channel) the match is played in."""
    channel_id = match.post_channel_id
    channel = bot.get_channel(channel_id)
    if channel is None:
        channel = await bot.fetch_channel(channel_id)
    assert isinstance(channel, discord.abc.Messageable)
    return channel


async def post_board(bot: NapkinBot, match: MatchRecord, state: State | None = None,
                     result: MoveResult | None = None) -> discord.Message | None:
    """Post a new board message in the match's channel; ``None`` if Discord refused (the move is stored)."""
    try:
        channel = await match_channel(bot, match)
        return await channel.send(**await board_payload(match, state, result))
    except discord.HTTPException as error:
        log.warning("could not post the board of match %s: %s", match.id, error)
        return None


async def run_computer(bot: NapkinBot, match_id: int) -> None:
    """Let computer seats move and post each of their boards."""
    for result in await bot.service.computer_replies(match_id):
        await post_board(bot, result.match, result.after, result)


async def notify(interaction: discord.Interaction, text: str) -> None:
    """Tell the member ``text`` ephemerally (as the response, else a follow-up); a Discord failure is only logged."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException as error:
        log.warning("could not notify interaction %s: %s", interaction.id, error)


# ---------------------------------------------------------------- resolving the match an interaction is about


async def resolve_match(interaction: discord.Interaction, match_option: str | None,
                        game: str | None = None) -> MatchRecord:
    """Find the match a command is about: the ``match`` option, else the thread it is used in, else the
    member's only active match of ``game``.

    Raises:
        BadOption: the option is not a match number, or nothing identifies a match.
        NotFound: the match does not exist in this server.
    """
    bot = _bot(interaction)
    guild_id = require_guild(interaction)
    if match_option:
        text = match_option.strip().lstrip("#")
        if not (text.isascii() and text.isdecimal()) or len(text) > 18:
            raise BadOption(f"`{match_option[:40]}` is not a match number; pick one from the list.")
        match = await bot.service.get_match(int(text), guild_id)
    else:
        match = await bot.service.match_in_thread(interaction.channel_id or 0)
        if match is None or match.guild_id != guild_id:
            mine = [m for m in await bot.service.active_matches(guild_id, interaction.user.id)
                    if game is None or m.game == game]
            if len(mine) != 1:
                raise BadOption("Use this command in the match's thread, or choose the match with the `match` option.")
            match = mine[0]
    if game is not None and match.game != game:
        raise BadOption(f"Match #{match.id} is a {GAMES[match.game].title} match, not {GAMES[game].title}.")
    return match


async def match_choices(interaction: discord.Interaction, current: str,
                        game: str | None = None) -> list[app_commands.Choice[str]]:
    """Autocomplete for a ``match`` option: the member's active matches (of ``game``), at most 25."""
    if interaction.guild_id is None:
        return []
    bot = _bot(interaction)
    choices = []
    for match in await bot.service.active_matches(interaction.guild_id, interaction.user.id):
        if game is not None and match.game != game:
            continue
        opponents = ", ".join(s.display_name for s in match.seats if s.user_id != interaction.user.id) or "solo"
        turn = "your move" if match.current_seat is not None and \
            match.seats[match.current_seat].user_id == interaction.user.id else "waiting"
        label = f"#{match.id} {GAMES[match.game].title} vs {opponents} ({turn})"[:100]
        if current.strip().lstrip("#").lower() in label.lower():
            choices.append(app_commands.Choice(name=label, value=str(match.id)))
    return choices[:25]


# ---------------------------------------------------------------- moves


async def submit_move(interaction: discord.Interaction, match_id: int, text: str, *,
                      expected_version: int | None = None, via_button: bool = False) -> MoveResult:
    """Apply a member's move and post the new board (then the computer's reply, if any).

    A button click answers by removing the clicked board's buttons; a command used in the match's channel is
    answered with the board itself; elsewhere it gets an ephemeral confirmation and the board goes to the thread.
    Errors propagate (the caller turns them into ephemeral replies); nothing is stored unless the move is legal.
    """
    bot = _bot(interaction)
    guild_id = require_guild(interaction)
    if len(text) > 200:
        raise BadOption("That move is far too long to be a move.")
    if not (text.isascii() and text.isprintable()):
        raise BadOption("Moves are written with plain letters, digits and signs; that text has other characters.")
    result = await bot.service.play(match_id, guild_id, interaction.user.id, text, expected_version)
    match = result.match
    # The move is stored: from here on a Discord failure must not read as "nothing changed".
    posted = True
    try:
        if via_button:
            try:
                await interaction.response.edit_message(view=None)
            except discord.HTTPException as error:  # the clicked board was deleted meanwhile, or Discord failed
                log.info("could not clear the clicked board of match %s: %s", match.id, error)
            posted = await post_board(bot, match, result.after, result) is not None
        elif interaction.channel_id == match.post_channel_id:
            await interaction.response.send_message(**await board_payload(match, result.after, result))
        else:
            await interaction.response.send_message(
                f"Played `{result.notation}` in match #{match.id}; the board is in <#{match.post_channel_id}>.",
                ephemeral=True)
            posted = await post_board(bot, match, result.after, result) is not None
    except discord.HTTPException as error:
        log.warning("could not answer the move in match %s: %s", match.id, error)
        posted = False
    if not posted:
        await notify(interaction, f"Played `{result.notation}` in match #{match.id}, but Discord did not take the "
                                  "new board; `/match board` posts it again.")
    elif not interaction.response.is_done():
        await notify(interaction, f"Played `{result.notation}` in match #{match.id}.")
    await run_computer(bot, match.id)
    return result


# ---------------------------------------------------------------- starting matches


async def open_match_channel(bot: NapkinBot, match: MatchRecord, origin: discord.abc.Messageable | None) -> None:
    """Open the match's thread in its channel (when the server allows threads and the bot may), record it."""
    settings = await bot.service.settings(match.guild_id)
    channel = origin if origin is not None else bot.get_channel(match.channel_id)
    if not settings.use_threads or not isinstance(channel, discord.TextChannel):
        return
    title = GAMES[match.game].title
    name = f"{title} #{match.id}: " + " vs ".join(s.display_name for s in match.seats)
    try:
        thread = await channel.create_thread(name=name[:100], type=discord.ChannelType.public_thread,
                                             auto_archive_duration=THREAD_ARCHIVE_MINUTES)
    except discord.HTTPException as error:
        log.info("no thread for match %s (%s); using the channel", match.id, error)
        return
    await bot.service.set_thread(match.id, thread.id)
    match.thread_id = thread.id


async def begin_match(bot: NapkinBot, match: MatchRecord, origin: discord.abc.Messageable | None,
                      interaction: discord.Interaction | None = None) -> MatchRecord:
    """Open the thread, post the first board, and let the computer move if it starts. If the board cannot be
    posted (a missing permission, a Discord error) or the interaction is still unanswered, tell its member."""
    await open_match_channel(bot, match, origin)
    posted = await post_board(bot, match) is not None
    if interaction is not None and not posted:
        await notify(interaction, f"Match #{match.id} has started, but I could not post its board in "
                                  f"<#{match.post_channel_id}> (I may lack permission to send messages or attach "
                                  "files there); `/match board` shows it, and moves work as usual.")
    elif interaction is not None and not interaction.response.is_done():
        await notify(interaction, f"Match #{match.id} starts in <#{match.post_channel_id}>.")
    await run_computer(bot, match.id)
    return match


async def start_command(interaction: discord.Interaction, game: str, variant: dict[str, Any],
                        opponent: discord.Member | discord.User | None, level: Level | None,
                        days: int | None, seat: str = "first") -> None:
    """Handle ``/<game> start``: an open or directed challenge, a match against the computer, or solitaire.

    Raises:
        NotAllowed, LimitReached, BadOption, games.InvalidVariant.
    """
    bot = _bot(interaction)
    guild_id = require_guild(interaction)
    channel_id = interaction.channel_id or 0
    me = player_of(interaction.user)
    solitaire = GAMES[game].seats_for(bot.service.validate_variant(game, variant)) == 1
    against_computer = opponent is not None and bot.user is not None and opponent.id == bot.user.id
    if opponent is not None and opponent.bot and not against_computer:
        raise NotAllowed("Other bots cannot play. Challenge a member, or me to play the computer.")
    if solitaire or against_computer:
        if solitaire and opponent is not None and not against_computer:
            raise NotAllowed("Solitaire is played alone: leave `opponent` empty.")
        match = await bot.service.start_solo(
            guild_id=guild_id, channel_id=channel_id, game=game, variant=variant, player=me,
            level=level or "medium", days_per_move=days, player_seat=1 if seat == "second" else 0)
        try:
            await interaction.response.send_message(f"Match #{match.id} of {GAMES[game].title} starts.")
        except discord.HTTPException as error:  # the match is stored; begin_match tells the member
            log.warning("could not announce match %s: %s", match.id, error)
        await begin_match(bot, match, interaction.channel, interaction)  # type: ignore[arg-type]
        return
    challenge = await bot.service.create_challenge(
        guild_id=guild_id, channel_id=channel_id, game=game, variant=variant, challenger=me,
        opponent=player_of(opponent) if opponent else None, days_per_move=days)
    who = f"<@{opponent.id}>" if opponent else "anyone"
    options = ", ".join(f"{k}={v}" for k, v in challenge.variant.items() if v is not None)
    days_text = f"{challenge.days_per_move} days per move" if challenge.days_per_move else "no time limit"
    text = (f"**{me.name}** challenges {who} to **{GAMES[game].title}** ({options}; {days_text}).\n"
            f"The challenge expires <t:{int(challenge.expires_at)}:R>.")
    mentions = discord.AllowedMentions(users=[discord.Object(opponent.id)] if opponent else False,
                                       everyone=False, roles=False)
    await interaction.response.send_message(text, view=challenge_view(challenge.id), allowed_mentions=mentions)
    message = await interaction.original_response()
    await bot.service.set_challenge_message(challenge.id, message.id)


async def accept_challenge(interaction: discord.Interaction, challenge_id: int) -> None:
    """Accept button: seat the member, close the challenge, open the match."""
    bot = _bot(interaction)
    guild_id = require_guild(interaction)
    result = await bot.service.accept_challenge(challenge_id, guild_id, player_of(interaction.user))
    content = (interaction.message.content if interaction.message else "") + \
        f"\nAccepted by **{interaction.user.display_name}**: match #{result.match.id}."
    try:
        await interaction.response.edit_message(content=content, view=challenge_view(challenge_id, disabled=True),
                                                allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException as error:  # the challenge message was deleted meanwhile, or Discord failed
        log.info("could not update the message of challenge %s: %s", challenge_id, error)
    await begin_match(bot, result.match, interaction.channel, interaction)  # type: ignore[arg-type]


async def decline_challenge(interaction: discord.Interaction, challenge_id: int) -> None:
    """Decline button: the invited member declines, or the challenger cancels."""
    bot = _bot(interaction)
    guild_id = require_guild(interaction)
    challenge = await bot.service.decline_challenge(challenge_id, guild_id, player_of(interaction.user))
    content = (interaction.message.content if interaction.message else "") + \
        f"\n{challenge.status.capitalize()} by **{interaction.user.display_name}**."
    await interaction.response.edit_message(content=content, view=challenge_view(challenge_id, disabled=True),
                                            allowed_mentions=discord.AllowedMentions.none())
