"""The Discord side of starting matches: ``/<game> start`` (a challenge, a match against the computer, or
solitaire), the challenge message and its Accept / Decline buttons, the Rematch button, and the first board in the
match's own thread.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Literal, cast

import discord

from bot.answers import language_of, respond, update
from bot.service import BadOption, NotAllowed, Player
from bot.utils.boards import Board
from bot.utils.buttons import challenge_view
from bot.utils.computer import computer_answers
from bot.utils.converters import player_of, require_guild
from bot.utils.messages import notify, post_board, send_dm
from bot.utils.names import addressed, escape, may_ping, plain_name, server_name
from games import GAMES, Level, Option
from i18n import Channel, Moment, Text, _, n_
from storage import ChallengeRecord, MatchRecord, MemberPrefs

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)


THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080
"""Discord's longest auto-archive time: a match thread stays open for a week without messages."""


async def open_match_channel(bot: NapkinBot, match: MatchRecord, origin: discord.abc.Messageable | None) -> None:
    """Open the match's thread in its channel (when the server allows threads and the bot may), record it."""
    settings = await bot.services.settings.get(match.guild_id)
    channel = origin if origin is not None else bot.get_channel(match.channel_id)
    if not settings.use_threads or not isinstance(channel, discord.TextChannel):
        return
    language = await bot.services.languages.server_language(match.guild_id)
    name = _("{game} #{match}: {players}", game=GAMES[match.game].title_text, match=str(match.id),
             players=" vs ".join(plain_name(s.display_name) for s in match.seats)).render(language)
    try:
        thread = await channel.create_thread(name=name[:100], type=discord.ChannelType.public_thread,
                                             auto_archive_duration=THREAD_ARCHIVE_MINUTES)
    except discord.HTTPException as error:
        log.info("no thread for match %s (%s); using the channel", match.id, error)
        return
    await bot.services.challenges.set_thread(match.id, thread.id)
    match.thread_id = thread.id


def _origin(interaction: discord.Interaction[Any]) -> discord.abc.Messageable | None:
    channel = interaction.channel
    return channel if isinstance(channel, discord.abc.Messageable) else None


async def begin_match(bot: NapkinBot, match: MatchRecord, origin: discord.abc.Messageable | None,
                      interaction: discord.Interaction[NapkinBot] | None = None) -> MatchRecord:
    """Open the thread, post the first board, and let the computer move if it starts. If the board cannot be
    posted (a missing permission, a Discord error) or the interaction is still unanswered, tell its member."""
    await open_match_channel(bot, match, origin)
    results = await computer_answers(bot, match)  # the computer opens: its move is on the first board
    current, state = (results[-1].match, results[-1].after) if results else (match, None)
    posted = await post_board(bot, current, state, Board(results=results, first=True)) is not None
    if interaction is not None and not posted:
        await notify(interaction, _("Match #{match} has started, but I could not post its board in {channel} (I may "
                                    "lack permission to send messages or attach files there); `/match board` shows "
                                    "it, and moves work as usual.", match=str(match.id),
                                    channel=Channel(match.post_channel_id)))
    elif interaction is not None and not interaction.response.is_done():
        await notify(interaction, _("Match #{match} starts in {channel}.", match=str(match.id),
                                    channel=Channel(match.post_channel_id)))
    return current


def variant_words(game: str, variant: dict[str, Any], language: str | None = None) -> str:
    """The variant in words in ``language`` (``"Chopsticks · rollover · no self-taps"``; ``None``: English): the
    game's title, then each option that differs from its default, as ``name value`` or, for on/off options, ``name``
    / ``no name`` (option names stay as players type them)."""
    declared = GAMES[game]
    options: dict[str, Option] = {option.name: option for option in declared.options}
    defaults = declared.variant_defaults()
    words = [_(declared.title).render(language)]
    for name, value in variant.items():
        if value is None or value == defaults.get(name) or name not in options:
            continue
        label = name.replace("_", " ")
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # a width of 20, as typed, not 20.0
        if isinstance(value, bool):
            words.append(label if value else _("no {option}", option=label).render(language))
        elif isinstance(value, list | tuple):
            words.append(f"{label} {'/'.join(map(str, value))}")
        else:
            words.append(f"{label} {value}")
    return " · ".join(words)


