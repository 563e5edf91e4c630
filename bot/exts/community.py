"""Community commands: ``/leaderboard`` (the current season's, earlier seasons', or all time), ``/stats``, ``/rules``
and the admins' ``/settings``."""

from __future__ import annotations

import asyncio
import functools
import inspect
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

import renderers
from bot.answers import PRIVATE, language_of, respond, suggest_in_time
from bot.service import BadOption, ratings, uncertainty
from bot.service.languages import AUTOMATIC
from bot.service.seasons import season_of, season_words
from bot.texts import plural, quote
from bot.utils.converters import AUTOCOMPLETE_LIMIT, require_guild
from bot.utils.images import DESCRIPTION_LIMIT, image_file
from bot.utils.names import escape
from games import GAMES, State
from i18n import Listed, Moment, Text, _, documents, n_, p_, speaking
from storage import SettingsRecord

LANGUAGE_CHOICES = (
    (AUTOMATIC, "automatic (the server's language in Discord)"),
    ("en", "English"),
    ("fr", "Français"),
    ("de", "Deutsch"),
    ("es_ES", "Español (España)"),
    ("pt_BR", "Português (Brasil)"),
)
"""``/settings language``'s choices: each shipped language by its own name (as every member recognizes it)."""

if TYPE_CHECKING:
    from bot.client import NapkinBot

GAME_CHOICES = [app_commands.Choice(name=GAMES[key].title, value=key) for key in GAMES]
LEADERBOARD_ROWS = 20
MAX_PAGE = 2**31 - 1
"""The ``page`` option's bound (Discord's integers go further; every rank of any server is below it)."""


EMBED_FIELD = 1024
EMBED_TOTAL = 6000
ALL_TIME = "all"
"""The ``season`` option's value for the all-time leaderboard."""
SEASON_KEY = re.compile(r"\d{4}-(\d{2}|Q[1-4])")


def rules_source(game: str) -> str:
    """The players' rules of ``game`` in English: the Markdown file ``<module>.rules.md`` beside the game's rules
    module (``games/chopsticks/game.rules.md``); empty when the game has none. Translated piece by piece
    (:mod:`i18n.documents`)."""
    path = Path(inspect.getfile(type(GAMES[game]))).with_suffix(".rules.md")
    return path.read_text(encoding="utf-8").strip() if path.is_file() else ""


def _values(option: Any) -> Text:
    if option.kind == "bool":
        return _("on or off")
    if option.kind == "int":
        return _("{low} to {high}", low=option.minimum, high=option.maximum)
    if option.kind == "choice":
        return _("{choices}", choices=Listed(tuple(f"`{choice}`" for choice in option.choices), style="or"))
    return n_("text of up to {count} character", "text of up to {count} characters", option.max_length)


def _default(option: Any) -> Text | str:
    if option.default is None:
        return p_(documents.CONTEXT, option.unset)
    if isinstance(option.default, bool):
        return _("on") if option.default else _("off")
    return f"`{option.default}`"


def option_lines(game: str) -> list[Text]:
    """One line per variant option: name, what it does, its values and default (from the declaration)."""
    return [_("`{name}`: {what} ({values}; default {default})", name=option.name,
              what=p_(documents.CONTEXT, option.description), values=_values(option), default=_default(option))
            for option in GAMES[game].options]


def declaration_texts() -> list[str]:
    """The words of every registered game's declaration that ``/rules`` shows: its options' descriptions and what
    their unset default means, and what each level of the computer does (translated in the ``rules`` context)."""
    texts = []
    for key in GAMES:
        declared = GAMES[key]
        for option in declared.options:
            texts += [option.description, option.unset]
        texts += list(declared.level_descriptions.values())
    return list(dict.fromkeys(texts))


def extract_declaration_texts(fileobj: Any, keywords: Any, comment_tags: Any,
                              options: Any) -> Iterator[tuple[int, str, tuple[str, str], list[str]]]:
    """Babel's extraction method ``declarations`` (babel.cfg): :func:`declaration_texts` as ``p_("rules", text)``
    messages, whatever the file it is pointed at holds."""
    for text in declaration_texts():
        yield 1, "p_", (documents.CONTEXT, text), ["A game's option or computer level, as /rules lists it."]


