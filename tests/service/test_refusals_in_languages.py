"""The refusals of conditional moves, vacations, settings, the computer's queues and a damaged match are whole
sentences of the catalog: English as before, and each shipped language's own words around the quoted moves."""

from __future__ import annotations

import random

import pytest

from bot.service.computer import ComputerPool
from bot.service.errors import BadOption, Damaged, LimitReached
from bot.service.premoves import check_line, check_text
from bot.service.settings import check_allowance
from games import GAMES
from i18n import Text


def _start(game: str):
    declared = GAMES[game]
    return declared.new_state(declared.variant({}), random.Random(0))


def test_a_refused_line_names_the_opponent_in_a_whole_sentence() -> None:
    with pytest.raises(BadOption) as refused:
        check_line(_start("chopsticks"), 1, "bob", "zz", "LL")
    message = refused.value.args[0]
    assert isinstance(message, Text)
    assert str(message).startswith("`zz` is not a move bob can play now: it is not a Chopsticks move.")
    assert message.render("fr").startswith("`zz` n'est pas un coup que bob peut jouer maintenant : ")
    assert message.render("de").startswith("`zz` ist kein Zug, den bob jetzt spielen kann: ")


def test_the_reply_is_refused_as_yours() -> None:
    with pytest.raises(BadOption) as refused:
        check_line(_start("chopsticks"), 1, "bob", "LL", "qq")
    message = refused.value.args[0]
    assert str(message).startswith("`qq` is not a move you can play after `LL`: it is ")
    assert message.render("es_ES").startswith("`qq` no es una jugada que puedas hacer después de `LL`: ")
    assert message.render("pt_BR").startswith("`qq` não é um lance que você possa jogar depois de `LL`: ")


def test_option_refusals_keep_the_option_names() -> None:
    with pytest.raises(BadOption) as empty:
        check_text("  ", "then_reply")
    assert empty.value.args[0].render("fr") == ("`then_reply` est vide ; écrivez un coup comme les plateaux les "
                                                "affichent.")
    with pytest.raises(BadOption) as allowance:
        check_allowance(400)
    assert str(allowance.value) == "The vacation allowance must be between 0 and 365 days a year; `400` is not."
    assert "`400`" in allowance.value.args[0].render("de")


def test_a_damaged_match_is_said_in_every_language() -> None:
    damaged = Damaged(1234, "bad row")
    assert str(damaged) == ("Match #1234 is damaged and cannot be played; an admin can inspect it with "
                            "`napkin inspect 1234`.")
    assert damaged.args[0].render("fr").startswith("La partie n° 1234 est endommagée")


async def test_a_second_review_is_refused_in_the_members_language() -> None:
    pool = ComputerPool(2)  # not started
    async with pool.long_work(server=1, member=7):
        with pytest.raises(LimitReached) as refused:
            async with pool.long_work(server=2, member=7):
                pass
    assert str(refused.value) == "Your previous review is still being made; it is posted when it is ready."
    assert refused.value.args[0].render("de").startswith("Deine vorige Analyse wird noch erstellt")
