"""A whole match of each of the five games, by commands between two members, on a server in each shipped language
other than English (SimCord reports the server's ``guild_locale`` and each member's ``locale``): every board, its
headline, its alt text and the final result read in the server's language, with no English sentence left in
them."""

from __future__ import annotations

import random

import pytest

from bot.local_play import Languages
from bot.service import load_state
from games import GAMES
from i18n import Text
from storage import Database
from tests.bot.helpers import World, command_for, only_match_id, press, stored
from tests.reliability._support import start_command

LOCALES = ("fr", "de", "es-ES", "pt-BR")
FIVE = ("chopsticks", "differences", "napkin_chess", "polygons", "groebner_nim")
QUICK = {("chopsticks", "fr"), ("differences", "de")}
"""The cases ``make test-fast`` keeps; the others are long scenarios (``slow``)."""
CASES = [pytest.param(game, locale, marks=() if (game, locale) in QUICK else pytest.mark.slow)  # a long scenario
         for game in FIVE for locale in LOCALES]
ENGLISH = ("How to move", " to move", "deadline", " played ", "Score:", " wins", "your move", "new match",
           "board, move", "conditional", "Draw")
"""English words of the boards' headlines, alt texts and results: none is left on a board in another language."""
MAX_PLIES = 400


@pytest.mark.parametrize(("game", "locale"), CASES)
async def test_a_whole_match_reads_in_the_servers_language(simcord_env, db: Database, languages: Languages,
                                                           game: str, locale: str) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.server = locale
    title = Text(GAMES[game].title).render(locale)
    start = await world["alice"].slash(world.channel, start_command(game), opponent=world["bob"], days=3)
    assert not start.ephemeral and f"**{title}**" in start.response.content, start.response.content
    await press(world["bob"], start.response, "accept")
    match_id = await only_match_id(db)
    rng = random.Random(len(game) + len(locale))
    for _ in range(MAX_PLIES):
        match = await stored(db, match_id)
        if match.status != "active":
            break
        state = load_state(match)
        actor = next(m for m in world.members.values() if m.id == match.seats[state.current_seat].user_id)
        notation = state.format_move(GAMES[game].computer_move(state, "easy", rng))
        name, options = command_for(game, state, notation)
        played = await actor.slash(world.thread(), name, **options)
        assert not played.ephemeral, (notation, played.response.content)
    match = await stored(db, match_id)
    assert match.status == "finished", f"match {match_id} did not end in {MAX_PLIES} plies"
    boards = [m for m in world.thread().history() if m.attachments]
    assert len(boards) == match.ply + 1
    for board in boards:
        words = f"{board.content}\n{board.attachments[0].description}"
        assert board.content.startswith(f"**{title}** · "), board.content
        assert not [english for english in ENGLISH if english in words], words
    final = boards[-1].content
    assert f"<@{world['alice'].id}>" in final and f"<@{world['bob'].id}>" in final, final
