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
from bot.service.tournaments import COMPUTER_RATING, FORMAT_WORDS
from bot.texts import plural
from bot.utils.images import image_file
from bot.utils.names import escape
from bot.utils.splitting import listed
from games import GAMES
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


def describe(tournament: TournamentRecord) -> str:
    """One line about a tournament: game, format, rounds, time control, players, rated, and where it stands."""
    game = GAMES[tournament.game].title if tournament.game in GAMES else tournament.game
    rounds = (f"{plural(tournament.rounds, 'round')}" if tournament.format == "swiss" or tournament.status != "open"
              else "rounds as the players need")
    rated = "rated" if tournament.rated else "unrated"
    state = {"open": "open for entries", "running": f"round {tournament.current_round} of {tournament.rounds}",
             "finished": "finished", "cancelled": "cancelled"}[tournament.status]
    return (f"{game} · {FORMAT_WORDS[tournament.format]} · {rounds} · {plural(tournament.days_per_move, 'day')} per "
            f"move · {rated} · {state}")


def start_words(tournament: TournamentRecord) -> str:
    """When an open tournament starts: by itself at a time (a Discord timestamp), or by hand."""
    if tournament.starts_at is not None:
        return f"starts by itself <t:{int(tournament.starts_at)}:R>"
    return "starts when its organizer starts it"


def heading(tournament: TournamentRecord, completed: int, *, final: bool = False) -> str:
    """What the standings are after: ``final standings``, ``after round 2 of 4``, ``before round 1``."""
    if final or tournament.status == "finished":
        return f"final standings after {plural(completed, 'round')}"
    if completed == 0:
        return "standings before the first result"
    return f"standings after round {completed} of {tournament.rounds}"


def _who(line: Line) -> str:
    """What follows a player's name: ``(computer, easy)``, ``(withdrawn)``, both, or nothing."""
    notes = [f"computer, {line.level}"] if line.level else []
    notes += ["withdrawn"] if line.withdrawn else []
    return f" ({'; '.join(notes)})" if notes else ""


def _rating(line: Line) -> str:
    """The rating at the start; the computer's marked ``*``: set by its level, not earned (the footer says so)."""
    return f"{line.rating}*" if line.level else str(line.rating)


def standing_line(line: Line, fmt: str, *, final: bool = False) -> str:
    """One line of the standings embed: ``1. alice · 3½ · BH-1 8½ · SB 10¼ · 4 games · 1234``."""
    first, second = SHORT_TIEBREAKS[fmt]
    mark = PODIUM_MARKS[line.rank - 1] + " " if final and line.rank <= 3 else ""
    return (f"`{line.rank:>3}.` {mark}**{escape(line.name)}**{_who(line)} · {points_text(line.points)} · "
            f"{first} {tiebreak_text(line.tiebreaks[0])} · {second} {tiebreak_text(line.tiebreaks[1])} · "
            f"{plural(line.games, 'game')} · {_rating(line)}")


def _cells(line: Line) -> list[str]:
    return [str(line.rank), line.name + _who(line), points_text(line.points), tiebreak_text(line.tiebreaks[0]),
            tiebreak_text(line.tiebreaks[1]), str(line.games), _rating(line)]


