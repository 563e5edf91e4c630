"""What a member meets first: /help, /rules written for players, a hint for text typed in a match thread, options
that do not apply refused with what was typed, a declined challenge told to the challenger, a bystander's
/match board shown only to them, and cooldowns on the costly commands."""

from __future__ import annotations

import re

import pytest
from discord import app_commands

from bot.exts.community import EMBED_FIELD, EMBED_TOTAL, rules_embed, rules_source
from games import GAMES
from storage import Database, ReadTx
from tests.bot.helpers import World, both_sides_move, only_match_id, snapshot, stored
from tests.reliability._support import GAME_KEYS, start_command

pytestmark = pytest.mark.both_backends

REAL_GAMES = ("chopsticks", "differences", "groebner_nim", "napkin_chess", "polygons")


@pytest.mark.parametrize("game", GAME_KEYS)
def test_rules_are_written_for_players_and_fit_an_embed(game: str) -> None:
    text = rules_source(game)
    assert text, f"{game} has no players' rules text"
    embed = rules_embed(game)
    assert len(embed) <= EMBED_TOTAL and all(len(field.value) <= EMBED_FIELD for field in embed.fields)
    shown = embed.description + "".join(f"{field.name}{field.value}" for field in embed.fields)
    for section in text.split("\n## ")[1:]:  # no section is cut
        assert section.partition("\n")[2].strip() in shown
    assert f"/{GAMES[game].command} " in shown, "names our slash commands"
    assert not re.search(r"seeds/|\.py\b|\.md\b|seat [01]\b|\bply\b", shown), "no file paths, seat numbers or plies"
    names = {field.name for field in embed.fields}
    assert {"How to move", "Notation", "Tournaments and seasons", "Source"} <= names
    assert f"/tournament create game:{GAMES[game].title}" in shown and "/help topic:tournaments" in shown
    assert GAMES[game].source in shown
    if GAMES[game].options:
        assert all(f"`{option.name}`" in shown for option in GAMES[game].options)
        assert "default" in shown
        lines = [line for field in embed.fields if field.name in ("Options of the start command", "More options")
                 for line in field.value.split("\n")]
        assert len(lines) == len(GAMES[game].options)
        assert all(line.count("default") == 1 for line in lines), "values and default given once, in words"
        if all(option.name != "preset" for option in GAMES[game].options):
            assert "preset" not in "".join(lines), "an unset default is explained in the game's own words"


