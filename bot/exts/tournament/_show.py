"""How a tournament reads on Discord: its one-line description, the standings as an embed and a Pillow image, its
information, a new round's pairings, the final standings with the podium, and the lines of ``/tournament list``.

Names are escaped (:func:`bot.utils.names.escape`); nothing here pings: who is pinged is decided where a message is
sent, from each member's ``/notify`` preference.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
from typing import Any

import discord

import renderers.standings
from bot.contract import EMBED_FIELD_VALUE
from bot.exts.match import variant_words
from bot.service.standings import SHORT_TIEBREAKS, TIEBREAKS, Line, points_text, tiebreak_text
from bot.service.tournament_reading import RoundNews, TournamentView
from bot.service.tournament_results import LOST_ON_TIME, NO_SHOW
from bot.service.tournaments import COMPUTER_RATING
from bot.utils.images import image_file
from bot.utils.names import escape
from bot.utils.splitting import listed
from games import GAMES
from i18n import Channel, Moment, Text, _, n_, p_, speaking
from storage import MatchRecord, TournamentEntryRecord, TournamentPairingRecord, TournamentRecord

PAGE_ROWS = renderers.standings.PAGE_ROWS
"""Standings per page, in the embed and in the image."""
PODIUM_MARKS = ("🥇", "🥈", "🥉")
LIST_LINES = 10
"""Tournaments per page of ``/tournament list``."""
EMBED_TEXT = 4000
"""What an embed's description may hold (Discord's limit is 4096 characters)."""


def title(tournament: TournamentRecord) -> str:
    """``#3 Spring cup``."""
    return f"#{tournament.id} {tournament.name}"


FORMAT_NAMES: dict[str, Text] = {"swiss": p_("tournament format", "Swiss"),
                                 "round_robin": p_("tournament format", "round robin")}
"""Each format by its name, in any shipped language (:data:`bot.service.tournaments.FORMAT_WORDS` is the English)."""
WITHDRAWN_WHY: dict[str, Text] = {"withdrew": p_("withdrawn", "withdrew"), NO_SHOW: p_("withdrawn", "no-show"),
                                  LOST_ON_TIME: p_("withdrawn", "lost on time")}
"""Why an entrant was withdrawn (the stored reason), in words of any shipped language."""
COLUMN_WORDS: dict[str, Text] = {"Player": p_("standings", "Player"), "Pts": p_("standings", "Pts"),
                                 "Wins": p_("standings", "Wins"), "Games": p_("standings", "Games"),
                                 "Rating": p_("standings", "Rating")}
"""The standings image's column headings that are words (``#``, ``BH-1`` and ``SB`` read the same everywhere)."""


def _why(reason: str | None) -> Text | str:
    return WITHDRAWN_WHY.get(reason or "", reason or "")


def describe(tournament: TournamentRecord, language: str) -> str:
    """One line about a tournament in ``language``: game, format, rounds, time control, players, rated, and where it
    stands."""
    game: Text | str = GAMES[tournament.game].title_text if tournament.game in GAMES else tournament.game
    rounds = (n_("{count} round", "{count} rounds", tournament.rounds)
              if tournament.format == "swiss" or tournament.status != "open" else _("rounds as the players need"))
    state = {"open": _("open for entries"),
             "running": _("round {round} of {rounds}", round=tournament.current_round, rounds=tournament.rounds),
             "finished": p_("tournament", "finished"), "cancelled": p_("tournament", "cancelled")}[tournament.status]
    days = n_("{count} day per move", "{count} days per move", tournament.days_per_move)
    words = {"game": game, "format": FORMAT_NAMES[tournament.format], "rounds": rounds, "days": days,
             "state": state}
    if tournament.rated:
        return _("{game} · {format} · {rounds} · {days} · rated · {state}", **words).render(language)
    return _("{game} · {format} · {rounds} · {days} · unrated · {state}", **words).render(language)


def start_words(tournament: TournamentRecord) -> Text:
    """When an open tournament starts: by itself at a time, or by hand."""
    if tournament.starts_at is not None:
        return _("starts by itself {when}", when=Moment(tournament.starts_at, relative=True))
    return _("starts when its organizer starts it")