def _chunks(lines: list[str], limit: int) -> list[str]:
    chunks: list[str] = []
    for line in lines:
        if chunks and len(chunks[-1]) + 1 + len(line) <= limit:
            chunks[-1] += "\n" + line
        else:
            chunks.append(line[:limit])
    return chunks


def rules_embed(game: str, locale: str | None = None) -> discord.Embed:
    """The ``/rules`` embed in ``locale`` (a shipped locale; ``None``: English): the aim, each section of the
    players' text as a field, the variant options (from the declaration), the computer's levels, where tournaments
    and seasons are explained, and the source credit, within Discord's embed limits without cutting a section.

    Raises:
        ValueError: a section is longer than a field may be (a fault of the rules text or of a translation; a test
            checks them all in every language).
    """
    declared = GAMES[game]
    with speaking(locale):
        title = declared.local_title
    source = rules_source(game)
    if source:
        document = documents.translated(documents.parse(source), locale)
    else:
        intro = _("{game}: type {start} to play.", game=title, start=f"`/{declared.command} start`").render(locale)
        document = documents.Document(intro, ())
    embed = discord.Embed(title=_("{game}: rules", game=title).render(locale), description=document.intro,
                          colour=discord.Colour.blurple())
    for heading, body in document.sections:
        if len(body) > EMBED_FIELD:
            raise ValueError(f"the section {heading!r} of {game}'s rules is longer than {EMBED_FIELD} characters")
        embed.add_field(name=heading, value=body or "…", inline=False)
    options = [line.render(locale) for line in option_lines(game)]
    if options:
        for index, chunk in enumerate(_chunks(options, EMBED_FIELD)):
            name = _("Options of the start command") if index == 0 else _("More options")
            embed.add_field(name=name.render(locale), value=chunk, inline=False)
    if declared.level_descriptions:
        levels = "\n".join(_("**{level}**: {what}.", level=level, what=p_(documents.CONTEXT, what)).render(locale)
                           for level, what in declared.level_descriptions.items())
        embed.add_field(name=_("Playing me (pick me as `opponent`, then `level:`)").render(locale),
                        value=levels[:EMBED_FIELD], inline=False)
    embed.add_field(name=_("Tournaments and seasons").render(locale), inline=False, value=_(
        "A server can hold a Swiss or round-robin tournament of this game: {create}, with the game's options in "
        "`variant` as in its start command. `/help topic:tournaments` tells how rounds, byes, withdrawals and "
        "tie-breaks work; `/help topic:ratings`, how ratings and seasons do.",
        create=f"`/tournament create game:{declared.title}`").render(locale))
    embed.add_field(name=_("Source").render(locale), value=declared.source, inline=False)
    embed.set_footer(text=_("Start a match: {start} · all commands: /help",
                            start=f"/{declared.command} start").render(locale))
    if len(embed) > EMBED_TOTAL:
        raise ValueError(f"the rules of {game} are longer than an embed may be ({len(embed)} characters)")
    return embed


@functools.cache  # one entry per registered game and shipped language
def example_board(game: str, locale: str = "en") -> tuple[bytes, str]:
    """The PNG of ``game``'s example board (:func:`example_state`) and its alt text, in ``locale``, drawn once per
    process and language: reading rules is the first thing a newcomer does, so ``/rules`` costs nothing after a
    game's first reading and needs no cooldown."""
    state = example_state(game)
    with speaking(locale):
        names = [_("Player {number}", number=seat + 1).render(locale) for seat in range(state.seats)]
        lead = _("An example board of {game}.", game=GAMES[game].local_title).render(locale)
        alt = renderers.alt_text(state, names, limit=DESCRIPTION_LIMIT - len(lead) - 1)
        return renderers.render(state, names), f"{lead} {alt}"


