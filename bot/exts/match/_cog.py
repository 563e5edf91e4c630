"""``/match``: list, board, resign, draw, abort, extra time and history of matches, for every game; and what a
click on a persistent button does (:class:`bot.utils.buttons.ButtonHandler`)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

import renderers
from bot.answers import PRIVATE, defer, language_of, progress, respond
from bot.exts.match import _moves, _premove, _starts
from bot.exts.match._review import ReviewCommand
from bot.service import EXTRA_TIME_LIMIT, ChallengeClosed, Damaged, replay_states
from bot.utils.boards import Board, board_payload, match_outcome
from bot.utils.buttons import challenge_view
from bot.utils.converters import MatchOption, MatchTransformer, implied_match, require_guild, the_match
from bot.utils.images import image_file
from bot.utils.messages import match_link, notify, queue_result, retire_previous_board, send_to_match
from bot.utils.names import addressed, escape, may_ping, member_name, names_of, server_name
from bot.utils.queues import member_key, queues
from games import GAMES
from i18n import Channel, Moment, Text, _, n_, render
from storage import MatchRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)
T = TypeVar("T")

REMATCH_RATE = 10
"""Rematches a member may ask for in a minute (the Rematch button has no command cooldown of its own)."""
BOARD_REPOSTS = 5
"""Boards a member may post again with ``/match board`` in a minute (a re-post mentions nobody; more is a flood)."""
BOARD_COOLDOWN = app_commands.checks.cooldown(BOARD_REPOSTS, 60.0, key=member_key)
HISTORY_USES = 2
"""``/match history`` uses a minute per member (docs/playing.md, "Rests between uses")."""
HISTORY_COOLDOWN = app_commands.checks.cooldown(HISTORY_USES, 60.0, key=member_key)
"""``/match history`` renders a whole replay: at most twice a minute per member."""


REPLAY_FRAMES = 60
"""Most frames in a GIF replay: a longer match shows its start, its end and evenly spaced positions between (a
replay worth watching, and well within Discord's upload limit; its memory does not grow with the frames, as each
is written before the next is drawn)."""


def replay_frames(states: Sequence[T], cap: int = REPLAY_FRAMES) -> list[T]:
    """At most ``cap`` (≥ 2) of ``states``: all of them if they fit, else the first, the last and evenly spaced
    ones between, in order."""
    if len(states) <= cap:
        return list(states)
    last = len(states) - 1
    return [states[round(i * last / (cap - 1))] for i in range(cap)]


def replay_gif(record: MatchRecord, moves: Sequence[Any]) -> tuple[bytes, str]:
    """The GIF replay of ``record`` with its logged ``moves`` and its alt text (:func:`renderers.replay_alt_text`):
    the positions :func:`replay_frames` keeps, each made, drawn and written before the next
    (:func:`renderers.write_replay`), so that a long match takes no more memory than a short one. Blocking: run it off
    the event loop."""
    shown = set(replay_frames(range(len(moves) + 1)))
    kept: list[Any] = []

    def states() -> Iterator[Any]:
        for ply, state in enumerate(replay_states(record, moves)):
            if ply in shown:
                kept[:] = [state]  # only the newest: the alt text describes the last frame
                yield state

    names, outcome = names_of(record), match_outcome(record)
    gif = renderers.render_replay(states(), names, outcome=outcome)
    return gif, renderers.replay_alt_text(kept[0], names, len(shown), outcome=outcome)


def waiting_note(match_id: int, ahead: int) -> Text:
    """What a member whose replay of ``match_id`` waits reads, with ``ahead`` replays to be made before it."""
    if ahead == 1:
        return _("Your replay of match #{match} is next: one replay is being made first.", match=str(match_id))
    return n_("Your replay of match #{match} is queued: {count} replay ahead of yours.",
              "Your replay of match #{match} is queued: {count} replays ahead of yours.", ahead, match=str(match_id))


LIST_PAGE = 10
"""Matches per page of ``/match list``: ten lines of at most :data:`LIST_LINE` characters stay within a message."""
LIST_LINE = 190
NAME_LIMIT = 32
"""Discord's longest display name; a longer stored name is cut to it in a list line."""