def days_words(days: int) -> Text:
    """``"3 days per move"`` or ``"no time limit"``."""
    return n_("{count} day per move", "{count} days per move", days) if days else _("no time limit")


def check_start_options(*, solitaire: bool, against_computer: bool, level: Level | None, seat: str | None) -> None:
    """Refuse the start options that do not apply to the match asked for (``seat`` applies against the computer
    and in a challenge, where the challenger picks their side).

    Raises:
        BadOption: ``level`` without the computer as opponent; ``seat`` in solitaire.
    """
    if level is not None and not against_computer:
        raise BadOption(_("`level:{level}` sets the computer's strength; pick me as `opponent` to play the "
                          "computer at that level, or leave `level` out.", level=level))
    if seat is not None and solitaire:
        raise BadOption(_("`seat:{seat}` does not apply to solitaire, which is played alone; leave `seat` out.",
                          seat=seat))


async def start_command(interaction: discord.Interaction[NapkinBot], game: str, variant: dict[str, Any],
                        opponent: discord.Member | discord.User | None, level: Level | None,
                        days: int | None, seat: str | None = None) -> None:
    """Handle ``/<game> start``: an open or directed challenge, a match against the computer, or solitaire.

    ``seat`` (``"first"``/``"second"``) is the starter's seat against the computer or in a challenge; ``level``
    applies only against the computer.

    Raises:
        NotAllowed, LimitReached, BadOption, games.InvalidVariant.
    """
    bot = interaction.client
    guild_id = require_guild(interaction)
    channel_id, origin = await _home(interaction)
    me = player_of(interaction.user)
    solitaire = GAMES[game].seats_for(bot.services.challenges.validate_variant(game, variant)) == 1
    against_computer = opponent is not None and bot.user is not None and opponent.id == bot.user.id
    if opponent is not None and opponent.bot and not against_computer:
        raise NotAllowed(_("Other bots cannot play. Challenge a member, or me to play the computer."))
    if solitaire and opponent is not None and not against_computer:
        raise NotAllowed(_("Solitaire is played alone: leave `opponent` empty."))
    check_start_options(solitaire=solitaire, against_computer=against_computer, level=level, seat=seat)
    if solitaire or against_computer:
        match = await bot.services.challenges.start_solo(
            guild_id=guild_id, channel_id=channel_id, game=game, variant=variant, player=me,
            level=level or "medium", days_per_move=days, player_seat=1 if seat == "second" else 0)
        try:
            language = language_of(interaction, private=False)
            await respond(interaction, _("Match #{match} starts: {variant}.", match=str(match.id),
                                         variant=variant_words(game, match.variant, language)))
        except discord.HTTPException as error:  # the match is stored; begin_match tells the member
            log.warning("could not announce match %s: %s", match.id, error)
        await begin_match(bot, match, origin, interaction)
        return
    challenge = await bot.services.challenges.create(
        guild_id=guild_id, channel_id=channel_id, game=game, variant=variant, challenger=me,
        opponent=player_of(opponent) if opponent else None, days_per_move=days,
        challenger_seat=1 if seat == "second" else 0)
    await post_challenge(interaction, challenge, opponent, origin)


async def post_challenge(interaction: discord.Interaction[NapkinBot], challenge: ChallengeRecord,
                         opponent: discord.abc.User | None, origin: discord.abc.Messageable | None) -> None:
    """Post the challenge's message with its buttons (as the answer, or in ``origin`` when the command was used in
    a match's thread) and remember it; if Discord does not take it, cancel the challenge — nobody could accept
    it — and tell the challenger. An invited member who turned pings off is told by direct message."""
    bot = interaction.client
    prefs = await bot.services.vacations.prefs(opponent.id) if opponent is not None else None
    payload = challenge_payload(challenge, prefs, opponent.display_name if opponent is not None else "",
                                language=language_of(interaction, private=False))
    message: discord.Message | None = None
    try:
        if origin is not None and interaction.channel_id != challenge.channel_id:
            message = await origin.send(**payload)
            await notify(interaction, _("Your challenge is posted in {channel}.",
                                        channel=Channel(challenge.channel_id)))
        else:
            message = await respond(interaction, **payload)  # Discord names the message in its answer
    except (discord.HTTPException, discord.ClientException) as error:
        log.warning("could not post challenge %s: %s; cancelling it", challenge.id, error)
        await bot.services.challenges.cancel(challenge.id)
        await notify(interaction, _("Discord did not take your challenge's message, so I cancelled the challenge "
                                    "(nobody could have accepted it). Please try again."))
        return
    await tell_challenged(bot, challenge, prefs, message)
    if message is None:  # posted, but its id is unknown: a click on it still answers the truth
        log.warning("could not learn the message of challenge %s; its buttons answer when clicked", challenge.id)
        return
    await bot.services.challenges.set_message(challenge.id, message.id)


