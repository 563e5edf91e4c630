"""Driving the bot through SimCord for benchmarks and tests: a server with members, and the slash command
that plays a move given in a game's notation."""

from __future__ import annotations

import re
from typing import Any

from games import State

_NAPKIN = re.compile(r"\s*([234])\s*@\s*([^,]+),(.+)")


def command_for(game: str, state: State, notation: str) -> tuple[str, dict[str, str]]:
    """Return the slash command (name, options) that plays ``notation`` in ``state`` of ``game``.

    Raises:
        ValueError: ``notation`` has no command form (never for the canonical notation of a legal move).
    """
    if game == "chopsticks":
        return "chopsticks move", {"notation": notation}
    if game == "differences":
        return "differences mark", {"square": notation}
    if game == "napkin_chess":
        found = _NAPKIN.fullmatch(notation)
        if not found:
            raise ValueError(notation)
        return "napkin place", {"size": found[1], "x": found[2].strip(), "y": found[3].strip()}
    if game == "polygons":
        if "," in notation:
            x, y = notation.split(",")
            return "polygons dot", {"x": x.strip(), "y": y.strip()}
        start, end = notation.split("-")
        if getattr(state, "path_end", None) is None:
            return "polygons connect", {"from": start, "to": end}
        return "polygons connect", {"to": end}
    if game == "groebner_nim":
        first, second = notation.split("-")
        return "groebner pair", {"first": first, "second": second}
    raise ValueError(f"unknown game {game!r}")


class World:
    """A server with a games channel and named members, built on a SimCord environment."""

    def __init__(self, env: Any, *names: str) -> None:
        self.env = env
        self.guild = env.create_guild()
        self.channel = self.guild.create_text_channel("games")
        self.members = {name: self.guild.add_member(env.create_user(name)) for name in names}

    def __getitem__(self, name: str) -> Any:
        return self.members[name]

    def bot_member(self) -> Any:
        """The bot as a member handle (to pass as ``opponent``)."""
        from simcord.actors import MemberActor
        from simcord.builders import UserHandle

        return MemberActor(self.env, self.guild, UserHandle(self.env, self.env.backend.bot_user))

    def thread(self) -> Any:
        """The newest thread of the games channel."""
        threads = self.channel.threads
        assert threads, "no thread was opened"
        return threads[-1]