ALL_PAGE = 6
"""Matches per page of ``/match list scope:all``, whose lines also carry a link and the server's name."""
ALL_LINE = 320
SERVER_LIMIT = 40
"""Characters of a server's name shown in ``/match list scope:all``."""


def list_line(match: MatchRecord, user_id: int, locale: str, server: str | None = None) -> str:
    """One line of ``/match list`` in ``locale``: number, game, opponents, whose move, deadline, who is on vacation
    until when, where (at most :data:`LIST_LINE` characters). With ``server`` (its name, for ``scope:all``): the
    number and game link to the match's thread and the server is named (at most :data:`ALL_LINE` characters)."""
    opponents = (", ".join(escape(s.display_name[:NAME_LIMIT]) for s in match.seats if s.user_id != user_id)
                 or _("solo").render(locale))
    seat = match.seats[match.current_seat] if match.current_seat is not None else None
    turn = (_("**your move**") if seat and seat.user_id == user_id else
            _("{name} to move", name=escape(seat.display_name[:NAME_LIMIT])) if seat else _("over"))
    if match.deadline:
        turn = _("{turn}, deadline {when}", turn=turn, when=Moment(match.deadline, relative=True))
    parts = [turn.render(locale)]
    parts.extend(_("{name} on vacation until {when}", name=escape(s.display_name[:NAME_LIMIT]),
                   when=Moment(s.away_until)).render(locale)
                 for s in match.seats if s.user_id != user_id and s.away_until is not None and not s.is_computer)
    title = f"#{match.id} {GAMES[match.game].title_text.render(locale)}"
    if server is None:
        parts.append(f"<#{match.post_channel_id}>")
        limit = LIST_LINE
    else:
        parts.append(_("in **{server}**", server=server[:SERVER_LIMIT]).render(locale))
        title = f"[{title}]({match_link(match)})"
        limit = ALL_LINE
    tail = " · ".join(parts)
    room = limit - len(_("{match} vs {opponents}: {state}", match=title, opponents="", state=tail).render(locale)) - 1
    if len(opponents) > room:
        opponents = opponents[:max(0, room - 1)] + "…"
    return _("{match} vs {opponents}: {state}", match=title, opponents=opponents, state=tail).render(locale)


def _page_line(page: int, pages: int, command: str) -> Text:
    """The last line of a ``/match list`` page: which page it is, and the command for the next one."""
    if page < pages:
        return _("Page {page} of {pages} · `{command} page:{next}` for more.", page=page, pages=pages,
                 command=command, next=str(page + 1))
    return _("Page {page} of {pages}.", page=page, pages=pages)


async def namespace_match(interaction: discord.Interaction[NapkinBot]) -> MatchRecord:
    """The match an autocompleting ``/match`` command is about: its ``match`` option as typed so far, else the one
    its context implies."""
    raw = getattr(interaction.namespace, "match", None)
    return await (MatchTransformer().transform(interaction, raw) if raw else implied_match(interaction))