async def _home(interaction: discord.Interaction[NapkinBot]) -> tuple[int, discord.abc.Messageable | None]:
    """Where a match started by ``interaction`` belongs: its channel, or, used inside a thread (a match's thread
    above all), the channel the thread belongs to — a match never takes another match's thread as its channel.
    Returns the channel id and the channel to post in (``None`` when unknown)."""
    channel = interaction.channel
    if isinstance(channel, discord.Thread) and channel.parent_id:
        parent = channel.parent or interaction.client.get_channel(channel.parent_id)
        return channel.parent_id, parent if isinstance(parent, discord.abc.Messageable) else None
    if await interaction.client.services.reading.match_in_thread(interaction.channel_id or 0) is not None:
        raise NotAllowed(_("This is a match's thread: start a new match in the channel instead."))
    return interaction.channel_id or 0, _origin(interaction)


def challenge_payload(challenge: ChallengeRecord, opponent: MemberPrefs | None, opponent_name: str = "", *,
                      rematch_of: int | None = None, language: str | None = None) -> dict[str, Any]:
    """The message of an open challenge: who challenges whom to what, the time control, who moves first, when it
    expires, and the Accept / Decline buttons. It pings only the invited member (``opponent``: their preferences;
    ``None``: an open challenge, anyone may accept), and them only when they allow pings: a member who turned pings
    off is named in bold (and told by direct message: :func:`tell_challenged`)."""
    who = addressed(opponent.user_id, opponent_name, opponent.pings) if opponent is not None else _("anyone")
    first = _("they move first") if challenge.challenger_seat == 1 else _("the challenger moves first")
    fields = {"challenger": f"**{escape(challenge.challenger_name)}**", "who": who,
              "variant": f"**{variant_words(challenge.game, challenge.variant, language)}**",
              "days": days_words(challenge.days_per_move), "first": first}
    offer = (_("{challenger} challenges {who} to {variant} (a rematch of match #{match}) ({days}; {first}).",
               match=str(rematch_of), **fields) if rematch_of
             else _("{challenger} challenges {who} to {variant} ({days}; {first}).", **fields))
    expires = _("The challenge expires {when}.", when=Moment(challenge.expires_at, relative=True))
    text = f"{offer.render(language)}\n{expires.render(language)}"
    mentions = may_ping(opponent.user_id, opponent.pings) if opponent is not None else discord.AllowedMentions.none()
    return {"content": text, "view": challenge_view(challenge.id, language=language), "allowed_mentions": mentions}


async def tell_challenged(bot: NapkinBot, challenge: ChallengeRecord, opponent: MemberPrefs | None,
                          message: discord.Message | None) -> None:
    """A member who turned pings off learns of a challenge addressed to them by direct message (capped per hour:
    :func:`bot.utils.messages.send_dm`), with a link to it; nothing for anyone else."""
    if opponent is None or opponent.pings:
        return
    link = message.jump_url if message is not None else \
        f"https://discord.com/channels/{challenge.guild_id}/{challenge.channel_id}"
    language = await bot.services.languages.member_language(opponent.user_id)
    await send_dm(bot, opponent.user_id, _(
        "{challenger} challenges you to {variant} in {server}: {link}",
        challenger=f"**{escape(challenge.challenger_name)}**",
        variant=f"**{variant_words(challenge.game, challenge.variant, language)}**",
        server=f"**{server_name(bot, challenge.guild_id)}**", link=link))


