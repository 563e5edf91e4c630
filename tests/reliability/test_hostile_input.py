"""Bad input catalogue: every option of every game's commands (and of ``/match``) gets hostile values — empty,
huge, negative, NaN and infinities, look-alike digits, SQL, markdown and mention injection, 10 KB strings, the
ids of matches in another server or already finished. Each attempt must be refused, either by Discord itself
(SimCord validates option types, ranges and choices before the bot sees them) or by the bot with an ephemeral
reply that is not the generic crash message; nothing stored may change (every table is compared), and no
message the bot sends may ping anyone but the players."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import discord
import pytest
from discord import app_commands
from simcord import OptionError, SetupError

from bot.service import load_state
from games import GAMES
from storage import Database
from tests.reliability._support import (
    GAME_KEYS,
    World,
    assert_no_mention_escapes,
    command_for,
    ephemeral_refusal,
    full_snapshot,
    legal_texts,
    match_of,
    quick_settle,
    require_game,
    start_command,
    start_discord_match,
)

pytestmark = pytest.mark.both_backends

TEXT = [
    "", " ", "\u200b", "x" * 10240, "9" * 10240, "-1", "-99999999999999999999", "99999999999999999999",
    "NaN", "nan", "inf", "-inf", "1e309", "0x10", "１", "１２", "٣", "𝟛", "Ⅻ", "e５", "ｅ5", "Ａ",
    "'; DROP TABLE matches; --", "1 OR 1=1", "@everyone", "@here", "<@&123>", "<@!1>", "**bold** `x` ||s||", "[x](https://evil.example)",
    "\x00", "a\nb", "%s%n{0}", "../../etc/passwd", "🙂",
]
"""Hostile values for string options (none of them is a legal move anywhere)."""
INTEGER = [-1, -(2**53), 10**6, 2**64, math.nan, math.inf, -math.inf, "7", 3.5, True]
"""Hostile values for integer options (every integer option of the bot is bounded between 0 and 100)."""
BOOLEAN = ["true", 1, 0.0, "no"]
CHOICE = ["", "nightmare", "'; DROP TABLE challenges; --", "@everyone", "Ｅasy", 0, 15]

BIG_START = ["x^99999999999+1, y+1", "x^3+1, x*y^2+y^3, " * 30]
"""Extra hostile values for text variant options (a huge exponent, too many polynomials)."""
COMMON_START: dict[str, list[Any]] = {"days": [*INTEGER, 4], "level": CHOICE, "seat": CHOICE}


def start_values(game: str) -> dict[str, list[Any]]:
    """Hostile values for every option of ``game``'s start command, from its declaration: wrong kinds, values
    just outside each range, names outside each list of choices."""
    values = dict(COMMON_START)
    for option in GAMES[game].options:
        if option.kind == "bool":
            values[option.name] = BOOLEAN
        elif option.kind == "int":
            values[option.name] = [*INTEGER, (option.minimum or 0) - 1, (option.maximum or 0) + 1]
        elif option.kind == "choice":
            values[option.name] = CHOICE
        else:
            values[option.name] = [t for t in TEXT if t.strip()] + BIG_START
    return values


def other_commands(bot: Any, game: str, legal_name: str, legal_options: dict[str, str]) -> list[tuple[str, dict]]:
    """Every other subcommand of the game's group but ``start`` (move commands and the game's extras), each with
    its required options filled from the legal move where the names agree, else ``"1"``."""
    group = bot.tree.get_command(GAMES[game].command)
    found = []
    for command in group.commands:
        name = f"{group.name} {command.name}"
        if command.name == "start" or name == legal_name:
            continue
        options = {p.display_name: legal_options.get(p.display_name, "1") for p in command.parameters
                   if p.required}
        found.append((name, options))
    return found


MATCH_COMMANDS = [("match board", {}), ("match resign", {}), ("match draw", {}), ("match abort", {}),
                  ("match history", {}), ("match draw", {"action": "decline"}), ("match give-time", {}),
                  ("match premove", {}), ("match premove", {"action": "cancel"}),
                  ("match review", {}), ("match review", {"public": True})]
PREMOVE_OPTIONS = ("if_they_play", "reply", "then_if", "then_reply")


def premove_line(state: Any) -> dict[str, str]:
    """A conditional-move line the rules accept for the seat waiting in ``state``: its opponent's first legal move
    and the first legal answer, and a deeper pair likewise where the game goes on with the turns alternating (where
    it does not, the deeper options still get text, which the bot refuses)."""
    mover = state.current_seat
    texts: list[str] = []
    for _ in PREMOVE_OPTIONS:
        moves = list(state.legal_moves()) if not state.is_over else []
        if not moves:
            break
        texts.append(state.format_move(moves[0]))
        state = state.apply(moves[0])
        if state.current_seat != (mover if len(texts) % 2 == 0 else 1 - mover):
            break
    texts += ["a1"] * (len(PREMOVE_OPTIONS) - len(texts))
    return dict(zip(PREMOVE_OPTIONS, texts, strict=True))


class Attempts:
    """Runs hostile attempts and counts who refused them."""

    def __init__(self, env: Any, db: Database) -> None:
        self.env = env
        self.db = db
        self.refused: Counter[str] = Counter()

    @property
    def total(self) -> int:
        """Attempts run so far."""
        return sum(self.refused.values())

    async def run(self, actor: Any, channel: Any, command: str, options: dict[str, Any]) -> None:
        before = await full_snapshot(self.db)
        try:
            with quick_settle(self.env):
                result = await actor.slash(channel, command, **options)
        except (OptionError, SetupError):
            self.refused["discord"] += 1  # Discord validates types, ranges, lengths and choices itself
        else:
            text = ephemeral_refusal(result)
            assert len(text) < 2000, "the refusal itself must fit in a message"
            self.refused["bot"] += 1
        assert await full_snapshot(self.db) == before, (command, {k: str(v)[:40] for k, v in options.items()})


async def _world_with_matches(env: Any, db: Database, game: str) -> tuple[World, World, dict[str, int]]:
    home = World(env, "alice", "bob", "carol")
    away = World(env, "dave", "erin")
    ids = {"foreign": await start_discord_match(away, db, game, "dave", "erin")}
    ids["finished"] = await start_discord_match(home, db, game)
    await home["bob"].slash(home.thread(), "match resign")
    ids["active"] = await start_discord_match(home, db, game)
    return home, away, ids


async def _premove_attempts(attempts: Attempts, home: World, away: World, line: dict[str, str], active: int) -> int:
    """``/match premove`` by bob, who waits in match ``active``: each option of ``line`` (which the rules accept) in
    turn hostile, the others kept; actions outside the list; cancelling lines never stored; and the line by members
    who may not store it. Returns the number of attempts."""
    thread = home.thread()
    before = attempts.total
    for option in PREMOVE_OPTIONS:
        for value in TEXT:
            await attempts.run(home["bob"], thread, "match premove", {**line, option: value})
    for value in CHOICE:
        await attempts.run(home["bob"], thread, "match premove", {"action": value})
    for value in TEXT:
        await attempts.run(home["bob"], thread, "match premove", {"if_they_play": value, "action": "cancel"})
    for who, where in ((home["alice"], thread), (home["carol"], thread), (away["dave"], away.channel)):
        # the player to move, a member not playing, another server's member: refused whatever the line
        await attempts.run(who, where, "match premove", {**line, "match": str(active)})
    return attempts.total - before


@pytest.mark.slow  # a sweep: hostile values for every option of every game
@pytest.mark.parametrize("game", GAME_KEYS)
async def test_hostile_values_for_every_option_are_refused_and_change_nothing(simcord_env, db: Database,
                                                                              game: str) -> None:
    require_game(game)
    home, away, ids = await _world_with_matches(simcord_env, db, game)
    thread = home.thread()
    attempts = Attempts(simcord_env, db)
    since = len(simcord_env.http_requests)
    state = load_state(await match_of(db, ids["active"]))
    legal_name, legal_options = command_for(game, state, legal_texts(state)[0])
    # (an empty ``match`` is the same as leaving the option out: Discord never sends empty strings)
    match_values = [*TEXT[1:], str(ids["foreign"]), f"#{ids['foreign']}", str(ids["finished"]), "0", "#0", "-5",
                    str(2**63), str(ids["active"] + 1000), "１", f"{ids['active']}.0", f"{ids['active']} OR 1=1"]

    # the move commands: each option in turn, the others valid (the legal move itself would be accepted)
    others = other_commands(simcord_env.bot, game, legal_name, legal_options)
    for name, options in [(legal_name, legal_options), *others]:
        for option in options:
            for value in TEXT:
                await attempts.run(home["alice"], thread, name, {**options, option: value})
        for value in match_values:
            await attempts.run(home["alice"], thread, name, {**options, "match": value})
    # the same legal move, by the right player, aimed at another server's match or a finished one
    for target in ("foreign", "finished"):
        await attempts.run(home["alice"], home.channel, legal_name, {**legal_options, "match": str(ids[target])})
        await attempts.run(away["dave"], away.channel, legal_name, {**legal_options, "match": str(ids["active"])})
    # /match commands with hostile match references (and a choice outside the list)
    for name, options in MATCH_COMMANDS:
        read_only = name in ("match board", "match history", "match review")  # finished ones may be shown
        for value in match_values:
            if not (read_only and value == str(ids["finished"])):
                await attempts.run(home["alice"], home.channel, name, {**options, "match": value})
    for value in CHOICE:
        await attempts.run(home["alice"], thread, "match draw", {"action": value})
    line = premove_line(state)
    premove_tried = await _premove_attempts(attempts, home, away, line, ids["active"])
    # starting: every variant option out of range, of the wrong type or outside its choices; bad opponents
    for option, values in start_values(game).items():
        for value in values:
            await attempts.run(home["carol"], home.channel, start_command(game), {option: value})
    other_bot = home.guild.add_member(simcord_env.create_user(f"otherbot-{game}", bot=True))
    for opponent in (home["carol"], away["dave"].user, other_bot):  # yourself, a stranger, another bot
        await attempts.run(home["carol"], home.channel, start_command(game), {"opponent": opponent})
    for level in CHOICE:  # the computer, at a level that does not exist
        await attempts.run(home["carol"], home.channel, start_command(game),
                           {"opponent": home.bot_member(), "level": level})

    assert attempts.refused["bot"] > 100 and attempts.refused["discord"] > 20
    # the pair the hostile values were mixed into is one the rules accept: only the hostile value was refused
    with quick_settle(simcord_env):
        kept = await home["bob"].slash(thread, "match premove", if_they_play=line["if_they_play"], reply=line["reply"])
    assert kept.ephemeral and kept.response.content.startswith("Stored"), kept.response.content
    players = [m.id for m in (home["alice"], home["bob"], away["dave"], away["erin"])]
    assert_no_mention_escapes(simcord_env, players, since=since)
    print(f"\nhostile inputs {game}: {sum(attempts.refused.values())} tried, refused by the bot "
          f"{attempts.refused['bot']}, by Discord {attempts.refused['discord']}; {premove_tried} of them "
          "/match premove")


async def test_hostile_display_names_never_ping(simcord_env, db: Database) -> None:
    world = World(simcord_env, "@everyone", "<@&123> @here", "**carol**")
    evil, worse, carol = world["@everyone"], world["<@&123> @here"], world["**carol**"]
    since = len(simcord_env.http_requests)
    challenge = await evil.slash(world.channel, "chopsticks start", opponent=worse, days=1)
    await worse.click(challenge.response, label="Accept")
    thread = world.thread()
    await evil.slash(thread, "chopsticks move", notation="LL")
    await worse.slash(thread, "match draw")
    await evil.slash(thread, "match draw", action="decline")
    await carol.slash(thread, "match board")
    await simcord_env.advance_time(86400 * 2 / 3 + 60)  # the reminder
    await evil.slash(thread, "match resign")
    await carol.slash(world.channel, "leaderboard", game="chopsticks")
    audited = assert_no_mention_escapes(simcord_env, [evil.id, worse.id], since=since)
    assert audited >= 8
    texts = [m.content for m in thread.history()]
    assert any("a third of your time" in t for t in texts)  # the reminder was among the audited messages


CORRESPONDENCE_COMMANDS = {"vacation start", "vacation end", "notify", "match list"}
"""The correspondence commands whose options and refusals the test below covers (read from the command tree)."""


def _leaf_commands(tree: Any) -> dict[str, Any]:
    """Every slash command of the tree that runs (not a group), by its full name."""
    found: dict[str, Any] = {}
    for command in tree.get_commands():
        leaves = command.walk_commands() if isinstance(command, app_commands.Group) else [command]
        for leaf in leaves:
            if isinstance(leaf, app_commands.Command):
                found[leaf.qualified_name] = leaf
    return found


async def test_hostile_values_for_the_correspondence_commands_are_refused_and_change_nothing(simcord_env,
                                                                                            db: Database) -> None:
    commands = _leaf_commands(simcord_env.bot.tree)
    assert set(commands) >= CORRESPONDENCE_COMMANDS
    home = World(simcord_env, "alice", "bob")
    admins = home.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    boss = home.guild.add_member(simcord_env.create_user("boss"), roles=[admins])
    await start_discord_match(home, db, "chopsticks")
    attempts = Attempts(simcord_env, db)
    since = len(simcord_env.http_requests)
    # every option of the new commands (as the tree declares them) gets hostile values of its kind
    hostile = {"scope": CHOICE, "page": INTEGER, "dm": [*CHOICE, "yes", "ON"], "pings": [*CHOICE, "no", True],
               "puzzle_names": [*CHOICE, "yes", "ON"]}
    for name in sorted(CORRESPONDENCE_COMMANDS):
        for parameter in commands[name].parameters:
            for value in hostile[parameter.display_name]:
                await attempts.run(home["alice"], home.channel, name, {parameter.display_name: value})
    for value in [*INTEGER, 366, 100_000]:
        await attempts.run(boss, home.channel, "settings", {"vacation_days": value})
    # refusals the bot itself makes: no vacation to end; a second vacation; none given by the server
    await attempts.run(home["alice"], home.channel, "vacation end", {})
    await home["bob"].slash(home.channel, "vacation start")
    await attempts.run(home["bob"], home.channel, "vacation start", {})
    await home["bob"].slash(home.channel, "vacation end")
    await boss.slash(home.channel, "settings", vacation_days=0)
    await attempts.run(home["alice"], home.channel, "vacation start", {})
    assert attempts.refused["bot"] == 3 and attempts.refused["discord"] > 40
    assert_no_mention_escapes(simcord_env, [home["alice"].id, home["bob"].id], since=since)
    print(f"\nhostile inputs correspondence: {sum(attempts.refused.values())} tried, refused by the bot "
          f"{attempts.refused['bot']}, by Discord {attempts.refused['discord']}")