def example_state(game: str, plies: int = 4) -> State[Any]:
    """A deterministic example position: the default start after a few ``easy`` computer moves."""
    rng = random.Random(7)
    state: State[Any] = GAMES[game].new_state({}, rng)
    for _ply in range(plies):
        if state.is_over:
            break
        state = state.apply(GAMES[game].computer_move(state, "easy", rng))
    return state


class Community(commands.Cog):
    """Leaderboards, statistics, rules and server settings."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot

    @app_commands.command(name="leaderboard", description="This server's ranking for a game (this season's, when "
                                                           "the server has seasons)")
    @app_commands.describe(game="The game",
                           solitaire="Games with a solitaire mode: the solitaire board (best turns against par)",
                           page=f"Page of {LEADERBOARD_ROWS} players (default 1)",
                           season="A season (2025-03, 2025-Q1), or all for all time (default: the current one)",
                           provisional="Also rank provisional ratings (few games, or not played for long)")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction[NapkinBot], game: str, solitaire: bool = False,
                          page: app_commands.Range[int, 1, MAX_PAGE] = 1, season: str | None = None,
                          provisional: bool = False) -> None:
        """Post one page of the ranking as an embed (rank, player, rating, W/L/D), ranked and cut in SQL: the
        current season's while the server has seasons on (``season:`` an earlier one, or ``all``), else all time;
        established ratings only unless ``provisional``."""
        guild_id = require_guild(interaction)
        declared = GAMES[game]
        solo = solitaire and any(declared.seats_for(demo.variant) == 1 for demo in declared.demo)
        now = self.bot.now()
        if season is not None and season != ALL_TIME and not SEASON_KEY.fullmatch(season):
            raise BadOption(_("`{season}` is not a season: a month like `2025-03`, a quarter like `2025-Q1`, or "
                              "`{all}` for all time.", season=quote(season), all=ALL_TIME))
        if season is None and not solo:
            season = season_of((await self.bot.services.settings.get(guild_id)).seasons, now)
        in_season = season is not None and season != ALL_TIME and not solo
        if in_season:
            assert season is not None
            board = await self.bot.services.ratings.season(guild_id, game, season, page=page, rows=LEADERBOARD_ROWS,
                                                           everyone=provisional)
            title = _("{game} — season {season}", game=declared.title_text, season=season_words(season))
        elif solo:
            board = await self.bot.services.ratings.leaderboard(guild_id, game, solitaire=True, page=page,
                                                                rows=LEADERBOARD_ROWS, now=now, everyone=provisional)
            title = _("{game} — solitaire, best against par", game=declared.title_text)
        else:
            board = await self.bot.services.ratings.leaderboard(guild_id, game, page=page, rows=LEADERBOARD_ROWS,
                                                                now=now, everyone=provisional)
            title = _("{game} — leaderboard", game=declared.title_text)
        reader = language_of(interaction, private=False)
        embed = discord.Embed(title=title.render(reader), colour=discord.Colour.blurple())
        if not board.standings:
            nobody = solo or provisional or not (await self.bot.services.ratings.leaderboard(
                guild_id, game, page=1, rows=1, now=now, everyone=True)).standings  # (all time: anyone rated)
            embed.description = (_("No finished rated matches yet.") if nobody else
                                 _("No established ratings yet (`provisional:true` ranks everyone who "
                                   "played).")).render(reader)
        else:
            lines = []
            for s in board.standings:
                if solo:
                    par = f"{s.best_vs_par:+d}" if s.best_vs_par is not None else "–"
                    line = n_("`{rank}.` **{name}** · par {par} · {count} game",
                              "`{rank}.` **{name}** · par {par} · {count} games", s.games,
                              rank=f"{s.rank:>2}", name=escape(s.name), par=par)
                else:
                    line = _("`{rank}.` **{name}** · {rating} · {wins}/{losses}/{draws}", rank=f"{s.rank:>2}",
                             name=escape(s.name), rating=f"{s.rating}{'?' if s.provisional else ''}",
                             wins=str(s.wins), losses=str(s.losses), draws=str(s.draws))
                lines.append(line.render(reader))
            embed.description = "\n".join(lines)
        if solo:
            footer = _("page {page} of {pages} · par ±N = best completed game: turns taken minus par, the fewest turns "
                       "that complete the basis (lower is better)", page=str(board.page), pages=str(board.pages))
        else:
            which = (_("W/L/D this season, rating after the season's last game") if in_season else _("W/L/D"))
            footer = (_("page {page} of {pages} · rating 1000 + 40·(μ − 3σ), openskill · {which} · {computer}",
                        page=str(board.page), pages=str(board.pages), which=which,
                        computer=await self._computer_note(guild_id)) if provisional else
                      _("page {page} of {pages} · rating 1000 + 40·(μ − 3σ), openskill · {which}; provisional ratings "
                        "(?) are left off: provisional:true · {computer}", page=str(board.page),
                        pages=str(board.pages), which=which, computer=await self._computer_note(guild_id)))
        embed.set_footer(text=footer.render(reader))
        await respond(interaction, embed=embed, allowed_mentions=discord.AllowedMentions.none())

    @leaderboard.autocomplete("season")
    @suggest_in_time
    async def _seasons(self, interaction: discord.Interaction[NapkinBot],
                       current: str) -> list[app_commands.Choice[str]]:
        """The server's seasons of the game chosen (latest first), and all time."""
        if interaction.guild_id is None:
            return []
        game = getattr(interaction.namespace, "game", None)
        seasons = await self.bot.services.ratings.seasons(interaction.guild_id, game if game in GAMES else None)
        reader = language_of(interaction, private=True)
        choices = [app_commands.Choice(name=_("{season}", season=season_words(key)).render(reader), value=key)
                   for key in seasons]
        choices.append(app_commands.Choice(name=_("all time").render(reader), value=ALL_TIME))
        needle = current.strip().lower()
        return [c for c in choices if needle in c.name.lower() or needle in c.value][:AUTOCOMPLETE_LIMIT]

    @app_commands.command(name="stats", description="A member's record and rating per game in this server")
    @app_commands.describe(user="The member (default: you)")
    @app_commands.guild_only()
    async def stats(self, interaction: discord.Interaction[NapkinBot], user: discord.Member | None = None) -> None:
        """Post a member's record per game; where most of their rated wins in a game were against one member (a rating
        built on one opponent: :func:`bot.service.ratings.one_opponent`), the field says so."""
        guild_id = require_guild(interaction)
        member = user or interaction.user
        rows = await self.bot.services.ratings.of_member(guild_id, member.id)
        built_on = {found.game: found for found in await self.bot.services.ratings.one_opponent(guild_id, member.id)}
        played, won, podiums = await self.bot.services.tournament_reading.of_member(guild_id, member.id)
        reader = language_of(interaction, private=False)
        embed = discord.Embed(title=_("{member} — statistics", member=escape(member.display_name)).render(reader),
                              colour=discord.Colour.blurple())
        if not rows:
            embed.description = _("No finished rated matches yet.").render(reader)
        now = self.bot.now()
        for row in rows:
            game, solo = ratings.split_key(row.game)
            if solo:
                value = (n_("best {best} against par · {wins} completed of {count} game",
                            "best {best} against par · {wins} completed of {count} games", row.games,
                            best=f"{row.best_vs_par:+d}", wins=row.wins) if row.best_vs_par is not None else
                         n_("no best against par yet · {wins} completed of {count} game",
                            "no best against par yet · {wins} completed of {count} games", row.games, wins=row.wins))
                embed.add_field(name=_("{game} (solitaire)", game=GAMES[game].title_text).render(reader),
                                value=value.render(reader), inline=False)
                continue
            rating = ratings.display_rating(row.mu, row.sigma)
            provisional = "?" if uncertainty.is_provisional(row.games, row.sigma, row.updated_at, now) else ""
            lines = [n_("rating {rating} · W/L/D {wins}/{losses}/{draws} · {count} game",
                        "rating {rating} · W/L/D {wins}/{losses}/{draws} · {count} games", row.games,
                        rating=f"{rating}{provisional}", wins=str(row.wins), losses=str(row.losses),
                        draws=str(row.draws)).render(reader)]
            if row.updated_at is not None and now - row.updated_at >= 30 * uncertainty.DAY:
                lines[0] = _("{record} · last rated game {when}", record=lines[0],
                             when=Moment(row.updated_at, relative=True)).render(reader)
            one = built_on.get(game)
            if one is not None:  # a rating built on one opponent: for the server's admins (and everyone) to see
                lines.append(n_("{against} of {count} rated win ({share}%) against one member: {name}",
                                "{against} of {count} rated wins ({share}%) against one member: {name}", one.wins,
                                against=one.against, share=round(100 * one.against / one.wins),
                                name=escape(one.name)).render(reader))
            embed.add_field(name=GAMES[game].title_text.render(reader), value="\n".join(lines), inline=False)
        if played:
            embed.add_field(name=_("Tournaments").render(reader), value=_(
                "{played} · {won} · {podiums}",
                played=n_("{count} finished tournament", "{count} finished tournaments", played),
                won=n_("{count} won", "{count} won", won),
                podiums=n_("on the podium {count} time", "on the podium {count} times", podiums)).render(reader),
                inline=False)
        embed.set_footer(text=(await self._computer_note(guild_id)).render(reader))
        await respond(interaction, embed=embed, allowed_mentions=discord.AllowedMentions.none())

    async def _computer_note(self, guild_id: int) -> Text:
        """What ``/stats`` and ``/leaderboard`` say of matches against the computer (this server's
        ``rate_computer``): ratings never move against it; its matches count in W/L/D only where the server says so;
        tournament games against it always count in the tournament."""
        if (await self.bot.services.settings.get(guild_id)).rate_computer:
            return _("matches against the computer count in W/L/D, never in ratings (tournament games against it "
                     "count in the tournament)")
        return _("matches against the computer are not counted here (an admin can count them in W/L/D: /settings "
                 "rate_computer); tournament games against it count in the tournament")

    @app_commands.command(name="rules", description="How a game is played, with an example board", extras=PRIVATE)
    @app_commands.describe(game="The game")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction[NapkinBot], game: str) -> None:
        """Post our rules summary and an example board (only you see it); free to read, as often as wanted (the
        example boards are drawn once per process: :func:`example_board`)."""
        reader = language_of(interaction, private=True)
        png, alt = await asyncio.to_thread(example_board, game, reader)
        embed = rules_embed(game, reader)
        embed.set_image(url="attachment://example.png")
        await respond(interaction, embed=embed, file=image_file(png, "example.png", alt), private=True)

    @app_commands.command(name="settings", description="Server settings for Napkin Games (Manage Server)",
                          extras=PRIVATE)
    @app_commands.describe(days="Default days per move for new challenges",
                           threads="Open a thread per match", max_active="Most active matches per member (1–100)",
                           rate_computer="Count matches against the computer in records",
                           allow_channel="Allow starting matches in this channel (adds to the list)",
                           disallow_channel="Remove a channel from the allowed list",
                           all_channels="Clear the list: matches may start in any channel",
                           vacation_days="Vacation days per member per calendar year (0–365; 0: no vacations)",
                           seasons="Separate leaderboards per month or quarter (ratings carry on), or off",
                           puzzle_channel="Post a daily puzzle in this channel",
                           puzzle_hour="The daily puzzle's hour (UTC, 0–23)", puzzle_off="Stop the daily puzzle",
                           language="Language of boards and news posted here (default: the server's, from Discord)")
    @app_commands.choices(days=[app_commands.Choice(name=plural(d, "day"), value=d) for d in (1, 2, 3, 5, 7, 14)] +
                          [app_commands.Choice(name="no limit", value=0)])
    @app_commands.choices(language=[app_commands.Choice(name=name, value=value) for value, name in LANGUAGE_CHOICES])
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.checks.has_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def settings(self, interaction: discord.Interaction[NapkinBot], days: int | None = None,
                       threads: bool | None = None,
                       max_active: app_commands.Range[int, 1, 100] | None = None, rate_computer: bool | None = None,
                       allow_channel: discord.TextChannel | None = None,
                       disallow_channel: discord.TextChannel | None = None, all_channels: bool = False,
                       vacation_days: app_commands.Range[int, 0, 365] | None = None,
                       seasons: Literal["off", "monthly", "quarterly"] | None = None,
                       puzzle_channel: discord.TextChannel | None = None,
                       puzzle_hour: app_commands.Range[int, 0, 23] | None = None, puzzle_off: bool = False,
                       language: str | None = None) -> None:
        """Show the settings, or change the ones given (only members with Manage Server)."""
        guild_id = require_guild(interaction)
        current = await self.bot.services.settings.get(guild_id)
        given = {"days_per_move": days, "use_threads": threads, "max_active": max_active,
                 "rate_computer": rate_computer, "vacation_days": vacation_days, "seasons": seasons,
                 "puzzle_channel_id": puzzle_channel.id if puzzle_channel is not None else None,
                 "puzzle_hour": puzzle_hour, "language": language}
        changes: dict[str, object] = {key: value for key, value in given.items() if value is not None}
        if puzzle_off and current.puzzle_channel_id is not None:
            changes["puzzle_channel_id"] = None
        channels = set(current.allowed_channels)
        if all_channels:
            channels.clear()
        if allow_channel is not None:
            channels.add(allow_channel.id)
        if disallow_channel is not None:
            channels.discard(disallow_channel.id)
        if channels != set(current.allowed_channels):
            changes["allowed_channels"] = sorted(channels)
        if changes:
            current = await self.bot.services.settings.update(guild_id, **changes)
        reader = language_of(interaction, private=True)
        lines = _settings_lines(current, changed=bool(changes))
        await respond(interaction, "\n".join(line.render(reader) for line in lines), private=True)


