"""Options written as text (``/tournament create ... variant:n:6 unique:true``): every game's options read back,
and refusals quote what was typed."""

from __future__ import annotations

import pytest

from games import GAMES, InvalidVariant, Option, parse_options

OPTIONS = [(key, option) for key, declared in GAMES.items() for option in declared.options]


def _written(option: Option) -> list[tuple[str, object]]:
    """Values of ``option`` as a member writes them, with what they mean."""
    if option.kind == "bool":
        return [("true", True), ("off", False), ("Yes", True)]
    if option.kind == "int":
        return [(str(option.minimum), option.minimum), (str(option.maximum), option.maximum)]
    if option.kind == "choice":
        return [(choice.upper(), choice) for choice in option.choices]
    return [("x^3+1, x*y^2+y^3", "x^3+1, x*y^2+y^3")]


@pytest.mark.parametrize(("game", "option"), OPTIONS, ids=[f"{g}-{o.name}" for g, o in OPTIONS])
def test_every_option_reads_back_from_text(game: str, option: Option) -> None:
    for text, value in _written(option):
        assert parse_options(GAMES[game].options, f"  {option.name}:{text} ") == {option.name: value}


def test_several_options_and_a_text_value_with_spaces() -> None:
    options = GAMES["groebner_nim"].options
    names = [option.name for option in options]
    assert "start" in names and "sticks" in names
    assert parse_options(options, "start:x^3+1, x*y^2+y^3 mode:duel") == {"start": "x^3+1, x*y^2+y^3",
                                                                         "mode": "duel"}
    assert parse_options(options, "") == {}


@pytest.mark.parametrize(("text", "message"), [
    ("n:6", "There is no option `n`; the options are rollover, self_taps"),
    ("rollover:maybe", "Option `rollover` is true or false, not `maybe`."),
    ("rollover:true rollover:false", "Option `rollover` is given twice."),
    ("rollover:", "Option `rollover` has no value"),
    ("quick please", "`quick please` is not a list of options such as `rollover:…`"),
    ("splits:halves", "Option `splits` is one of transfer, even, none, not `halves`."),
    ("x`y:1", "is not a list of options"),
])
def test_what_does_not_read_is_refused_quoting_it(text: str, message: str) -> None:
    with pytest.raises(InvalidVariant) as refused:
        parse_options(GAMES["chopsticks"].options, text)
    assert message in str(refused.value)
    assert "`x`y" not in str(refused.value), "a backtick typed cannot break the code span"


def test_numbers_out_of_range_are_refused_with_the_range() -> None:
    with pytest.raises(InvalidVariant, match="from 4 to 15, not `16`"):
        parse_options(GAMES["differences"].options, "n:16")
    with pytest.raises(InvalidVariant, match="a whole number from 4 to 15, not `six`"):
        parse_options(GAMES["differences"].options, "n:six")