async def test_rules_command_shows_the_players_text_and_an_example_board(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    result = await world["alice"].slash(world.channel, "rules", game="differences")
    assert result.ephemeral
    embed = result.response.embeds[0]
    assert embed.title.startswith("Grid Game of Differences")
    assert any("`/differences mark" in field.value for field in embed.fields)
    assert result.response.attachments[0].filename == "example.png"
    alt = result.response.attachments[0].description
    assert alt.startswith("An example board of Grid Game of Differences. Grid Game of Differences board, move 4 of 8")
    assert "Player 1" in alt and "Marks of Player 2" in alt and len(alt) <= 1024


async def test_help_lists_every_game_and_the_match_commands(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    result = await world["alice"].slash(world.channel, "help")
    assert result.ephemeral
    embed = result.response.embeds[0]
    text = embed.description + "".join(f"{field.name}{field.value}" for field in embed.fields)
    for key in GAME_KEYS:
        assert GAMES[key].title in text and f"/{GAMES[key].command} start" in text
    for command in ("/match list", "/match resign", "/rules", "/leaderboard"):
        assert command in text
    # every command a member can find in the tree outside the games' own groups is named (a new command that /help
    # forgets fails here)
    game_groups = {GAMES[key].command for key in GAMES}
    for command in simcord_env.bot.tree.get_commands():
        if command.name in game_groups or command.name == "help":
            continue
        if isinstance(command, app_commands.Group):
            for leaf in command.walk_commands():
                assert f"/{leaf.qualified_name}" in text or (f"/{command.name}" in text and command.name != "match"), \
                    leaf.qualified_name
        else:
            assert f"/{command.name}" in text, command.name


async def test_a_players_first_message_in_a_match_thread_gets_one_hint(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    start = await world["alice"].slash(world.channel, "differences start", opponent=world["bob"])
    await world["bob"].click(start.response, label="Accept")
    thread = world.thread()
    before = len(thread.history())
    await world["alice"].send(thread, "e5")
    await world["alice"].send(thread, "e5 please")
    await world["carol"].send(thread, "good luck")  # not a player: no hint
    hints = [m for m in thread.history()[before:] if m.author.bot]
    assert len(hints) == 1
    assert "/differences mark square:" in hints[0].content and "cannot read" in hints[0].content


async def test_level_without_the_computer_is_refused(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    before = await snapshot(db)
    result = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"], level="hard")
    assert result.ephemeral and "`level:hard`" in result.response.content
    assert await snapshot(db) == before


async def test_seat_in_a_challenge_is_the_challengers_side(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    result = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"], seat="second")
    assert "they move first" in result.response.content
    await world["bob"].click(result.response, label="Accept")
    match = await stored(db, await only_match_id(db))
    assert [seat.user_id for seat in match.seats] == [world["bob"].id, world["alice"].id]
    assert f"<@{world['bob'].id}>, your move" in world.thread().last_message.content


async def test_seat_is_refused_in_solitaire(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    before = await snapshot(db)
    result = await world["alice"].slash(world.channel, "groebner start", mode="solitaire", seat="second")
    assert result.ephemeral and "`seat:second`" in result.response.content and "solitaire" in result.response.content
    assert await snapshot(db) == before


async def test_seat_and_level_apply_against_the_computer(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="hard",
                               seat="second")
    match = await stored(db, await only_match_id(db))
    assert match.seats[1].user_id == world["alice"].id and match.seats[0].level == "hard"


async def test_perfect_is_offered_where_the_game_is_solved_and_refused_elsewhere(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    before = await snapshot(db)

    def offered(group: str) -> list[str | int | float]:
        start = simcord_env.bot.tree.get_command(group).get_command("start")
        return [choice.value for choice in start.get_parameter("level").choices]

    # a game nobody can play perfectly never offers it (Discord then refuses the value itself)
    assert offered("napkin") == offered("polygons") == offered("groebner") == ["easy", "medium", "hard"]
    assert offered("chopsticks") == offered("differences") == ["easy", "medium", "hard", "perfect"]
    result = await world["alice"].slash(world.channel, "differences start", opponent=world.bot_member(),
                                        level="perfect", n=12)
    assert result.ephemeral and "`level:perfect`" in result.response.content and "these options" in \
        result.response.content
    assert await snapshot(db) == before
    await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="perfect")
    match = await stored(db, await only_match_id(db))
    assert match.seats[1].level == "perfect" and match.status == "active"
    await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")
    match = await stored(db, match.id)
    assert match.ply == 2  # the perfect computer answered


@pytest.mark.parametrize("game", GAME_KEYS)
def test_rules_say_what_each_computer_level_does(game: str) -> None:
    shown = {field.name: field.value for field in rules_embed(game).fields}
    [levels] = [value for name, value in shown.items() if name.startswith("Playing me")]
    for level, what in GAMES[game].level_descriptions.items():
        assert f"**{level}**: {what}." in levels


async def test_a_declined_challenge_tells_the_challenger_once(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    challenge = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    declined = await world["bob"].click(challenge.response, label="Decline")
    told = [m for m in declined.followups if f"<@{world['alice'].id}>" in m.content]
    assert len(told) == 1 and "declined" in told[0].content


async def test_a_bystanders_match_board_is_only_for_them(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    start = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    await world["bob"].click(start.response, label="Accept")
    shown = await world["carol"].slash(world.thread(), "match board")
    assert shown.ephemeral and "<@" not in shown.response.content and shown.response.attachments
    mine = await world["alice"].slash(world.thread(), "match board")
    assert not mine.ephemeral and f"<@{world['alice'].id}>" in mine.response.content


async def test_match_history_has_a_cooldown(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    start = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    await world["bob"].click(start.response, label="Accept")
    for _ in range(2):
        shown = await world["alice"].slash(world.thread(), "match history")
        assert not shown.ephemeral
    rested = await world["alice"].slash(world.thread(), "match history")
    assert rested.ephemeral and "`/match history` takes a rest between uses" in rested.response.content
    assert re.search(r"try it again in \d+ seconds?\.$", rested.response.content)


@pytest.mark.parametrize("game", REAL_GAMES)
async def test_every_start_option_is_stored_as_asked(simcord_env, db: Database, game: str) -> None:
    """Table-driven: each variant option of each game, set to a value other than its default, is what the stored
    match's variant says (presets included: their napkin and supply)."""
    world = World(simcord_env, "alice", "bob")
    declared = GAMES[game]
    for option in declared.options:
        if option.kind == "bool":
            value = not option.default if option.default is not None else True
        elif option.kind == "int":
            value = option.maximum if option.default != option.maximum else option.minimum
        elif option.kind == "choice":
            value = next(c for c in option.choices if c != option.default)
        else:
            continue  # free text (a custom start) has its own tests
        alone = declared.seats_for(declared.variant({option.name: value})) == 1
        opponent = {} if alone else {"opponent": world["bob"]}
        result = await world["alice"].slash(world.channel, start_command(game), **opponent, **{option.name: value})
        if result.ephemeral:  # a combination the rules refuse: it must say which option
            assert option.name in result.response.content, (option.name, result.response.content)
            continue
        if not alone:
            await world["bob"].click(result.response, label="Accept")
        match = await stored(db, max(await db.read(ReadTx.all_match_ids)))
        expected = declared.variant({option.name: value})
        assert match.variant == expected, option.name
        await world["alice"].slash(world.thread(), "match abort")


async def _finished_duel(world: World, db: Database) -> int:
    start = await world["alice"].slash(world.channel, "differences start", opponent=world["bob"], n=5, unique=True)
    await world["bob"].click(start.response, label="Accept")
    match_id = await only_match_id(db)
    await world["alice"].slash(world.thread(), "differences mark", square="a1")
    await both_sides_move(world, db, match_id, plies=1)  # bob's first move: only then is a resignation a result
    await world["bob"].slash(world.thread(), "match resign")
    return match_id


async def test_the_final_board_shows_rating_changes_and_offers_a_rematch(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _finished_duel(world, db)
    final = world.thread().last_message
    assert "bob resigned: **alice** wins." in final.content
    # new members: provisional ratings, marked ? as /stats marks them
    assert re.search(r"Ratings: alice \d+\? → \d+\? \(\+\d+\), bob \d+\? → \d+\? \(−\d+\)", final.content), \
        final.content
    stored_match = await stored(db, match_id)
    assert set(stored_match.rating_changes) == {str(world["alice"].id), str(world["bob"].id)}
    offered = await world["bob"].click(final, label="Rematch")
    assert offered.ephemeral and "Rematch offered to alice" in offered.response.content
    challenge = world.channel.last_message
    assert f"a rematch of match #{match_id}" in challenge.content and "unique" in challenge.content
    await world["alice"].click(challenge, label="Accept")
    rematch = await stored(db, max(await db.read(ReadTx.all_match_ids)))
    old = await stored(db, match_id)
    assert rematch.variant == old.variant and rematch.days_per_move == old.days_per_move
    assert [s.user_id for s in rematch.seats] == [s.user_id for s in reversed(old.seats)]  # seats swapped


async def test_a_rematch_against_the_computer_starts_at_once_with_the_seats_swapped(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="easy")
    match_id = await only_match_id(db)
    await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")  # (the computer answers at once)
    await world["alice"].slash(world.thread(), "match resign")
    final = world.thread().last_message
    await world["alice"].click(final, label="Rematch")
    rematch = await stored(db, max(await db.read(ReadTx.all_match_ids)))
    assert rematch.id != match_id
    assert rematch.seats[1].user_id == world["alice"].id and rematch.seats[0].level == "easy"


async def test_a_bystander_cannot_ask_for_a_rematch(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    await _finished_duel(world, db)
    before = await snapshot(db)
    refused = await world["carol"].click(world.thread().last_message, label="Rematch")
    assert refused.ephemeral and "Only the players" in refused.response.content
    assert await snapshot(db) == before


async def test_the_final_board_image_shows_a_resignation(simcord_env, db: Database) -> None:
    import renderers
    from bot.service import load_state
    from bot.utils.names import names_of
    from games import Outcome

    world = World(simcord_env, "alice", "bob")
    match_id = await _finished_duel(world, db)
    match = await stored(db, match_id)
    posted = await world.thread().last_message.attachments[0].read()
    state, names = load_state(match), names_of(match)
    outcome = Outcome.from_dict(match.outcome)
    assert posted == renderers.render(state, names, outcome=outcome)  # drawn with the resignation
    assert posted != renderers.render(state, names)  # which the position alone would not show
    assert outcome.termination.value == "resigned" and outcome.loser == 1


async def test_rematches_have_a_cooldown(simcord_env, db: Database) -> None:
    from bot.exts.match import REMATCH_RATE

    world = World(simcord_env, "alice")
    await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="easy")
    await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")  # (the computer answers at once)
    await world["alice"].slash(world.thread(), "match resign")
    final = world.thread().last_message
    for _ in range(REMATCH_RATE):
        started = await world["alice"].click(final, label="Rematch")
        assert started.ephemeral and "Rematch: match #" in started.response.content
        await world["alice"].slash(world.channel, "match abort")  # keep within the active-match limit
    rested = await world["alice"].click(final, label="Rematch")
    assert rested.ephemeral and re.search(r"try it again in \d+ seconds?\.$", rested.response.content)


async def test_a_resignation_board_discord_refuses_is_delivered_later(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    start = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    await world["bob"].click(start.response, label="Accept")
    match_id = await only_match_id(db)
    await both_sides_move(world, db, match_id)
    simcord_env.inject_error("POST", "/interactions/*/callback", status=503, times=1)
    resigned = await world["bob"].slash(world.thread(), "match resign")
    assert (await stored(db, match_id)).status == "finished"
    assert any("is over and recorded" in (m.content or "") for m in [resigned.response, *resigned.followups] if m)
    assert (await db.fetchone("SELECT COUNT(*) FROM outbox WHERE kind = 'result'"))[0] == 1
    await simcord_env.advance_time(120)
    assert "bob resigned: **alice** wins." in world.thread().last_message.content
    assert (await db.fetchone("SELECT COUNT(*) FROM outbox"))[0] == 0


async def test_a_typed_start_that_is_a_forced_win_says_so_on_the_first_board(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    start = await world["alice"].slash(world.channel, "groebner start", opponent=world["bob"],
                                       start="x^3+1, x*y^2+y^3")
    await world["bob"].click(start.response, label="Accept")
    first = world.thread().history()[0]
    assert "forced win for the first player" in first.content and "3 points more" in first.content
    match = await stored(db, await only_match_id(db))
    assert match.variant["start"]  # the typed start is kept as typed (in canonical form), not replaced