def heading(tournament: TournamentRecord, completed: int, *, final: bool = False) -> Text:
    """What the standings are after: ``final standings``, ``after round 2 of 4``, ``before round 1``."""
    if final or tournament.status == "finished":
        return n_("final standings after {count} round", "final standings after {count} rounds", completed)
    if completed == 0:
        return _("standings before the first result")
    return _("standings after round {round} of {rounds}", round=completed, rounds=tournament.rounds)


def _level(level: str) -> Text:
    """A computer level in the reader's words: the name its ``level`` choice shows them (``moyen``)."""
    return p_("command", level)


def _who(line: Line, language: str) -> str:
    """What follows a player's name: ``(computer, easy)``, ``(withdrawn)``, both, or nothing."""
    if line.level and line.withdrawn:
        return " " + _("(computer, {level}; withdrawn)", level=_level(line.level)).render(language)
    if line.level:
        return " " + _("(computer, {level})", level=_level(line.level)).render(language)
    if line.withdrawn:
        return " " + _("(withdrawn)").render(language)
    return ""


def _rating(line: Line) -> str:
    """The rating at the start; the computer's marked ``*``: set by its level, not earned (the footer says so)."""
    return f"{line.rating}*" if line.level else str(line.rating)


def standing_line(line: Line, fmt: str, language: str, *, final: bool = False) -> str:
    """One line of the standings embed: ``1. alice · 3½ · BH-1 8½ · SB 10¼ · 4 games · 1234``."""
    first, second = SHORT_TIEBREAKS[fmt]
    mark = PODIUM_MARKS[line.rank - 1] + " " if final and line.rank <= 3 else ""
    return n_("`{rank}.` {mark}**{name}**{who} · {points} · {first} {first_value} · {second} {second_value} · "
              "{count} game · {rating}",
              "`{rank}.` {mark}**{name}**{who} · {points} · {first} {first_value} · {second} {second_value} · "
              "{count} games · {rating}", line.games, rank=f"{line.rank:>3}", mark=mark, name=escape(line.name),
              who=_who(line, language), points=points_text(line.points), first=first,
              first_value=tiebreak_text(line.tiebreaks[0]), second=second,
              second_value=tiebreak_text(line.tiebreaks[1]), rating=_rating(line)).render(language)


def _cells(line: Line, language: str) -> list[str]:
    return [str(line.rank), line.name + _who(line, language), points_text(line.points),
            tiebreak_text(line.tiebreaks[0]), tiebreak_text(line.tiebreaks[1]), str(line.games), _rating(line)]


