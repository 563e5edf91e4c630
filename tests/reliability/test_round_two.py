"""Reliability, round two: deadlines that hold, damaged rows isolated, names as data, matches in their own
channel, limits that hold, news that arrives, bounded heavy work and storage at the edges. Each test names the
failure it guards against (every one of them happened on the code before this round)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest

import renderers
from bot.client import NapkinBot
from bot.errors import GENERIC as GENERIC_TEXT
from bot.exts.match import REPLAY_FRAMES, replay_frames
from bot.service import LimitReached, NotAllowed, Player, Services, TimeRanOut, load_state
from bot.utils import queues as _load
from storage import Database, ReadTx, StorageError
from tests.bot.helpers import move_button
from tests.reliability._support import (
    Clock,
    World,
    edit_rows,
    ephemeral_refusal,
    full_snapshot,
    match_of,
    service_match,
    start_discord_match,
)

GENERIC = str(GENERIC_TEXT)  # the English reply (the tests' members read English)

pytestmark = pytest.mark.both_backends

DAY = 86400.0
ALICE, BOB = Player(1, "alice"), Player(2, "bob")
GUILD = 10


async def _duel(services: Services, days: int = 3) -> int:
    return (await service_match(services, "chopsticks", GUILD, (ALICE, BOB), channel_id=5, days=days)).id


def _texts(channel: Any) -> list[str]:
    return [m.content for m in channel.history()]


def _reminders(channel: Any) -> list[str]:
    return [t for t in _texts(channel) if "a third of your time" in t]


async def _damage(db: Database, match_id: int, kind: str) -> None:
    """Damage a stored match row the way a bad restore, a hand edit or an old bug would."""
    change = {
        "state_not_json": "UPDATE matches SET state = '{not json' WHERE id = ?",
        "unknown_game": "UPDATE matches SET game = 'backgammon' WHERE id = ?",
        "seat_out_of_range": "UPDATE matches SET current_seat = 7 WHERE id = ?",
        "state_not_a_position": "UPDATE matches SET state = '{\"hands\": \"x\"}' WHERE id = ?",
    }[kind]
    await edit_rows(db, change, (match_id,))


DAMAGE_KINDS = ["state_not_json", "unknown_game", "seat_out_of_range", "state_not_a_position"]


# ---------------------------------------------------------------- deadlines that hold


async def test_a_move_after_the_deadline_forfeits_instead_of_resetting_the_clock(db: Database) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    match_id = await _duel(services, days=1)
    for player, move in ((ALICE, "LL"), (BOB, "LL"), (ALICE, "RR")):  # each side has moved: a forfeit is due
        await services.moves.play(match_id, GUILD, player.user_id, move)
    deadline = (await match_of(db, match_id)).deadline
    assert deadline is not None
    clock.now = deadline + 3600  # the bot was down: no pass ran at the deadline
    with pytest.raises(TimeRanOut, match="ran out"):
        await services.moves.play(match_id, GUILD, BOB.user_id, "LL")
    match = await match_of(db, match_id)
    assert match.status == "finished" and match.deadline is None and match.ply == 3  # the late move is not stored
    assert match.outcome is not None and match.outcome["termination"] == "out_of_time"
    assert match.outcome["winner"] == 0 and match.outcome["loser"] == 1


async def test_a_move_committed_while_the_pass_runs_gets_no_early_reminder(
        db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    match_id = await _duel(services, days=3)
    await services.moves.play(match_id, GUILD, ALICE.user_id, "LL")
    clock.now += 2 * DAY + 60  # bob's reminder is due
    read_list, go_on = threading.Event(), threading.Event()
    original = ReadTx.due_match_ids

    def paused(tx: ReadTx, now: float, shards: Any = None) -> list[Any]:
        found = original(tx, now, shards)
        read_list.set()
        go_on.wait(10)  # the pass holds its list while bob moves
        return found

    monkeypatch.setattr(ReadTx, "due_match_ids", paused)
    running = asyncio.create_task(services.deadlines.process_due())
    await asyncio.to_thread(read_list.wait, 10)
    await services.moves.play(match_id, GUILD, BOB.user_id, "LL")  # a fresh 3 days for alice
    go_on.set()
    work = await running
    assert work.reminded == [] and work.forfeited == []
    match = await match_of(db, match_id)
    assert match.status == "active" and not match.reminded
    assert await db.fetchall("SELECT * FROM outbox") == []


@pytest.mark.parametrize("status", [503])  # discord.py never retries a 503
async def test_a_reminder_whose_post_fails_is_retried_until_delivered(simcord_env, db: Database, status: int) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks", days=1)
    await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")
    deadline = (await match_of(db, match_id)).deadline
    await simcord_env.advance_time(deadline - DAY / 3 - 10 - simcord_env.bot.now())
    simcord_env.inject_error("POST", "/channels/*/messages", status=status, times=1)
    await simcord_env.advance_time(20)
    assert _reminders(world.thread()) == []
    assert (await db.fetchone("SELECT attempts FROM outbox WHERE kind = 'reminder'"))[0] == 1
    await simcord_env.advance_time(600)
    assert len(_reminders(world.thread())) == 1
    assert await db.fetchall("SELECT * FROM outbox") == []
    await simcord_env.advance_time(DAY)  # (bob never made a first move: the match is aborted at the deadline)
    assert len(_reminders(world.thread())) == 1 and (await match_of(db, match_id)).status == "aborted"


# ---------------------------------------------------------------- damaged rows


async def _two_matches(world: World, db: Database, **options: Any) -> tuple[int, int]:
    first = await start_discord_match(world, db, "chopsticks", **options)
    second = await start_discord_match(world, db, "chopsticks", **options)
    return first, second


@pytest.mark.parametrize("kind", DAMAGE_KINDS[:3])  # (a list reads no position; the other kind shows when used)
async def test_a_damaged_row_is_quarantined_and_lists_go_on(simcord_env, db: Database,
                                                            kind: str) -> None:
    world = World(simcord_env, "alice", "bob")
    healthy, damaged = await _two_matches(world, db)
    await _damage(db, damaged, kind)
    listed = await world["alice"].slash(world.channel, "match list")
    text = ephemeral_refusal(listed)
    assert f"#{healthy} Chopsticks vs bob" in text
    assert f"Match #{damaged} is damaged" in text and f"napkin inspect {damaged}" in text
    assert (await db.fetchone("SELECT damage FROM matches WHERE id = ?", (damaged,)))[0]
    board = await world["bob"].slash(world.channel, "match board", match=str(damaged))
    assert "is damaged" in ephemeral_refusal(board)
    moved = await world["alice"].slash(world.channel, "chopsticks move", notation="LL", match=str(healthy))
    assert (await match_of(db, healthy)).ply == 1, moved


@pytest.mark.parametrize("kind", DAMAGE_KINDS)
async def test_a_damaged_row_due_in_the_pass_does_not_stop_the_others(simcord_env, db: Database,
                                                                      kind: str) -> None:
    world = World(simcord_env, "alice", "bob")
    healthy, damaged = await _two_matches(world, db, days=1)
    await _damage(db, damaged, kind)
    cog = simcord_env.bot.get_cog("Deadlines")
    passes = 0
    real = cog.run_pass

    async def counted() -> float:
        nonlocal passes
        passes += 1
        return await real()

    cog.run_pass = counted
    await simcord_env.advance_time(DAY + 60)
    assert (await match_of(db, healthy)).status == "aborted"  # ended at its deadline (no first move: aborted)
    assert (await db.fetchone("SELECT damage, deadline FROM matches WHERE id = ?", (damaged,)))[1] is None
    assert cog.failures == 0 and passes <= 30  # no busy loop: about one pass an hour, and the due ones
    assert cog.job.loop.is_running()


@pytest.mark.parametrize("kind", DAMAGE_KINDS)
async def test_a_damaged_row_among_computer_turns_does_not_stop_resumption(simcord_env, db: Database,
                                                                           kind: str) -> None:
    world = World(simcord_env, "alice")
    for _ in range(2):
        await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="easy")
    first, second = await db.read(ReadTx.all_match_ids)
    crashed = Services(db, computer_id=simcord_env.bot.user.id, clock=simcord_env.bot.now)
    for match_id in (first, second):  # committed; the process died before the computer answered
        await crashed.moves.play(match_id, world.guild.id, world["alice"].id, "LL")
    await _damage(db, first, kind)
    reopened = await Database.open(db.path)
    try:
        await simcord_env.restart_bot(NapkinBot(reopened))
        await simcord_env.advance_time(1)
        assert (await match_of(reopened, second)).ply == 2  # the healthy match got its computer move
        if kind != "seat_out_of_range":  # (that row names no computer seat to move: it is not picked at all)
            assert (await reopened.fetchone("SELECT damage FROM matches WHERE id = ?", (first,)))[0]
    finally:
        await reopened.close()


# ---------------------------------------------------------------- names are data


ODD_NAMES = ["two\nlines", "car\rreturn", "file\x1csep", "next\x85line", "para\u2029graph"]


@pytest.mark.parametrize("name", ODD_NAMES)
async def test_odd_display_names_never_turn_a_stored_move_into_nothing_changed(simcord_env, db: Database,
                                                                                name: str) -> None:
    world = World(simcord_env, "bob")
    odd = world.guild.add_member(simcord_env.create_user("odd"), nick=name)
    challenge = await odd.slash(world.channel, "chopsticks start", opponent=world["bob"])
    assert not challenge.ephemeral, challenge.response.content
    await world["bob"].click(challenge.response, label="Accept")
    (match_id,) = await db.read(ReadTx.all_match_ids)
    board = world.channel.threads[-1].last_message
    moved = await odd.click(board, custom_id=move_button(board, "LL").custom_id)
    assert (await match_of(db, match_id)).ply == 1
    notices = [m.content for m in ([moved.response] if moved.response else []) + list(moved.followups)]
    assert not any(GENERIC in n or "nothing was changed" in n for n in notices), notices
    latest = world.channel.threads[-1].last_message
    assert "move 1" in latest.content and "\u2029" not in latest.content and "\x1c" not in latest.content


async def test_a_render_failure_after_a_stored_move_tells_the_truth(simcord_env, db: Database,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks")

    def broken(*args: Any, **kwargs: Any) -> bytes:
        raise ValueError("the font cannot draw this")

    monkeypatch.setattr(renderers, "render", broken)
    moved = await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")
    assert (await match_of(db, match_id)).ply == 1
    assert not moved.ephemeral and "move 1" in moved.response.content
    assert "could not be drawn" in moved.response.content and GENERIC not in moved.response.content


async def test_masked_link_names_are_shown_as_typed_in_every_message(simcord_env, db: Database) -> None:
    world = World(simcord_env, "bob")
    name = "[free nitro](https://evil.example/x)"
    mal = world.guild.add_member(simcord_env.create_user("mal"), nick=name)
    world.members["mal"] = mal
    since = len(simcord_env.http_requests)
    challenge = await mal.slash(world.channel, "chopsticks start", opponent=world["bob"])
    await world["bob"].click(challenge.response, label="Accept")
    thread = world.thread()
    await mal.slash(thread, "chopsticks move", notation="LL")
    await world["bob"].slash(thread, "chopsticks move", notation="LL")  # (so that the resignation below is a result)
    await mal.slash(thread, "match list")
    await mal.slash(thread, "match draw")
    await world["bob"].slash(thread, "match draw", action="decline")
    await mal.slash(thread, "match resign")
    sent = 0
    for entry in simcord_env.http_requests[since:]:
        body = entry.json if isinstance(entry.json, dict) else {}
        content = (body.get("data") or {}).get("content") if "data" in body else body.get("content")
        if isinstance(content, str) and "free nitro" in content:
            sent += 1
            assert "[free nitro](" not in content.replace("\\[free nitro](", ""), content
    assert sent >= 5


# ---------------------------------------------------------------- a match belongs to its channel


async def test_a_match_started_in_another_matchs_thread_belongs_to_the_parent_channel(simcord_env,
                                                                                      db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carl")
    first = await start_discord_match(world, db, "chopsticks")
    first_thread = world.thread()
    started = await world["alice"].slash(first_thread, "chopsticks start", opponent=world["carl"])
    challenge = world.channel.last_message  # posted in the channel, not in match #1's thread
    assert "challenges" in challenge.content, started
    await world["carl"].click(challenge, label="Accept")
    second = max(await db.read(ReadTx.all_match_ids))
    match = await match_of(db, second)
    assert match.channel_id == world.channel.id and match.thread_id not in (None, first_thread.id)
    await world["alice"].slash(first_thread, "chopsticks move", notation="LL")  # no match option: match #1's
    assert (await match_of(db, first)).ply == 1 and (await match_of(db, second)).ply == 0


async def test_the_thread_lookup_never_picks_one_of_two_matches(db: Database) -> None:
    services = Services(db)
    first, second = await _duel(services), await _duel(services)
    # e.g. rows written by the old code
    await edit_rows(db, "UPDATE matches SET thread_id = 77 WHERE id IN (?, ?)", (first, second))
    assert await services.reading.match_in_thread(77) is None
    await services.challenges.set_thread(first, None)
    found = await services.reading.match_in_thread(77)
    assert found is not None and found.id == second


# ---------------------------------------------------------------- limits


async def test_open_challenges_count_toward_the_active_match_limit(db: Database) -> None:
    services = Services(db)
    await services.settings.update(GUILD, max_active=2)
    for _ in range(2):
        await services.challenges.create(guild_id=GUILD, channel_id=5, game="chopsticks", variant={},
                                         challenger=ALICE, opponent=None)
    with pytest.raises(LimitReached, match="2 open challenges"):
        await services.challenges.create(guild_id=GUILD, channel_id=5, game="chopsticks", variant={},
                                         challenger=ALICE, opponent=None)
    open_ids = [r[0] for r in await db.fetchall("SELECT id FROM challenges WHERE status = 'open'")]
    for number, challenge_id in enumerate(open_ids):
        await services.challenges.accept(challenge_id, GUILD, Player(100 + number, f"m{number}"))
    assert await db.read(ReadTx.count_active, GUILD, ALICE.user_id) == 2


async def test_a_flood_of_challenges_is_cooled_down(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    answers = [await world["alice"].slash(world.channel, "chopsticks start") for _ in range(15)]
    resting = [a for a in answers if a.ephemeral and "takes a rest" in a.response.content]
    assert len(resting) == 5
    assert len(await db.fetchall("SELECT id FROM challenges")) == 10


async def test_solitaire_abort_only_before_the_first_move(db: Database) -> None:
    services = Services(db, clock=Clock())  # a fixed clock: the same start position every run
    match = await services.challenges.start_solo(guild_id=GUILD, channel_id=5, game="groebner_nim",
                                                 variant={"mode": "solitaire", "sticks": 6}, player=ALICE, level=None)
    assert len(match.seats) == 1
    first = load_state(await services.reading.get_match(match.id))
    move = next(m for m in first.legal_moves() if first.apply(m).outcome is None)  # the game goes on after it
    await services.moves.play(match.id, GUILD, ALICE.user_id, first.format_move(move))
    before = await full_snapshot(db)
    with pytest.raises(NotAllowed, match="before its first move"):
        await services.endings.abort(match.id, GUILD, ALICE.user_id)
    assert await full_snapshot(db) == before


# ---------------------------------------------------------------- news that arrives


async def _both_sides_moved(world: World) -> None:
    """alice, bob, alice in the match's thread: each side made its first move, so the deadline forfeits (a match
    without them is aborted), and bob is to move."""
    for player, move in (("alice", "LL"), ("bob", "LL"), ("alice", "RR")):
        await world[player].slash(world.thread(), "chopsticks move", notation=move)


async def test_a_deleted_thread_falls_back_to_the_channel(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks", days=1)
    thread = world.thread()
    await _both_sides_moved(world)
    simcord_env.backend.delete_channel(thread.id)
    await simcord_env.settle()
    await simcord_env.advance_time(2 * DAY / 3 + 60)
    assert len(_reminders(world.channel)) == 1
    assert (await match_of(db, match_id)).thread_id is None
    await simcord_env.advance_time(DAY / 3)
    assert (await match_of(db, match_id)).status == "finished"
    assert "ran out of time" in world.channel.last_message.content


@pytest.mark.parametrize("status", [503])
async def test_a_forfeit_notice_meeting_a_server_error_is_retried(simcord_env, db: Database, status: int) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks", days=1)
    await _both_sides_moved(world)
    await simcord_env.advance_time(DAY - 10)  # the reminder is out; the forfeit is next
    simcord_env.inject_error("POST", "/channels/*/messages", status=status, times=1)
    await simcord_env.advance_time(20)
    assert (await match_of(db, match_id)).status == "finished"
    assert "ran out of time" not in world.thread().last_message.content
    await simcord_env.advance_time(600)
    assert "ran out of time" in world.thread().last_message.content
    assert await db.fetchall("SELECT * FROM outbox") == []


async def test_a_challenge_whose_message_failed_is_cancelled_and_the_challenger_told(simcord_env,
                                                                                     db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    simcord_env.inject_error("POST", "/interactions/*/*/callback", status=400, message="injected")
    result = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    assert "cancelled the challenge" in ephemeral_refusal(result)
    assert [r[0] for r in await db.fetchall("SELECT status FROM challenges")] == ["cancelled"]


async def test_an_expired_challenge_with_an_unknown_message_answers_expired_and_disables_its_buttons(
        simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    simcord_env.inject_error("GET", "/webhooks/*/*/messages/@original", status=400, message="injected")
    result = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    message = result.response
    # (the id is now learnt from Discord's answer to the post itself; a message whose id was never learnt is made
    # here as it would be when that answer does not name it)
    await edit_rows(db, "UPDATE challenges SET message_id = NULL")
    assert (await db.fetchone("SELECT message_id FROM challenges"))[0] is None
    await simcord_env.advance_time(DAY + 60)
    assert [r[0] for r in await db.fetchall("SELECT status FROM challenges")] == ["expired"]
    click = await world["bob"].click(message, label="Accept")
    assert "expired" in ephemeral_refusal(click)
    refreshed = next(m for m in world.channel.history() if m.id == message.id)
    assert all(button.disabled for row in refreshed.components for button in row.children)


# ---------------------------------------------------------------- bounded load


async def test_computer_searches_wait_for_their_members_turn_and_the_scheduler_bounds_them_all() -> None:
    # the per-member share only: the computer pool's scheduler bounds the searches running to its workers and
    # orders them (tests/bot/test_scheduler.py); a global gate in front of it would keep a quick move behind slow ones
    queue = _load.computer_queue()
    running = peak = 0
    members: dict[int, int] = {}
    member_peak = 0

    async def search(member: int) -> None:
        nonlocal running, peak, member_peak
        async with queue.slot(member):
            running += 1
            members[member] = members.get(member, 0) + 1
            peak, member_peak = max(peak, running), max(member_peak, members[member])
            await asyncio.sleep(0.01)
            running -= 1
            members[member] -= 1

    await asyncio.gather(*(search(member) for member in range(24)), *(search(7) for _ in range(3)))
    assert member_peak == _load.COMPUTER_PER_MEMBER == 1 and peak == 24 and queue.running == 0


def test_a_long_replay_is_capped() -> None:
    states = list(range(300))
    frames = replay_frames(states)
    assert len(frames) == REPLAY_FRAMES and frames[0] == 0 and frames[-1] == 299 and frames == sorted(frames)
    assert replay_frames(states[:10]) == states[:10]


async def test_a_members_second_replay_at_once_is_refused() -> None:
    line = _load.replay_queue()
    with line.join(1):
        with pytest.raises(LimitReached, match="still being made"):
            line.join(1)
        with line.join(2) as second:  # another member is not refused: theirs is built next
            assert second.ahead == 1 and line.running == 1 and line.waiting == 1


# ---------------------------------------------------------------- storage at the edges


ACCEPTED_LOGIN = """
import sys
import discord
from bot.cli import main


