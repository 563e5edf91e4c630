"""Configuration from environment variables (and a ``.env`` file), with pydantic-settings.

| variable           | meaning                                                  | default     |
|--------------------|----------------------------------------------------------|-------------|
| ``DISCORD_TOKEN``  | the bot token (required by ``napkin run``)               | none        |
| ``NAPKIN_DATABASE``| a SQLite file path (or ``sqlite:///path``), or a ``postgresql://`` URL | ``napkin.db``|
| ``NAPKIN_DEV_GUILD``| a server id whose commands sync instantly (development) | none        |
| ``NAPKIN_LOG_LEVEL``| logging level                                           | ``INFO``    |
| ``NAPKIN_SHARD_COUNT``| the shards in total, over all processes (at most 65,536) | Discord's recommendation |
| ``NAPKIN_SHARD_IDS``| the shards this process runs: ``0,1``, ``0-3``, ``0-1,4`` (needs the count) | all of them |

Several processes sharing one PostgreSQL database each run some of the shards: give every process the same
``NAPKIN_SHARD_COUNT`` and its own ``NAPKIN_SHARD_IDS``, so that every shard runs in exactly one process. Bad values
stop ``napkin run`` with one line saying what is wrong.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from storage import DEFAULT_PATH, Shards

_RANGE = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")

MAX_SHARD_COUNT = 65536
"""The most shards a bot may have in total here (``NAPKIN_SHARD_COUNT``): far beyond what Discord recommends for the
largest bots, and a bound on what naming the shards of a process may cost."""


def parse_shard_ids(text: str, count: int | None = None) -> tuple[int, ...]:
    """The shard ids named by ``text``: comma-separated ids and inclusive ranges (``"0,1"``, ``"0-3"``,
    ``"0-1,4"``), in the order given.

    Every range is checked against ``count`` (the shard count; without it, :data:`MAX_SHARD_COUNT`) before it is
    expanded, and repeats are found in one pass, so the cost follows the shards named, never the numbers typed.

    Raises:
        ValueError: a part is neither an id nor a range ``low-high`` with ``low <= high`` (the message quotes it), a
            shard is outside ``0 .. count - 1``, or an id is named twice.
    """
    bound = count if count is not None else MAX_SHARD_COUNT
    spans: list[tuple[int, int]] = []
    for part in text.split(","):
        found = _RANGE.fullmatch(part)
        if found is None:
            raise ValueError(f"{part.strip()!r} is not a shard id or a range like 0-3")
        low = int(found[1])
        high = int(found[2]) if found[2] is not None else low
        if high < low:
            raise ValueError(f"the range {part.strip()!r} runs backwards; write it low-high")
        if high >= bound:
            if count is None:
                raise ValueError(f"shard {high} is beyond the most shards a bot may have ({MAX_SHARD_COUNT})")
            raise ValueError(f"shard {high} is outside 0-{count - 1} (the shard count is {count})")
        spans.append((low, high))
    ids: list[int] = []
    seen: set[int] = set()
    for low, high in spans:
        for shard in range(low, high + 1):
            if shard in seen:
                raise ValueError(f"shard {shard} is named twice")
            seen.add(shard)
            ids.append(shard)
    return tuple(ids)


class Settings(BaseSettings):
    """The bot's settings; secrets have no default."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: SecretStr | None = Field(default=None, validation_alias="DISCORD_TOKEN")
    database: str = Field(default=DEFAULT_PATH, validation_alias="NAPKIN_DATABASE")
    dev_guild: int | None = Field(default=None, validation_alias="NAPKIN_DEV_GUILD")
    log_level: str = Field(default="INFO", validation_alias="NAPKIN_LOG_LEVEL")
    shard_count: int | None = Field(default=None, validation_alias="NAPKIN_SHARD_COUNT", ge=1, le=MAX_SHARD_COUNT)
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = Field(default=None, validation_alias="NAPKIN_SHARD_IDS")

    @field_validator("shard_count", mode="before")
    @classmethod
    def _blank_count(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _parse_ids(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str):  # the count (validated first, declared above) bounds the ranges before expansion
            return parse_shard_ids(value, info.data.get("shard_count")) if value.strip() else None
        return value

    @model_validator(mode="after")
    def _check_shards(self) -> Settings:
        if self.shard_ids is not None:
            if self.shard_count is None:
                raise ValueError("NAPKIN_SHARD_IDS needs NAPKIN_SHARD_COUNT, the shards in total over all processes")
            try:
                Shards(self.shard_count, self.shard_ids)
            except ValueError as error:
                ids = ",".join(map(str, self.shard_ids))
                raise ValueError(f"NAPKIN_SHARD_IDS={ids!r}: {error}") from None
        return self

    @property
    def shards(self) -> Shards | None:
        """The shards this process runs when it runs some of them (``NAPKIN_SHARD_IDS``), else ``None``: all."""
        return None if self.shard_ids is None or self.shard_count is None else Shards(self.shard_count,
                                                                                      self.shard_ids)


def settings_problem(error: Exception) -> str:
    """One line saying what is wrong with the settings, from the :class:`pydantic.ValidationError` that
    :class:`Settings` raised (the variable, what was wrong, and the value given)."""
    errors = getattr(error, "errors", None)
    if not callable(errors):
        return str(error)
    first = errors()[0]
    message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    where = ".".join(str(part) for part in first.get("loc", ()))
    value = first.get("input")
    if where and isinstance(value, str | int):
        return f"{where}={str(value)!r}: {message}"
    return f"{where}: {message}" if where else message