async def standings_payload(tournament: TournamentRecord, lines: Sequence[Line], completed: int, page: int = 1, *,
                            language: str, final: bool = False) -> dict[str, Any]:
    """The standings (page ``page`` of :data:`PAGE_ROWS`; past the last shows the last) as an embed and its image
    in ``language``, drawn off the event loop, with the podium marked when ``final``: keyword arguments for
    ``send``."""
    pages = max(1, -(-len(lines) // PAGE_ROWS))
    page = min(max(page, 1), pages)
    shown = list(lines[(page - 1) * PAGE_ROWS:page * PAGE_ROWS])
    columns = tuple(COLUMN_WORDS[column].render(language) if column in COLUMN_WORDS else column for column in (
        renderers.standings.SWISS_COLUMNS if tournament.format == "swiss"
        else renderers.standings.ROUND_ROBIN_COLUMNS))
    after = heading(tournament, completed, final=final)
    caption = _("{tournament} · {heading}", tournament=tournament.name, heading=after).render(language)
    cells = [_cells(line, language) for line in shown]
    png = await asyncio.to_thread(functools.partial(
        renderers.standings.render_standings, caption, columns, cells,
        podium=final, muted=[index for index, line in enumerate(shown) if line.withdrawn]))
    embed = discord.Embed(title=_("{tournament} — {heading}", tournament=title(tournament), heading=after).render(
        language)[:256], colour=discord.Colour.gold() if final else discord.Colour.blurple())
    text = ("\n".join(standing_line(line, tournament.format, language, final=final) for line in shown)
            or _("No players yet.").render(language))
    embed.description = text[:EMBED_TEXT]
    first, second = TIEBREAKS[tournament.format]
    short = SHORT_TIEBREAKS[tournament.format]
    values = {"page": page, "pages": pages, "first": first, "first_short": short[0], "second": second,
              "second_short": short[1]}
    if any(line.level for line in lines):
        levels = ", ".join(f"{_level(level).render(language)} {rating}" for level, rating in COMPUTER_RATING.items())
        footer = _("page {page} of {pages} · ranked by points, then {first} ({first_short}), then {second} "
                   "({second_short}) · rating at the start; * the computer's rating is set by its level ({levels}), "
                   "for pairing only · /help explains the tie-breaks", levels=levels, **values)
    else:
        footer = _("page {page} of {pages} · ranked by points, then {first} ({first_short}), then {second} "
                   "({second_short}) · rating at the start · /help explains the tie-breaks", **values)
    embed.set_footer(text=footer.render(language))
    embed.set_image(url="attachment://standings.png")
    where = _("{caption}, page {page} of {pages}", caption=caption, page=page, pages=pages).render(language)
    with speaking(language):  # (the alt text's own words: "Standings table", "more rows not listed")
        alt = renderers.standings.alt_text(where, columns, cells)
    return {"embed": embed, "file": image_file(png, "standings.png", alt),
            "allowed_mentions": discord.AllowedMentions.none()}


def info_embed(view: TournamentView, language: str) -> discord.Embed:
    """``/tournament info`` in ``language``: the game and its options, the format, rounds, time, players, who
    organizes, where it stands, the entrants and the engine that paired each round."""
    tournament = view.tournament
    embed = discord.Embed(title=title(tournament)[:256], description=describe(tournament, language),
                          colour=discord.Colour.blurple())
    game = (variant_words(tournament.game, tournament.variant, language) if tournament.game in GAMES
            else tournament.game)
    embed.add_field(name=_("Game").render(language), value=game[:1024], inline=False)
    standing = (start_words(tournament).render(language) if tournament.status == "open"
                else describe(tournament, language).rsplit(" · ", 1)[-1])
    embed.add_field(name=_("Format").render(language), inline=False, value=_(
        "{format} · tie-breaks {first}, then {second}", format=FORMAT_NAMES[tournament.format],
        first=TIEBREAKS[tournament.format][0], second=TIEBREAKS[tournament.format][1]).render(language))
    embed.add_field(name=_("Where it stands").render(language), value=standing, inline=True)
    embed.add_field(name=_("Organizer").render(language), value=escape(tournament.organizer_name), inline=True)
    embed.add_field(name=_("Players").render(language), inline=True, value=_(
        "{count} of at most {most}", count=len(view.entries), most=tournament.max_players).render(language))
    listing = listed([_entrant(entry, language) for entry in view.entries], limit=EMBED_FIELD_VALUE,
                     more=" " + _("and {count} more").render(language))
    embed.add_field(name=_("Entrants").render(language), inline=False,
                    value=listing or _("Nobody yet: `/tournament join`.").render(language))
    if view.engines:
        engines = "; ".join(_("round {round}: {engine}", round=number, engine=_engine_words(engine)).render(language)
                            for number, engine in view.engines)
        embed.add_field(name=_("Pairings").render(language), value=engines[:1024], inline=False)
    return embed


def _entrant(entry: TournamentEntryRecord, language: str) -> str:
    who = f"{escape(entry.display_name)} ({entry.level})" if entry.is_computer else escape(entry.display_name)
    if entry.withdrawn_round is None:
        return who
    return _("{name} (withdrawn from round {round}: {why})", name=who, round=entry.withdrawn_round,
             why=_why(entry.withdrawn_reason)).render(language)


def _engine_words(engine: str) -> Text:
    if engine == "dutch":
        return _("FIDE Dutch system")
    if engine == "berger":
        return _("FIDE Berger table")
    if "Dutch" in engine:
        return _("maximum-weight matching (standing in for the Dutch system)")
    return _("maximum-weight matching")


def list_line(tournament: TournamentRecord, language: str) -> str:
    """One line of ``/tournament list`` in ``language``."""
    return f"**{escape(title(tournament))}** · {describe(tournament, language)}"


def board_line(board: TournamentPairingRecord, names: dict[int, str], matches: dict[int, MatchRecord],
               language: str) -> str:
    """One board of a round's pairings in ``language``: ``1. alice – bob · match #12`` (the first named moves
    first); a bye (worth a point in a Swiss, nothing in a round robin, where the odd player out sits the round out) or
    a forfeit said as such."""
    number = f"{board.board:>3}"
    first = f"**{escape(names.get(board.first_id, '?'))}**"
    if board.kind == "bye" and board.first_points:
        return _("`{board}.` {player}: a bye (1 point)", board=number, player=first).render(language)
    if board.kind == "bye":
        return _("`{board}.` {player} sits this round out (a bye)", board=number, player=first).render(language)
    if board.kind == "half_bye":
        return _("`{board}.` {player}: a ½-point bye (entered late)", board=number, player=first).render(language)
    second = f"**{escape(names.get(board.second_id or 0, '?'))}**"
    if board.kind == "forfeit":
        winner = first if (board.first_points or 0) > (board.second_points or 0) else second
        return _("`{board}.` {first} – {second}: forfeited (withdrawn), the point to {winner}", board=number,
                 first=first, second=second, winner=winner).render(language)
    match = matches.get(board.match_id or 0)
    if match is not None and match.thread_id:
        return _("`{board}.` {first} – {second} · match #{match} · {channel}", board=number, first=first,
                 second=second, match=str(board.match_id), channel=Channel(match.post_channel_id)).render(language)
    return _("`{board}.` {first} – {second} · match #{match}", board=number, first=first, second=second,
             match=str(board.match_id)).render(language)


def round_embed(view: RoundNews, language: str) -> discord.Embed:
    """A new round's pairings in ``language``: every board (as many as fit), the entrants withdrawn from this round
    on and why."""
    tournament = view.tournament
    names = {entry.user_id: entry.display_name for entry in view.entries}
    embed = discord.Embed(title=_("{tournament} — round {round} of {rounds}", tournament=title(tournament),
                                  round=view.news.seq, rounds=tournament.rounds).render(language)[:256],
                          colour=discord.Colour.blurple())
    lines = [board_line(board, names, view.matches, language) for board in view.boards]
    text = ""
    for index, line in enumerate(lines):
        if len(text) + len(line) + 80 > EMBED_TEXT:
            text += "\n" + n_("… and {count} more board: each game's board is in its own thread.",
                              "… and {count} more boards: each game's board is in its own thread.",
                              len(lines) - index).render(language)
            break
        text += ("\n" if text else "") + line
    embed.description = text or _("No games this round.").render(language)
    if view.withdrawn:
        gone = listed([_("{name} ({why})", name=escape(entry.display_name), why=_why(entry.withdrawn_reason)).render(
            language) for entry in view.withdrawn], limit=EMBED_FIELD_VALUE,
            more=" " + _("and {count} more").render(language))
        embed.add_field(name=_("Withdrawn from this round on").render(language), value=gone, inline=False)
    if view.late:
        late = listed([escape(entry.display_name) for entry in view.late], limit=EMBED_FIELD_VALUE - 160,
                      more=" " + _("and {count} more").render(language))
        embed.add_field(name=_("Joined while this round was paired").render(language), inline=False,
                        value=_("{players}: a ½-point bye this round, playing from round {round}.", players=late,
                                round=view.news.seq + 1).render(language))
    embed.set_footer(text=n_("The first named moves first · {count} day per move · a game lost on time withdraws its "
                             "loser from later rounds · /tournament standings",
                             "The first named moves first · {count} days per move · a game lost on time withdraws "
                             "its loser from later rounds · /tournament standings",
                             tournament.days_per_move).render(language))
    return embed


def podium_text(lines: Sequence[Line], limit: int, language: str) -> str:
    """``🥇 alice · 🥈 bob · 🥉 carol`` (players sharing a place share its medal), at most ``limit`` characters (the
    players who do not fit are counted: "· and 12 more")."""
    parts = [f"{PODIUM_MARKS[line.rank - 1]} **{escape(line.name)}**" for line in lines if line.rank <= 3]
    return listed(parts, limit=limit, separator=" · ", more=" · " + _("and {count} more").render(language))
