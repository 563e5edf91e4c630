"""No refusal a member reads bypasses the catalog: every ``raise`` of a member-facing error (the services' refusals
and the rules cores' illegal moves and variants) whose message is a bare string or an f-string is a text a translator
never sees. A message is written with ``_()``/``n_()``/``p_()`` (or a name bound to one) instead.

A raise whose message only a caller's mistake can produce (never a member's input) says so on its line with
``# never a member's``; the rule skips it.

The rule is a function over source text, shown to catch a violation before it is run on the tree.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEMBER_FACING = frozenset({
    # bot/service/errors.py
    "NotFound", "NotAllowed", "NotYourTurn", "MatchOver", "Outdated", "ChallengeClosed", "LimitReached", "BadOption",
    "Unavailable",
    # games/errors.py: what a member's move or a member's options can raise
    "InvalidMove", "IllegalMove", "InvalidVariant",
})
"""The errors whose message is shown to a member as the refusal."""
EXEMPT = "# never a member's"
SCANNED = ("bot", "games")


def unmarked_refusals(source: str) -> list[tuple[int, str]]:
    """``(line, error class)`` of each raise of a :data:`MEMBER_FACING` error in ``source`` whose first argument is
    a string literal or an f-string, unless its first line carries :data:`EXEMPT`."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
            continue
        func = node.exc.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        message = node.exc.args[0]
        bare = isinstance(message, ast.JoinedStr) or (isinstance(message, ast.Constant)
                                                     and isinstance(message.value, str))
        if name in MEMBER_FACING and bare and EXEMPT not in lines[node.lineno - 1]:
            found.append((node.lineno, name))
    return found


def test_the_rule_catches_what_it_is_for() -> None:
    source = (
        "def f(x):\n"
        "    raise NotAllowed(f'You are not in {x}.')\n"
        "    raise errors.BadOption('No.')\n"
        "    raise NotAllowed(_('You are not in {x}.', x=x))\n"
        "    raise InvalidState(f'{x} is damaged')\n"
        "    raise InvalidMove(f'{x!r} must be text')  # never a member's: a caller's mistake\n"
        "    raise IllegalMove(REASON)\n"
    )
    assert unmarked_refusals(source) == [(2, "NotAllowed"), (3, "BadOption")]


def test_every_refusal_a_member_reads_goes_through_the_catalog() -> None:
    offenders = [f"{path.relative_to(ROOT)}:{line} {name}"
                 for package in SCANNED for path in sorted((ROOT / package).rglob("*.py"))
                 for line, name in unmarked_refusals(path.read_text(encoding="utf-8"))]
    assert not offenders, "refusals written past the catalog:\n" + "\n".join(offenders)
