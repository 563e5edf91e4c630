"""A running match is not re-derived from its move log on every action: states are kept per exact stored data."""

from __future__ import annotations

import random

import pytest

from bot.service import Player, Services, load_state
from bot.service import states as service_module
from games import GAMES, InvalidState
from storage import Database

pytestmark = pytest.mark.both_backends

ALICE, BOB = Player(1, "alice"), Player(2, "bob")


async def test_an_action_after_a_move_does_not_replay_the_log(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    services = Services(db)
    challenge = await services.challenges.create(guild_id=9, channel_id=1, game="chopsticks", variant={},
                                                 challenger=ALICE, opponent=BOB)
    match = (await services.challenges.accept(challenge.id, 9, BOB)).match
    result = await services.moves.play(match.id, 9, ALICE.user_id, "LL")
    game = type(GAMES["chopsticks"])
    loads = []
    original = game.load
    monkeypatch.setattr(game, "load", lambda self, data: loads.append(data) or original(self, data))
    stored = await services.reading.get_match(match.id, 9)
    assert load_state(stored).to_dict() == result.after.to_dict()
    assert loads == []  # the position after the move was kept: no replay
    assert load_state(stored) is load_state(stored)


def test_a_state_not_seen_before_is_validated_and_corrupt_data_still_refused() -> None:
    state = GAMES["differences"].new_state({"n": 5}, random.Random(1))
    state = state.apply(state.legal_moves()[0])
    data = state.to_dict()
    data["marks"][0]["square"] = "z9"  # impossible
    record = type("Record", (), {"game": "differences", "state": data})()
    with pytest.raises(InvalidState):
        load_state(record)  # type: ignore[arg-type]
    with pytest.raises(InvalidState):
        load_state(record)  # type: ignore[arg-type]  # a refusal is never cached
    assert len(service_module._states) <= service_module.STATE_CACHE_SIZE
