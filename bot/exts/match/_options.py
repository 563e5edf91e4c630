"""Commands built from a game's declaration: ``/<game> start`` with the game's variant options, and the move
subcommands with their autocomplete (the ``match`` option is :mod:`bot.utils.converters`').

Option types are discord.py's own (``Literal`` choices, ``Range`` bounds, members), so Discord validates kind and
range before the bot sees a value; the rules core validates the rest. Each generated callback gets its parameters
from an :class:`inspect.Signature` made from the declaration, which is how discord.py reads a command's options.
"""

from __future__ import annotations

import inspect
import keyword
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Optional

import discord
from discord import app_commands

from bot.answers import suggest_in_time
from bot.exts.match import _moves, _starts
from bot.service import ServiceError, load_state
from bot.texts import plural
from bot.utils.converters import AUTOCOMPLETE_LIMIT, MatchTransformer, implied_match, match_option, the_match
from bot.utils.queues import member_key
from games import LEVELS, Game, MoveCommand, MoveParam, Option, RulesError

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

DAYS_CHOICES = [app_commands.Choice(name=plural(d, "day"), value=d) for d in (1, 2, 3, 5, 7, 14)] + [
    app_commands.Choice(name="no limit", value=0)]
"""The computer's levels a start command offers (every game's; a level a game or variant lacks is refused at start)."""
SeatOption = Literal["first", "second"]
START_DESCRIPTIONS: dict[str, str] = {
    "opponent": "Who to challenge; leave empty for an open challenge, or pick me to play the computer",
    "level": "Computer strength when you play me (/rules says what each level does)",
    "days": "Days per move (default: the server's setting)",
    "seat": "Move first or second, against me or in your challenge (default first)",
}


START_USES = 10
"""``/<game> start`` uses a minute per member (docs/playing.md, "Rests between uses")."""
START_COOLDOWN = app_commands.checks.cooldown(START_USES, 60.0, key=member_key)
"""Every game's ``start`` shares one per-member cooldown: at most 10 starts (challenges, computer or solitaire
matches) a minute."""


# ---------------------------------------------------------------- start


def option_annotation(option: Option) -> Any:
    """The annotation of a variant option as discord.py reads it: on/off, a bounded integer, one of its choices,
    or bounded text; always optional (left empty, it takes its default)."""
    if option.kind == "bool":
        kind: Any = bool
    elif option.kind == "int":
        kind = app_commands.Range[int, option.minimum, option.maximum]
    elif option.kind == "choice":
        kind = Literal[option.choices]
    else:
        kind = app_commands.Range[str, 1, option.max_length]
    return Optional[kind]  # noqa: UP045 - a runtime value


def _signature(params: list[tuple[str, Any]]) -> inspect.Signature:
    first = inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction)
    rest = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                              default=inspect.Parameter.empty if required else None)
            for name, annotation, required in ((n, a, not _is_optional(a)) for n, a in params)]
    return inspect.Signature([first, *rest])


def _is_optional(annotation: Any) -> bool:
    return type(None) in getattr(annotation, "__args__", ())


def generated_command(name: str, description: str, callback: Callable[..., Awaitable[None]],
                      params: list[tuple[str, Any]], descriptions: Mapping[str, str],
                      renames: Mapping[str, str] | None = None) -> app_commands.Command[Any, ..., None]:
    """A slash command whose callback ``callback(interaction, **options)`` takes the options ``params`` (name,
    annotation; an ``Optional`` one may be left empty), described by ``descriptions`` (and renamed by ``renames``):
    its signature is made for discord.py, which reads a command's options from it."""
    generated: Any = callback
    generated.__signature__ = _signature(params)  # how discord.py (through inspect) reads the options
    generated = app_commands.describe(**descriptions)(generated)
    if renames:
        generated = app_commands.rename(**renames)(generated)
    return app_commands.Command(name=name, description=description, callback=generated)