async def rematch(interaction: discord.Interaction[NapkinBot], match_id: int) -> None:
    """The Rematch button of a final board: against the computer or alone, a new match starts at once; against a
    member, a challenge to them with the same options and the seats swapped is posted in the match's channel.

    Raises:
        NotFound, NotAllowed (not a player of that match), BadOption (the match is still running), LimitReached.
    """
    bot = interaction.client
    guild_id = require_guild(interaction)
    match = await bot.services.reading.get_match(match_id, guild_id)
    seat = match.seat_of(interaction.user.id)
    if seat is None:
        raise NotAllowed(_("Only the players of match #{match} can ask for a rematch.", match=str(match_id)))
    if match.status == "active":
        raise BadOption(_("Match #{match} is still running.", match=str(match_id)))
    me = player_of(interaction.user)
    origin = bot.get_channel(match.channel_id)
    messageable = origin if isinstance(origin, discord.abc.Messageable) else None
    others = [s for s in match.seats if s.seat != seat]
    if not others or others[0].is_computer:
        level = cast(Level, others[0].level) if others else None
        started = await bot.services.challenges.start_solo(
            guild_id=guild_id, channel_id=match.channel_id, game=match.game, variant=dict(match.variant), player=me,
            level=level, days_per_move=match.days_per_move, player_seat=1 - seat if others else 0)
        await notify(interaction, _("Rematch: match #{match} starts in {channel}.", match=str(started.id),
                                    channel=Channel(match.channel_id)))
        await begin_match(bot, started, messageable)
        return
    opponent = others[0]
    challenge = await bot.services.challenges.create(
        guild_id=guild_id, channel_id=match.channel_id, game=match.game, variant=dict(match.variant), challenger=me,
        opponent=Player(opponent.user_id, opponent.display_name), days_per_move=match.days_per_move,
        challenger_seat=1 - seat)
    if messageable is None:
        raise NotAllowed(_("I cannot post in the match's channel any more."))
    prefs = await bot.services.vacations.prefs(opponent.user_id)
    message = await messageable.send(**challenge_payload(
        challenge, prefs, opponent.display_name, rematch_of=match.id,
        language=await bot.services.languages.server_language(guild_id)))
    await bot.services.challenges.set_message(challenge.id, message.id)
    await tell_challenged(bot, challenge, prefs, message)
    await notify(interaction, _("Rematch offered to {name} in {channel}.", name=escape(opponent.display_name),
                                channel=Channel(match.channel_id)))


async def accept_challenge(interaction: discord.Interaction[NapkinBot], challenge_id: int) -> None:
    """Accept button: seat the member, close the challenge, open the match."""
    bot = interaction.client
    guild_id = require_guild(interaction)
    result = await bot.services.challenges.accept(challenge_id, guild_id, player_of(interaction.user))
    language = language_of(interaction, private=False)  # the message's: the server's
    accepted = _("Accepted by {name}: match #{match}.", name=f"**{escape(interaction.user.display_name)}**",
                 match=str(result.match.id)).render(language)
    content = (interaction.message.content if interaction.message else "") + f"\n{accepted}"
    try:
        await update(interaction, content=content, view=challenge_view(challenge_id, disabled=True, language=language),
                     allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException as error:  # the challenge message was deleted meanwhile, or Discord failed
        log.info("could not update the message of challenge %s: %s", challenge_id, error)
    await begin_match(bot, result.match, _origin(interaction), interaction)


async def decline_challenge(interaction: discord.Interaction[NapkinBot], challenge_id: int) -> None:
    """Decline button: the invited member declines (the challenger is told once), or the challenger cancels."""
    bot = interaction.client
    guild_id = require_guild(interaction)
    challenge = await bot.services.challenges.decline(challenge_id, guild_id, player_of(interaction.user))
    who = escape(interaction.user.display_name)
    closed = (_("Declined by {name}.", name=f"**{who}**") if challenge.status == "declined"
              else _("Cancelled by {name}.", name=f"**{who}**"))
    language = language_of(interaction, private=False)  # the message's: the server's
    content = (interaction.message.content if interaction.message else "") + f"\n{closed.render(language)}"
    await update(interaction, content=content, view=challenge_view(challenge_id, disabled=True, language=language),
                 allowed_mentions=discord.AllowedMentions.none())
    if challenge.status == "declined":
        pings = (await bot.services.vacations.prefs(challenge.challenger_id)).pings  # /notify pings:off holds
        try:
            await respond(
                interaction,
                _("{member}, {who} declined your {game} challenge.",
                  member=addressed(challenge.challenger_id, challenge.challenger_name, pings), who=who,
                  game=_(GAMES[challenge.game].title)), allowed_mentions=may_ping(challenge.challenger_id, pings))
        except discord.HTTPException as error:
            log.info("could not tell the challenger of challenge %s: %s", challenge_id, error)
