"""The Discord side of playing: starting matches, submitting moves, computer replies, answering challenges.

Flow of a move: the interaction is parsed by a command or a button, :func:`submit_move` asks the service to
validate and store it (one transaction, no Discord call inside), the board is rendered in a worker thread, and a
*new* message is posted in the match's thread (or channel) pinging only the player to move. If a computer seat is
to move next, its move is computed off the event loop and posted the same way.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.exts.match._board import board_payload, notify, post_board
from bot.exts.match._views import challenge_view
from bot.service import BadOption, MoveResult, NotAllowed, Player
from games import GAMES, Level, Option
from storage import MatchRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

THREAD_ARCHIVE_MINUTES = 10080
"""Discord's longest auto-archive time: a match thread stays open for a week without messages."""
MOVE_TEXT_LIMIT = 200


def player_of(user: discord.abc.User) -> Player:
    """The service's view of a Discord user."""
    return Player(user.id, user.display_name)


def require_guild(interaction: discord.Interaction[Any]) -> int:
    """The interaction's server id (raises :class:`NotAllowed` in DMs)."""
    if interaction.guild_id is None:
        raise NotAllowed("Napkin Games works in servers, not in direct messages.")
    return interaction.guild_id


async def implied_match(interaction: discord.Interaction[NapkinBot], game: str | None = None) -> MatchRecord:
    """The match a command without a ``match`` option is about: the one played in the thread it is used in, else
    the member's only active match (of ``game``).

    Raises:
        BadOption: nothing identifies a single match. NotAllowed: used in a DM.
    """
    bot = interaction.client
    guild_id = require_guild(interaction)
    match = await bot.service.match_in_thread(interaction.channel_id or 0)
    if match is None or match.guild_id != guild_id:
        mine = [m for m in await bot.service.active_matches(guild_id, interaction.user.id)
                if game is None or m.game == game]
        if len(mine) != 1:
            raise BadOption("Use this command in the match's thread, or choose the match with the `match` option.")
        match = mine[0]
    return check_game(match, game)


def check_game(match: MatchRecord, game: str | None) -> MatchRecord:
    """Return ``match`` if it is a match of ``game`` (or ``game`` is ``None``).

    Raises:
        BadOption: it is a match of another game.
    """
    if game is not None and match.game != game:
        raise BadOption(f"Match #{match.id} is a {GAMES[match.game].title} match, not {GAMES[game].title}.")
    return match


# ---------------------------------------------------------------- moves


async def run_computer(bot: NapkinBot, match_id: int) -> None:
    """Let computer seats move and post each of their boards."""
    for result in await bot.service.computer_replies(match_id):
        await post_board(bot, result.match, result.after, result)


async def submit_move(interaction: discord.Interaction[NapkinBot], match_id: int, text: str, *,
                      expected_version: int | None = None, via_button: bool = False) -> MoveResult:
    """Apply a member's move and post the new board (then the computer's reply, if any).

    A button click answers by removing the clicked board's buttons; a command used in the match's channel is
    answered with the board itself; elsewhere it gets an ephemeral confirmation and the board goes to the thread.
    Errors propagate (the caller turns them into ephemeral replies); nothing is stored unless the move is legal.
    """
    bot = interaction.client
    guild_id = require_guild(interaction)
    if len(text) > MOVE_TEXT_LIMIT:
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


def _origin(interaction: discord.Interaction[Any]) -> discord.abc.Messageable | None:
    channel = interaction.channel
    return channel if isinstance(channel, discord.abc.Messageable) else None


async def begin_match(bot: NapkinBot, match: MatchRecord, origin: discord.abc.Messageable | None,
                      interaction: discord.Interaction[NapkinBot] | None = None) -> MatchRecord:
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


def variant_words(game: str, variant: dict[str, Any]) -> str:
    """The variant in words for a challenge text: each option that differs from its default (``"n 10, unique"``)."""
    options: dict[str, Option] = {option.name: option for option in GAMES[game].options}
    defaults = GAMES[game].variant_defaults()
    words = []
    for name, value in variant.items():
        if value is None or value == defaults.get(name) or name not in options:
            continue
        label = name.replace("_", " ")
        if isinstance(value, bool):
            words.append(label if value else f"no {label}")
        else:
            words.append(f"{label} {value}")
    return ", ".join(words) or "standard rules"


async def start_command(interaction: discord.Interaction[NapkinBot], game: str, variant: dict[str, Any],
                        opponent: discord.Member | discord.User | None, level: Level | None,
                        days: int | None, seat: str = "first") -> None:
    """Handle ``/<game> start``: an open or directed challenge, a match against the computer, or solitaire.

    Raises:
        NotAllowed, LimitReached, BadOption, games.InvalidVariant.
    """
    bot = interaction.client
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
        await begin_match(bot, match, _origin(interaction), interaction)
        return
    challenge = await bot.service.create_challenge(
        guild_id=guild_id, channel_id=channel_id, game=game, variant=variant, challenger=me,
        opponent=player_of(opponent) if opponent else None, days_per_move=days)
    who = f"<@{opponent.id}>" if opponent else "anyone"
    days_text = f"{challenge.days_per_move} days per move" if challenge.days_per_move else "no time limit"
    text = (f"**{me.name}** challenges {who} to **{GAMES[game].title}** "
            f"({variant_words(game, challenge.variant)}; {days_text}).\n"
            f"The challenge expires <t:{int(challenge.expires_at)}:R>.")
    mentions = discord.AllowedMentions(users=[discord.Object(opponent.id)] if opponent else False,
                                       everyone=False, roles=False)
    await interaction.response.send_message(text, view=challenge_view(challenge.id), allowed_mentions=mentions)
    message = await interaction.original_response()
    await bot.service.set_challenge_message(challenge.id, message.id)


async def accept_challenge(interaction: discord.Interaction[NapkinBot], challenge_id: int) -> None:
    """Accept button: seat the member, close the challenge, open the match."""
    bot = interaction.client
    guild_id = require_guild(interaction)
    result = await bot.service.accept_challenge(challenge_id, guild_id, player_of(interaction.user))
    content = (interaction.message.content if interaction.message else "") + \
        f"\nAccepted by **{interaction.user.display_name}**: match #{result.match.id}."
    try:
        await interaction.response.edit_message(content=content, view=challenge_view(challenge_id, disabled=True),
                                                allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException as error:  # the challenge message was deleted meanwhile, or Discord failed
        log.info("could not update the message of challenge %s: %s", challenge_id, error)
    await begin_match(bot, result.match, _origin(interaction), interaction)


async def decline_challenge(interaction: discord.Interaction[NapkinBot], challenge_id: int) -> None:
    """Decline button: the invited member declines, or the challenger cancels."""
    bot = interaction.client
    guild_id = require_guild(interaction)
    challenge = await bot.service.decline_challenge(challenge_id, guild_id, player_of(interaction.user))
    content = (interaction.message.content if interaction.message else "") + \
        f"\n{challenge.status.capitalize()} by **{interaction.user.display_name}**."
    await interaction.response.edit_message(content=content, view=challenge_view(challenge_id, disabled=True),
                                            allowed_mentions=discord.AllowedMentions.none())
