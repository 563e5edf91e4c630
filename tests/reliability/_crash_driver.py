"""The crash test's driver: plays matches through :class:`bot.service.Services` on a database file and writes
one line *after* each action whose transaction committed (the moment the bot would send its reply).

It runs as a small fork server so that each short-lived driver process starts in milliseconds: the server
imports everything once, single-threaded, and on each request forks a driver. Protocol on stdin/stdout:

* ``run SEED DB OUT`` → forks a driver on database ``DB`` writing its lines to file ``OUT``; answers ``pid N``.
* ``wait PID`` → reaps that driver; answers ``status S`` (the raw ``waitpid`` status).

Driver lines: ``ready``; ``start MATCH``; ``move MATCH PLY NOTATION``; ``resign MATCH`` (``abort MATCH``: a
resignation before both sides had moved); ``premove MATCH PLY X Y``
(a conditional move of the seat waiting at PLY: if the opponent plays X, Y answers it; written after the line was
stored, or after the move whose conditional reply stored it as the next turn's line); ``vacation start ID USER``
and ``vacation end ID USER`` (a member's vacation begun or ended, with its deadlines moved in the same transaction);
``error TRACEBACK``.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import traceback

from bot.service import LimitReached, NotAllowed, Player, Services, load_state
from bot.service.vacations import VacationService
from games import GAMES, State, add_game_package
from storage import Database, MatchRecord, ReadTx
from tests.conftest import EXTRA_GAMES
from tests.reliability._support import solitaire_variant

GUILD = 77
COMPUTER_ID = 999
PLAYERS = [Player(500 + i, f"p{i}") for i in range(6)]


def available_games() -> list[str]:
    """Every registered game, the tests' extra games included."""
    add_game_package(EXTRA_GAMES)
    return list(GAMES)


def _say(fd: int, line: str) -> None:
    os.write(fd, (line.replace("\n", " | ") + "\n").encode())


async def _start(services: Services, rng: random.Random, games: list[str], fd: int) -> None:
    game = rng.choice(games)
    kind = rng.random()
    if kind < 0.15:
        match = await services.challenges.start_solo(guild_id=GUILD, channel_id=1, game=game, variant={},
                                                     player=rng.choice(PLAYERS), level="easy",
                                                     player_seat=rng.randrange(2))
    elif kind < 0.25 and solitaire_variant(game) is not None:
        match = await services.challenges.start_solo(guild_id=GUILD, channel_id=1, game=game,
                                                     variant=solitaire_variant(game), player=rng.choice(PLAYERS),
                                                     level=None)
    else:
        first, second = rng.sample(PLAYERS, 2)
        try:
            challenge = await services.challenges.create(guild_id=GUILD, channel_id=1, game=game, variant={},
                                                         challenger=first, opponent=second)
        except LimitReached:  # challenges a kill left unanswered count toward the hourly cap per target
            return
        match = (await services.challenges.accept(challenge.id, GUILD, second)).match
    _say(fd, f"start {match.id}")
    for reply in await services.moves.computer_replies(match.id):
        _say(fd, f"move {match.id} {reply.after.ply} {reply.notation}")


def _first_reply(state: State, text: str, mover: int) -> tuple[str, State] | None:
    """After ``text`` in ``state``: the first legal move of the other seat and the position after it, when the turn
    passes to that seat and the game goes on; else ``None``."""
    after = state.play(text)
    if after.is_over or after.current_seat == mover:
        return None
    reply = after.format_move(after.legal_moves()[0])
    return reply, after.play(reply)


async def _maybe_premove(services: Services, match: MatchRecord, state: State, move: str, rng: random.Random,
                         fd: int) -> None:
    """Now and then, the waiting seat of a members' duel stores a conditional move: mostly one expecting ``move`` (the
    move about to be played, so that its reply is played in the same transaction), sometimes one expecting another
    move (discarded by ``move``), at times with a deeper pair. At most one line per seat and position, and replies
    are the first legal move, so that a line reported once is the one stored."""
    mover = state.current_seat
    if len(match.seats) != 2 or any(s.is_computer for s in match.seats) or rng.random() < 0.6:
        return
    waiting = 1 - mover
    if await services.db.read(ReadTx.premoves_of, match.id, waiting):
        return
    expected = move if rng.random() < 0.75 else state.format_move(rng.choice(list(state.legal_moves())))
    first = _first_reply(state, expected, mover)
    if first is None:
        return
    reply, after_reply = first
    deeper: tuple[str, ...] = ()
    if rng.random() < 0.5 and not after_reply.is_over and after_reply.current_seat == mover:
        then_if = after_reply.format_move(after_reply.legal_moves()[0])
        second = _first_reply(after_reply, then_if, mover)
        if second is not None:
            deeper = (then_if, second[0])
    line, _, _ = await services.premoves.store(match.id, GUILD, match.seats[waiting].user_id, expected, reply,
                                               *deeper)
    _say(fd, f"premove {match.id} {line.ply} {line.if_move} {line.reply}")


