"""The deadline pass settles each due match in a savepoint: one that cannot be settled now is left for the next
pass without undoing the rest of its batch."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service import Player, Services
from bot.service.clock import DAY
from storage import Database, Tx
from tests.reliability._support import Clock, match_of, service_match

pytestmark = pytest.mark.both_backends

GUILD = 3


async def test_a_match_that_changed_meanwhile_is_left_for_the_next_pass_alone(db: Database,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    first, second = [(await service_match(services, "chopsticks", GUILD, (Player(10 + n, "a"), Player(20 + n, "b")),
                                          days=1)).id for n in range(2)]
    clock.now += DAY + 1  # both due: aborted (nobody moved)
    original = Tx.update_match
    refused: list[int] = []

    def once_outdated(tx: Tx, match_id: int, expected_version: int, **fields: Any) -> bool:
        if match_id == first and not refused:
            refused.append(match_id)
            original(tx, match_id, expected_version, **fields)  # written, then found outdated: undone by the savepoint
            return False
        return original(tx, match_id, expected_version, **fields)

    monkeypatch.setattr(Tx, "update_match", once_outdated)
    work = await services.deadlines.process_due()
    assert refused == [first]
    assert [m.id for m in work.aborted] == [second]
    assert (await match_of(db, first)).status == "active" and (await match_of(db, first)).version == 0
    assert [row[0] for row in await db.fetchall("SELECT subject_id FROM outbox WHERE kind = 'result'")] == [second]
    work = await services.deadlines.process_due()
    assert [m.id for m in work.aborted] == [first]