async def static_login(self, token):  # Discord takes the token: the start goes on to open the database
    return {"id": "1", "username": "napkin"}

discord.http.HTTPClient.static_login = static_login
raise SystemExit(main(sys.argv[1:]))
"""


def test_a_file_that_is_not_a_database_is_refused_at_start(tmp_path: Path) -> None:
    path = tmp_path / "napkin.db"
    path.write_bytes(b"this is a spreadsheet, not a database\n" * 200)
    script = tmp_path / "run.py"
    script.write_text(ACCEPTED_LOGIN)
    done = subprocess.run([sys.executable, str(script), "run"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "DISCORD_TOKEN": "not-a-real-token", "NAPKIN_DATABASE": str(path),
                               "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
                          cwd=Path(__file__).resolve().parents[2], check=False)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "not a SQLite database" in lines[0], done.stderr


def _open_as_nobody(path: Path) -> str:
    """Open the database at ``path`` in a forked child running as the unprivileged user 65534 (everything it needs
    is already imported, so the checkout itself need not be readable by that user); return what it reported."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges, open, report, exit
        report = "opened"
        try:
            os.setgid(65534)
            os.setuid(65534)
            outcome: list[str] = []

            def attempt() -> None:  # a thread of its own: no event loop is running there
                try:
                    asyncio.run(Database.open(path))
                except StorageError as error:
                    outcome.append(str(error))

            worker = threading.Thread(target=attempt)
            worker.start()
            worker.join(30)
            report = outcome[0] if outcome else "opened"
        finally:
            os.write(write, report.encode()[:1000])
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read) as answer:
        return answer.read()


async def test_a_read_only_database_is_refused_at_open() -> None:
    folder = Path(tempfile.mkdtemp(prefix="napkin-ro-"))
    os.chmod(folder, 0o755)
    path = folder / "napkin.db"
    db = await Database.open(path)  # a sound, migrated database
    await db.close()
    if os.geteuid() == 0:  # root writes any file: open it as an unprivileged user instead
        assert "cannot be written" in _open_as_nobody(path)
    else:
        os.chmod(path, 0o444)
        os.chmod(folder, 0o555)
        with pytest.raises(StorageError, match="cannot be written"):
            await Database.open(path)