def _settings_lines(current: SettingsRecord, *, changed: bool) -> list[Text]:
    """``/settings``' answer, a line per setting (``changed``: the command changed some)."""
    language_name: Text | str = dict(LANGUAGE_CHOICES)[current.language or AUTOMATIC]
    if current.language is None:  # "automatic" as the command's choice reads in the member's language
        language_name = p_("command", str(language_name))
    lines = [_("Settings updated.") if changed else _("Current settings."),
             n_("• Days per move: {count} day", "• Days per move: {count} days", current.days_per_move)
             if current.days_per_move else _("• Days per move: no limit"),
             _("• Threads per match: on") if current.use_threads else _("• Threads per match: off"),
             _("• Matches may start in: {channels}",
               channels=Listed(tuple(f"<#{c}>" for c in current.allowed_channels)))
             if current.allowed_channels else _("• Matches may start in: any channel"),
             _("• Active matches per member: at most {count}", count=current.max_active),
             _("• Matches against the computer count in records: yes") if current.rate_computer
             else _("• Matches against the computer count in records: no"),
             n_("• Vacation per member and calendar year: {count} day",
                "• Vacation per member and calendar year: {count} days", current.vacation_days)
             if current.vacation_days else _("• Vacation per member and calendar year: none"),
             _("• Seasons (separate leaderboards; ratings carry on): {seasons}",
               seasons=p_("command", current.seasons)),  # as the choice reads: off, monthly, quarterly
             _("• Daily puzzle: in {channel} at {hour}:00 UTC", channel=f"<#{current.puzzle_channel_id}>",
               hour=f"{current.puzzle_hour:02d}") if current.puzzle_channel_id else _("• Daily puzzle: off"),
             _("• Language of boards and news posted here: {language}", language=language_name)]
    return lines


async def setup(bot: NapkinBot) -> None:
    """Load the extension."""
    await bot.add_cog(Community(bot))