async def standings_payload(tournament: TournamentRecord, lines: Sequence[Line], completed: int, page: int = 1, *,
                            final: bool = False) -> dict[str, Any]:
    """The standings (page ``page`` of :data:`PAGE_ROWS`; past the last shows the last) as an embed and its image,
    drawn off the event loop, with the podium marked when ``final``: keyword arguments for ``send``."""
    pages = max(1, -(-len(lines) // PAGE_ROWS))
    page = min(max(page, 1), pages)
    shown = list(lines[(page - 1) * PAGE_ROWS:page * PAGE_ROWS])
    columns = (renderers.standings.SWISS_COLUMNS if tournament.format == "swiss"
               else renderers.standings.ROUND_ROBIN_COLUMNS)
    caption = f"{tournament.name} · {heading(tournament, completed, final=final)}"
    cells = [_cells(line) for line in shown]
    png = await asyncio.to_thread(functools.partial(
        renderers.standings.render_standings, caption, columns, cells,
        podium=final, muted=[index for index, line in enumerate(shown) if line.withdrawn]))
    embed = discord.Embed(title=f"{title(tournament)} — {heading(tournament, completed, final=final)}"[:256],
                          colour=discord.Colour.gold() if final else discord.Colour.blurple())
    text = "\n".join(standing_line(line, tournament.format, final=final) for line in shown) or "No players yet."
    embed.description = text[:EMBED_TEXT]
    first, second = TIEBREAKS[tournament.format]
    short = SHORT_TIEBREAKS[tournament.format]
    computer = ("; * the computer's rating is set by its level (" + ", ".join(
        f"{level} {rating}" for level, rating in COMPUTER_RATING.items()) + "), for pairing only"
        if any(line.level for line in lines) else "")
    embed.set_footer(text=f"page {page} of {pages} · ranked by points, then {first} ({short[0]}), then {second}"
                          f" ({short[1]}) · rating at the start{computer} · /help explains the tie-breaks")
    embed.set_image(url="attachment://standings.png")
    alt = renderers.standings.alt_text(f"{caption}, page {page} of {pages}", columns, cells)
    return {"embed": embed, "file": image_file(png, "standings.png", alt),
            "allowed_mentions": discord.AllowedMentions.none()}


def info_embed(view: TournamentView) -> discord.Embed:
    """``/tournament info``: the game and its options, the format, rounds, time, players, who organizes, where it
    stands, the entrants and the engine that paired each round."""
    tournament = view.tournament
    embed = discord.Embed(title=title(tournament)[:256], description=describe(tournament),
                          colour=discord.Colour.blurple())
    game = variant_words(tournament.game, tournament.variant) if tournament.game in GAMES else tournament.game
    embed.add_field(name="Game", value=game[:1024], inline=False)
    standing = start_words(tournament) if tournament.status == "open" else describe(tournament).rsplit(" · ", 1)[-1]
    embed.add_field(name="Format", value=f"{FORMAT_WORDS[tournament.format]} · tie-breaks "
                                         f"{', then '.join(TIEBREAKS[tournament.format])}", inline=False)
    embed.add_field(name="Where it stands", value=standing, inline=True)
    embed.add_field(name="Organizer", value=escape(tournament.organizer_name), inline=True)
    embed.add_field(name="Players", value=f"{len(view.entries)} of at most {tournament.max_players}", inline=True)
    listing = listed([_entrant(entry) for entry in view.entries], limit=EMBED_FIELD_VALUE)
    embed.add_field(name="Entrants", value=listing or "Nobody yet: `/tournament join`.", inline=False)
    if view.engines:
        engines = "; ".join(f"round {number}: {_engine_words(engine)}" for number, engine in view.engines)
        embed.add_field(name="Pairings", value=engines[:1024], inline=False)
    return embed


def _entrant(entry: TournamentEntryRecord) -> str:
    who = f"{escape(entry.display_name)} ({entry.level})" if entry.is_computer else escape(entry.display_name)
    if entry.withdrawn_round is not None:
        who += f" (withdrawn from round {entry.withdrawn_round}: {entry.withdrawn_reason})"
    return who


def _engine_words(engine: str) -> str:
    if engine == "dutch":
        return "FIDE Dutch system"
    if engine == "berger":
        return "FIDE Berger table"
    return "maximum-weight matching" + (" (standing in for the Dutch system)" if "Dutch" in engine else "")


def list_line(tournament: TournamentRecord) -> str:
    """One line of ``/tournament list``."""
    return f"**{escape(title(tournament))}** · {describe(tournament)}"


def board_line(board: TournamentPairingRecord, names: dict[int, str], matches: dict[int, MatchRecord]) -> str:
    """One board of a round's pairings: ``1. alice – bob · match #12`` (the first named moves first); a bye (worth a
    point in a Swiss, nothing in a round robin, where the odd player out sits the round out) or a forfeit said as
    such."""
    first = f"**{escape(names.get(board.first_id, '?'))}**"
    if board.kind == "bye" and board.first_points:
        return f"`{board.board:>3}.` {first}: a bye (1 point)"
    if board.kind == "bye":
        return f"`{board.board:>3}.` {first} sits this round out (a bye)"
    if board.kind == "half_bye":
        return f"`{board.board:>3}.` {first}: a ½-point bye (entered late)"
    second = f"**{escape(names.get(board.second_id or 0, '?'))}**"
    if board.kind == "forfeit":
        winner = first if (board.first_points or 0) > (board.second_points or 0) else second
        return f"`{board.board:>3}.` {first} – {second}: forfeited (withdrawn), the point to {winner}"
    match = matches.get(board.match_id or 0)
    where = f" · <#{match.post_channel_id}>" if match is not None and match.thread_id else ""
    return f"`{board.board:>3}.` {first} – {second} · match #{board.match_id}{where}"


def round_embed(view: RoundNews) -> discord.Embed:
    """A new round's pairings: every board (as many as fit), the entrants withdrawn from this round on and why."""
    tournament = view.tournament
    names = {entry.user_id: entry.display_name for entry in view.entries}
    embed = discord.Embed(title=f"{title(tournament)} — round {view.news.seq} of {tournament.rounds}"[:256],
                          colour=discord.Colour.blurple())
    lines = [board_line(board, names, view.matches) for board in view.boards]
    text = ""
    for index, line in enumerate(lines):
        if len(text) + len(line) + 60 > EMBED_TEXT:
            text += f"\n… and {plural(len(lines) - index, 'more board')}: each game's board is in its own thread."
            break
        text += ("\n" if text else "") + line
    embed.description = text or "No games this round."
    if view.withdrawn:
        gone = listed([f"{escape(entry.display_name)} ({entry.withdrawn_reason})" for entry in view.withdrawn],
                      limit=EMBED_FIELD_VALUE)
        embed.add_field(name="Withdrawn from this round on", value=gone, inline=False)
    if view.late:
        late = listed([escape(entry.display_name) for entry in view.late], limit=EMBED_FIELD_VALUE - 120)
        embed.add_field(name="Joined while this round was paired", inline=False,
                        value=f"{late}: a ½-point bye this round, playing from round {view.news.seq + 1}.")
    days = plural(tournament.days_per_move, "day")
    embed.set_footer(text=f"The first named moves first · {days} per move · a game lost on time withdraws its "
                          "loser from later rounds · /tournament standings")
    return embed


def podium_text(lines: Sequence[Line], limit: int) -> str:
    """``🥇 alice · 🥈 bob · 🥉 carol`` (players sharing a place share its medal), at most ``limit`` characters (the
    players who do not fit are counted: "· and 12 more")."""
    parts = [f"{PODIUM_MARKS[line.rank - 1]} **{escape(line.name)}**" for line in lines if line.rank <= 3]
    return listed(parts, limit=limit, separator=" · ", more=" · and {count} more")