def start_command(game: Game[Any, Any]) -> app_commands.Command[Any, ..., None]:
    """``/<game> start``: ``opponent``, ``level``, ``days``, ``seat`` and the game's variant options (Discord
    names them as declared; an option left empty takes its default)."""
    option_names = [option.name for option in game.options]

    async def start(interaction: discord.Interaction[NapkinBot], **given: Any) -> None:
        variant = {name: given[name] for name in option_names if given.get(name) is not None}
        await _starts.start_command(interaction, game.key, variant, given.get("opponent"), given.get("level"),
                                      given.get("days"), given.get("seat"))

    start.__qualname__ = start.__name__ = "start"
    # the levels this game has (``perfect`` only where a game is solved): a level it lacks is never offered
    levels = Literal[tuple(level for level in LEVELS if level in game.level_descriptions)]  # type: ignore[valid-type]
    params: list[tuple[str, Any]] = [
        ("opponent", Optional[discord.Member]), ("level", Optional[levels]),  # noqa: UP045
        ("days", Optional[int]), ("seat", Optional[SeatOption]),  # noqa: UP045
        *((option.name, option_annotation(option)) for option in game.options)]
    descriptions = {**START_DESCRIPTIONS, **{option.name: option.command_description() for option in game.options}}
    start_cb = app_commands.choices(days=DAYS_CHOICES)(start)
    command = generated_command("start", f"Challenge someone (or me) to {game.title}"[:100], start_cb, params,
                                descriptions)
    return START_COOLDOWN(command)


# ---------------------------------------------------------------- moves


def _python_name(name: str) -> str:
    return f"{name}_" if keyword.iskeyword(name) else name


def move_command(game: Game[Any, Any], spec: MoveCommand) -> app_commands.Command[Any, ..., None]:
    """A move subcommand (``/differences mark square:e5``): its options as text, then ``match``; the move's text is
    :attr:`MoveCommand.assemble` of what was typed, checked by the rules core."""
    names = {_python_name(param.name): param.name for param in spec.params}

    async def move(interaction: discord.Interaction[NapkinBot], **given: Any) -> None:
        record = await the_match(interaction, given.get("match"), game.key)
        typed = {names[key]: str(value) for key, value in given.items() if key in names and value is not None}
        await _moves.submit_move(interaction, record.id, spec.assemble(typed))

    move.__qualname__ = move.__name__ = spec.name
    params: list[tuple[str, Any]] = [
        (_python_name(p.name), str if p.required else Optional[str]) for p in spec.params]  # noqa: UP045
    params.append(("match", match_option(game.key)))
    descriptions = {_python_name(p.name): p.description[:100] for p in spec.params}
    descriptions["match"] = "The match (implied inside its thread)"
    renames = {python: name for python, name in names.items() if python != name}
    command = generated_command(spec.name, spec.description[:100], move, params, descriptions, renames)
    for param in spec.params:
        if param.suggest is not None:
            command.autocomplete(_python_name(param.name))(_suggester(game, spec, param))
    return command


def _suggester(game: Game[Any, Any], spec: MoveCommand, param: MoveParam) -> Callable[..., Any]:
    async def suggest(interaction: discord.Interaction[NapkinBot], current: str) -> list[app_commands.Choice[str]]:
        namespace = interaction.namespace
        try:
            raw = getattr(namespace, "match", None)
            record = await (MatchTransformer(game.key).transform(interaction, raw) if raw else
                            implied_match(interaction, game.key))
            state = load_state(record)
        except (ServiceError, RulesError):  # no match to suggest from: no suggestions
            return []
        if state.is_over or param.suggest is None:
            return []
        filled = {p.name: str(getattr(namespace, p.name)) for p in spec.params
                  if p.name != param.name and getattr(namespace, p.name, None) not in (None, "")}
        needle = current.strip().lower()
        choices: list[app_commands.Choice[str]] = []
        for entry in param.suggest(state, filled):
            label, value = entry if isinstance(entry, tuple) else (entry, entry)
            if needle in label.lower() or needle in value.lower():
                choices.append(app_commands.Choice(name=label[:100], value=value[:100]))
                if len(choices) == AUTOCOMPLETE_LIMIT:
                    break
        return choices

    return suggest_in_time(suggest)