class Match(ReviewCommand, commands.GroupCog, group_name="match", group_description="Your matches"):
    """Match commands common to every game (``/match review`` is :class:`ReviewCommand`), and the handler of every
    persistent button."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self._rematches: dict[tuple[int, int | None, int], app_commands.Cooldown] = {}

    # ------------------------------------------------------------ buttons

    async def play_button(self, interaction: discord.Interaction[NapkinBot], match_id: int, version: int,
                          move: str) -> None:
        """A move button: play ``move`` for the member who clicked, if the board is still current."""
        await _moves.submit_move(interaction, match_id, move, expected_version=version, via_button=True)

    async def challenge_button(self, interaction: discord.Interaction[NapkinBot], challenge_id: int,
                               action: str) -> None:
        """Accept or Decline on a challenge. A click on a challenge that is no longer open (expired, answered or
        cancelled) is answered with what became of it, and disables the clicked message's buttons, whatever the state
        of that message (its id may never have been learned, or its edit at expiry failed)."""
        try:
            if action == "accept":
                await _starts.accept_challenge(interaction, challenge_id)
            else:
                await _starts.decline_challenge(interaction, challenge_id)
        except ChallengeClosed:
            message = interaction.message
            if message is not None and any(not getattr(item, "disabled", True) for row in message.components
                                           for item in getattr(row, "children", ())):
                try:
                    await message.edit(view=challenge_view(challenge_id, disabled=True,
                                                           language=language_of(interaction, private=False)))
                except discord.HTTPException as error:
                    log.info("could not disable the buttons of challenge %s: %s", challenge_id, error)
            raise

    async def rematch_button(self, interaction: discord.Interaction[NapkinBot], match_id: int) -> None:
        """Rematch on a final board (at most :data:`REMATCH_RATE` a minute per member, like ``start``)."""
        bucket = self._rematches.setdefault(member_key(interaction), app_commands.Cooldown(REMATCH_RATE, 60.0))
        retry = bucket.update_rate_limit()
        if retry is not None:
            raise app_commands.CommandOnCooldown(bucket, retry)
        await _starts.rematch(interaction, match_id)

    async def _final_board(self, interaction: discord.Interaction[NapkinBot], finished: MatchRecord) -> None:
        """Answer a resignation or an agreed draw with the final board; if Discord does not take it, the result is
        stored already, so it goes to the outbox (delivered with back-off) and the member is told."""
        try:
            language = language_of(interaction, private=False)
            await respond(interaction, **await board_payload(finished, language=language))
        except discord.HTTPException as error:
            log.warning("could not post the final board of match %s: %s", finished.id, error)
            await queue_result(self.bot, finished)
            await notify(interaction, _("Match #{match} is over and recorded; Discord did not take its final board, "
                                        "which I will post again shortly (`/match board` shows it now).",
                                        match=str(finished.id)))
        await retire_previous_board(finished.id)

    async def _called_off(self, interaction: discord.Interaction[NapkinBot], aborted: MatchRecord) -> None:
        """Answer a resignation or an agreed draw that came before every side had moved: the match is aborted, and
        the other player (who accepted the challenge) is told, mentioned unless they turned pings off."""
        others = [seat for seat in aborted.seats if seat.user_id != interaction.user.id and not seat.is_computer]
        if others:
            other = others[0]
            text = _("{member}, match #{match} is called off: it ended before both sides had moved, so it counts for "
                     "nobody. A match can only be resigned or drawn once both sides have moved.",
                     member=addressed(other.user_id, other.display_name, other.pings), match=str(aborted.id))
            mentions = may_ping(other.user_id, other.pings)
        else:
            text = _("Match #{match} is called off: it ended before both sides had moved, so it counts for nobody. A "
                     "match can only be resigned or drawn once both sides have moved.", match=str(aborted.id))
            mentions = discord.AllowedMentions.none()
        await respond(interaction, text, allowed_mentions=mentions)
        await retire_previous_board(aborted.id)

    # ------------------------------------------------------------ commands

    @app_commands.command(name="list", description="Your active matches and whose turn it is", extras=PRIVATE)
    @app_commands.describe(page=f"Page of {LIST_PAGE} matches (default 1)",
                           scope="This server (default), or every server we share")
    @app_commands.choices(scope=[app_commands.Choice(name="this server", value="server"),
                                 app_commands.Choice(name="all servers", value="all")])
    async def list_(self, interaction: discord.Interaction[NapkinBot], page: app_commands.Range[int, 1, 10_000] = 1,
                    scope: Literal["server", "all"] = "server") -> None:
        """List the member's active matches, :data:`LIST_PAGE` to a page (a page always fits one message); with
        ``scope:all``, those of every server the bot is in, :data:`ALL_PAGE` to a page, with links."""
        if scope == "all":
            await self._list_everywhere(interaction, page)
            return
        guild_id = require_guild(interaction)
        matches, page, pages = await self.bot.services.reading.active_match_page(guild_id, interaction.user.id, page,
                                                                        LIST_PAGE)
        reader = language_of(interaction, private=True)
        damaged = [str(render(Damaged(match_id, "").args[0], reader)) for match_id in
                   await self.bot.services.reading.damaged_matches(guild_id, interaction.user.id)]
        if damaged and not matches:
            await respond(interaction, "\n".join(damaged), private=True)
            return
        if not matches:
            await respond(interaction, _("You have no active matches here. Start one with `/chopsticks start` or "
                                         "another game's `start`."), private=True)
            return
        lines = [list_line(match, interaction.user.id, reader) for match in matches]
        if pages > 1:
            lines.append(_page_line(page, pages, "/match list").render(reader))
        lines.extend(damaged[:3])  # (a few: the answer must stay within one message)
        await respond(interaction, "\n".join(lines), private=True)

    async def _list_everywhere(self, interaction: discord.Interaction[NapkinBot], page: int) -> None:
        """``/match list scope:all``: the member's active matches in every server the bot is in (where the bot left
        a server, its matches are not listed), only to them."""
        matches = [match for match in await self.bot.services.reading.active_matches_anywhere(interaction.user.id)
                   if self.bot.get_guild(match.guild_id) is not None]
        if not matches:
            await respond(interaction, _("You have no active matches in any server we share. Start one with "
                                         "`/chopsticks start` or another game's `start`."), private=True)
            return
        reader = language_of(interaction, private=True)
        pages = -(-len(matches) // ALL_PAGE)
        page = min(page, pages)
        shown = matches[(page - 1) * ALL_PAGE:page * ALL_PAGE]
        servers = len({match.guild_id for match in matches})
        yours = sum(1 for match in matches if match.current_seat is not None
                    and match.seats[match.current_seat].user_id == interaction.user.id)
        lines = [_("{matches} in {servers}; your move in {yours}.",
                   matches=n_("{count} active match", "{count} active matches", len(matches)),
                   servers=n_("{count} server", "{count} servers", servers), yours=yours).render(reader)]
        lines.extend(list_line(match, interaction.user.id, reader, server_name(self.bot, match.guild_id))
                     for match in shown)
        if pages > 1:
            lines.append(_page_line(page, pages, "/match list scope:all").render(reader))
        await respond(interaction, "\n".join(lines), private=True, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="board", description="Post the current board of a match again")
    @app_commands.describe(match="The match (implied inside its thread)")
    @BOARD_COOLDOWN
    async def board(self, interaction: discord.Interaction[NapkinBot], match: MatchOption | None = None) -> None:
        """Re-post a match's board (also how a board lost to a Discord error is recovered): it mentions nobody (the
        players were told when it was first posted), at most :data:`BOARD_REPOSTS` a minute per member."""
        record = await the_match(interaction, match)
        seated = record.seat_of(interaction.user.id) is not None
        payload = await board_payload(record, board=Board(ping=seated, mentions=False),
                                      language=language_of(interaction, private=not seated))
        if interaction.channel_id != record.post_channel_id or not seated:
            payload.pop("view", None)
        if not seated:  # a bystander's look: only they see it, and it pings nobody
            await respond(interaction, private=True, **payload)
            return
        message = await respond(interaction, **payload)
        if "view" in payload:
            await retire_previous_board(record.id, message)

    @app_commands.command(name="resign", description="Resign a match (your opponent wins)")
    @app_commands.describe(match="The match (implied inside its thread)")
    async def resign(self, interaction: discord.Interaction[NapkinBot], match: MatchOption | None = None) -> None:
        """Resign."""
        record = await the_match(interaction, match)
        finished = await self.bot.services.endings.resign(record.id, record.guild_id, interaction.user.id)
        if finished.status == "aborted":
            await self._called_off(interaction, finished)
            return
        await self._final_board(interaction, finished)

    @app_commands.command(name="draw", description="Offer a draw, accept your opponent's offer, or decline it")
    @app_commands.describe(match="The match (implied inside its thread)", action="offer/accept, or decline")
    @app_commands.choices(action=[app_commands.Choice(name="offer or accept", value="offer"),
                                  app_commands.Choice(name="decline", value="decline")])
    async def draw(self, interaction: discord.Interaction[NapkinBot], action: Literal["offer", "decline"] = "offer",
                   match: MatchOption | None = None) -> None:
        """Offer, accept or decline a draw."""
        record = await the_match(interaction, match)
        endings = self.bot.services.endings
        if action == "decline":
            await endings.decline_draw(record.id, record.guild_id, interaction.user.id)
            await respond(interaction, _("{member} declines the draw offer.",
                                         member=escape(interaction.user.display_name)))
            return
        updated, agreed = await endings.offer_draw(record.id, record.guild_id, interaction.user.id)
        if agreed and updated.status == "aborted":
            await self._called_off(interaction, updated)
            return
        if agreed:
            await self._final_board(interaction, updated)
            return
        opponent = next(s for s in updated.seats if s.user_id != interaction.user.id)
        pinged = [discord.Object(opponent.user_id)] if opponent.pings else []  # /notify pings:off is respected
        await respond(
            interaction,
            _("{member} offers a draw. {opponent}, answer with `/match draw` (offer or accept) or "
              "`/match draw action:decline`.", member=escape(interaction.user.display_name),
              opponent=member_name(opponent)),
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=pinged))

    @app_commands.command(name="abort", description="Call off a match before both sides have moved")
    @app_commands.describe(match="The match (implied inside its thread)")
    async def abort(self, interaction: discord.Interaction[NapkinBot], match: MatchOption | None = None) -> None:
        """Abort (no result)."""
        record = await the_match(interaction, match)
        await self.bot.services.endings.abort(record.id, record.guild_id, interaction.user.id)
        who = escape(interaction.user.display_name)
        await respond(interaction, _("Match #{match} aborted by {member}; it counts for nobody.", match=str(record.id),
                                     member=who),
                      allowed_mentions=discord.AllowedMentions.none())
        await retire_previous_board(record.id)

    @app_commands.command(name="give-time", description="Give your opponent, who is to move, one more day")
    @app_commands.describe(match="The match (implied inside its thread)")
    async def give_time(self, interaction: discord.Interaction[NapkinBot], match: MatchOption | None = None) -> None:
        """Add a day to the deadline of the opponent to move (at most ``EXTRA_TIME_LIMIT`` times per match per
        giver) and post the board with the new deadline, pinging the player to move."""
        record = await the_match(interaction, match)
        updated = await self.bot.services.endings.give_time(record.id, record.guild_id, interaction.user.id)
        seat = updated.seat_of(interaction.user.id)
        given = updated.times_given(seat) if seat is not None else 0
        deadline = Moment(updated.deadline or 0)
        note = _("{member} gives one more day: the deadline is now {deadline} (extra time {given} of {limit} from them "
                 "in this match).", member=escape(interaction.user.display_name), deadline=deadline, given=given,
                 limit=EXTRA_TIME_LIMIT)

        async def payload() -> dict[str, Any]:
            language = language_of(interaction, private=False)
            built = await board_payload(updated, language=language)
            built["content"] = f"{note.render(language)}\n{built['content']}"
            return built

        if interaction.channel_id == updated.post_channel_id:
            await retire_previous_board(updated.id, await respond(interaction, **await payload()))
            return
        try:
            message = await send_to_match(self.bot, updated, payload)
        except (discord.HTTPException, discord.ClientException) as error:
            log.warning("could not post the board of match %s after extra time: %s", updated.id, error)
            await notify(interaction, _("One more day given in match #{match} (the deadline is now {deadline}); the "
                                        "board could not be posted, `/match board` shows it.", match=str(updated.id),
                                        deadline=deadline))
            return
        await retire_previous_board(updated.id, message)
        await respond(interaction, _("One more day given in match #{match}; the board is in {channel}.",
                                     match=str(updated.id), channel=Channel(updated.post_channel_id)), private=True)

    @app_commands.command(name="premove", description="Conditional moves: if your opponent plays X, you answer Y "
                                                      "(only you see them)", extras=PRIVATE)
    @app_commands.describe(**_premove.DESCRIPTIONS)
    @app_commands.choices(action=_premove.ACTIONS)
    async def premove(self, interaction: discord.Interaction[NapkinBot], if_they_play: str | None = None,
                      reply: str | None = None, then_if: str | None = None, then_reply: str | None = None,
                      action: Literal["list", "cancel"] | None = None, match: MatchOption | None = None) -> None:
        """Store, list or cancel the member's conditional moves (:func:`bot.exts.match._premove.premove_command`)."""
        record = await the_match(interaction, match)
        await _premove.premove_command(interaction, record, if_they_play=if_they_play, reply=reply, then_if=then_if,
                                       then_reply=then_reply, action=action)

    for _option in ("if_they_play", "reply", "then_if", "then_reply"):
        premove.autocomplete(_option)(_premove.suggester(_option, namespace_match))
    del _option

    @app_commands.command(name="history", description="Move list, JSON export and animated replay of a match")
    @app_commands.describe(match="Match number (any match of this server, also finished ones)")
    @HISTORY_COOLDOWN
    async def history(self, interaction: discord.Interaction[NapkinBot], match: MatchOption | None = None) -> None:
        """Post the move list, a JSON export and a GIF replay: acknowledged at once, then built in its turn (one
        replay at a time per process, in order of arrival; the member reads how many are ahead meanwhile), off
        the event loop."""
        record = await the_match(interaction, match)
        # Joining refuses a member's second replay at once, or a full line, before anything is sent; it never waits.
        with queues(self.bot)[1].join(interaction.user.id) as place:
            await defer(interaction, private=False)  # a replay always takes a while: defer first, then say where
            async for ahead in place.turns():
                try:
                    await progress(interaction, waiting_note(record.id, ahead))
                except discord.HTTPException as error:  # the note is a courtesy: the replay still comes
                    log.info("no waiting note for the replay of match %s: %s", record.id, error)
            moves = await self.bot.services.reading.moves(record.id)
            gif, alt = await asyncio.to_thread(replay_gif, record, moves)
        export = {
            "match": record.id, "game": record.game, "variant": record.variant, "status": record.status,
            "seats": [{"seat": s.seat, "name": s.display_name, "computer": s.level} for s in record.seats],
            "initial_state": record.initial_state,
            "moves": [{"ply": m.ply, "seat": m.seat, "move": m.notation, "time": m.created_at} for m in moves],
            "final_state": record.state, "outcome": record.outcome,
        }
        listing = " ".join(f"{m.ply}. {m.notation}" for m in moves) or _("(no moves yet)").render(
            language_of(interaction, private=False))
        if len(listing) > 1700:
            listing = listing[:1700] + " …"
        files = [image_file(gif, f"match-{record.id}.gif", alt),
                 discord.File(io.BytesIO(json.dumps(export, indent=1).encode()), filename=f"match-{record.id}.json")]
        await respond(interaction, _("**{game}** · match #{match}\n{moves}", game=GAMES[record.game].title_text,
                                     match=str(record.id), moves=listing), files=files)