async def _vacation(vacations: VacationService, rng: random.Random, fd: int) -> None:
    """A random member starts a vacation, or ends the one they are on (the server's allowance is a whole year, so
    that the drivers never run out of it)."""
    player = rng.choice(PLAYERS)
    try:
        if (await vacations.status(GUILD, player.user_id)).vacation is None:
            started, _ = await vacations.start(GUILD, player.user_id)
            _say(fd, f"vacation start {started.id} {player.user_id}")
        else:
            ended, _, _ = await vacations.end(GUILD, player.user_id)
            _say(fd, f"vacation end {ended.id} {player.user_id}")
    except (NotAllowed, LimitReached):  # another driver's action came between (or the allowance is spent)
        pass


async def drive(db_path: str, seed: int, fd: int) -> None:
    """Apply random legal moves (and now and then a resignation, a new match, or a vacation begun or ended) until
    killed."""
    db = await Database.open(db_path)
    services = Services(db, computer_id=COMPUTER_ID, computer_name="CPU")
    vacations = VacationService(db, clock=services.clock)
    await services.settings.update(GUILD, vacation_days=365)
    games = available_games()
    _say(fd, "ready")
    rng = random.Random(seed)
    while True:
        if rng.random() < 0.03:
            await _vacation(vacations, rng, fd)
            continue
        rows = await db.fetchall("SELECT id FROM matches WHERE guild_id = ? AND status = 'active' ORDER BY id",
                                 (GUILD,))
        if len(rows) < 4 or rng.random() < 0.03:
            await _start(services, rng, games, fd)
            continue
        match = await services.reading.get_match(rng.choice(rows)[0], GUILD)
        state = load_state(match)
        seat = match.seats[state.current_seat]
        if seat.is_computer:  # a driver was killed between a member's move and the computer's reply
            for reply in await services.moves.computer_replies(match.id):
                _say(fd, f"move {match.id} {reply.after.ply} {reply.notation}")
            continue
        if rng.random() < 0.02:  # before both sides have moved, a resignation aborts the match
            ended = await services.endings.resign(match.id, GUILD, seat.user_id)
            _say(fd, f"{'resign' if ended.status == 'finished' else 'abort'} {match.id}")
            continue
        text = state.format_move(GAMES[match.game].computer_move(state, "easy", rng))
        waiting = await db.read(ReadTx.premoves_of, match.id, 1 - state.current_seat)
        if waiting and rng.random() < 0.5:  # the move a stored line expects (a deeper pair's, too)
            text = rng.choice(waiting).if_move
        await _maybe_premove(services, match, state, text, rng, fd)
        result = await services.moves.play(match.id, GUILD, seat.user_id, text, expected_version=match.version)
        _say(fd, f"move {match.id} {result.after.ply} {result.notation}")
        for reply in result.chained:  # a conditional reply, committed with the move
            _say(fd, f"move {match.id} {reply.after.ply} {reply.notation}")
            deeper = await db.read(ReadTx.premoves_of, match.id, reply.seat)
            for line in deeper:
                _say(fd, f"premove {match.id} {line.ply} {line.if_move} {line.reply}")
        for reply in await services.moves.computer_replies(match.id):
            _say(fd, f"move {match.id} {reply.after.ply} {reply.notation}")


def _child(seed: int, db_path: str, out_path: str) -> None:
    fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        asyncio.run(drive(db_path, seed, fd))
    except BaseException:  # noqa: BLE001 - the driver reports whatever ended it, then exits
        _say(fd, "error " + traceback.format_exc())
    finally:
        os._exit(3)


def serve() -> None:
    """The fork server loop (see the module docstring)."""
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "run":
            seed, db_path, out_path = int(words[1]), words[2], words[3]
            pid = os.fork()
            if pid == 0:
                _child(seed, db_path, out_path)
            print(f"pid {pid}", flush=True)
        elif words[0] == "wait":
            _, status = os.waitpid(int(words[1]), 0)
            print(f"status {status}", flush=True)
        else:
            return


if __name__ == "__main__":
    for key in available_games():  # import every game before forking, so that drivers start at once
        GAMES[key].new_state({}, random.Random(0))
    serve()
