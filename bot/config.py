"""Configuration from environment variables (and a ``.env`` file), with pydantic-settings.

Every setting is a field of :class:`Settings`, with its variable, meaning and default; the admins' table in
``docs/operating.md`` is :func:`settings_table` (``python -m bot.config`` prints it, and a test keeps the two equal).

Several processes sharing one PostgreSQL database each run some of the shards: give every process the same
``NAPKIN_SHARD_COUNT`` and its own ``NAPKIN_SHARD_IDS``, so that every shard runs in exactly one process. Bad values
stop ``napkin run`` (and ``napkin play``) with one line naming the variable and saying what is wrong.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal
from urllib.parse import parse_qs, urlsplit

from pydantic import Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.service.computer_workers import machine_workers
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


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
"""The logging levels a setting may name (any case)."""
_LOGGER = re.compile(r"[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*")


def parse_log_level(text: str) -> str:
    """``text`` as one of :data:`LOG_LEVELS` (upper case; surrounding blanks ignored).

    Raises:
        ValueError: any other word (the message quotes it and names the levels).
    """
    level = text.strip().upper()
    if level not in LOG_LEVELS:
        raise ValueError(f"{text.strip()!r} is not a logging level ({', '.join(LOG_LEVELS)})")
    return level


def parse_log_levels(text: str) -> dict[str, str]:
    """``"discord.gateway=DEBUG,aiosqlite=INFO"`` as ``{"discord.gateway": "DEBUG", "aiosqlite": "INFO"}``: a
    level for each named logger (a dotted name, as ``logging.getLogger`` takes it), in the order given.

    Raises:
        ValueError: a part that is not ``logger=LEVEL``, a logger name that is not a dotted name, a level that is not
            one of :data:`LOG_LEVELS`, or a logger named twice (the message quotes the part).
    """
    levels: dict[str, str] = {}
    for part in text.split(","):
        name, equals, level = part.partition("=")
        name = name.strip()
        if not equals or not _LOGGER.fullmatch(name):
            raise ValueError(f"{part.strip()!r} is not logger=LEVEL (for example discord.gateway=DEBUG)")
        if name in levels:
            raise ValueError(f"the logger {name!r} is named twice")
        try:
            levels[name] = parse_log_level(level)
        except ValueError as error:
            raise ValueError(f"{part.strip()!r}: {error}") from None
    return levels


def _shown(default: str) -> dict[str, Any]:
    """The default as the settings table shows it, where the value itself would not say it."""
    return {"shown_default": default}


def parse_address(text: str) -> tuple[str, int]:
    """``"host:port"`` as (host, port): ``127.0.0.1:9108``, ``0.0.0.0:9108``, ``[::1]:9108``, ``localhost:9108``.

    Raises:
        ValueError: no host, or a port that is not a number from 1 to 65535 (the message quotes the text).
    """
    host, colon, port = text.strip().rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not colon or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{text!r} is not host:port (for example 127.0.0.1:9108)")
    return host, int(port)


class Settings(BaseSettings):
    """The bot's settings; secrets have no default. Each field's ``description`` is its meaning in the admins'
    table (:func:`settings_table`)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: SecretStr | None = Field(
        default=None, validation_alias="DISCORD_TOKEN", json_schema_extra=_shown("none (required)"),
        description="the bot's token from the Developer Portal (`napkin run` and `napkin sync` need it; `napkin "
                    "invite-url` reads the application id from it)")
    database: str = Field(
        default=DEFAULT_PATH, validation_alias="NAPKIN_DATABASE",
        json_schema_extra=_shown("`napkin.db` in the working directory"),
        description="the SQLite database file (a path or `sqlite:///path`), or a `postgresql://` URL")
    dev_guild: int | None = Field(
        default=None, validation_alias="NAPKIN_DEV_GUILD", json_schema_extra=_shown("global commands"),
        description="a server id: commands are synced to it only, instantly (for development)")
    database_password: SecretStr | None = Field(
        default=None, validation_alias="NAPKIN_DATABASE_PASSWORD", json_schema_extra=_shown("none (the URL's, or "
                                                                                             "libpq's own sources)"),
        description="the PostgreSQL password, passed to libpq as its own `password` setting, never written into the "
                    "URL: any character works as it is (a `postgresql://` URL then names no password)")
    log_level: str = Field(default="INFO", validation_alias="NAPKIN_LOG_LEVEL",
                           description="the level of the bot's own log lines (its loggers `bot`, `games`, "
                                       "`renderers`, `storage`): `DEBUG`, `INFO`, `WARNING`, `ERROR` or `CRITICAL`; "
                                       "the libraries' lines stay at `WARNING` (see `NAPKIN_LOG_LEVELS`). `napkin "
                                       "play` logs warnings only unless this is set")
    log_levels: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict, validation_alias="NAPKIN_LOG_LEVELS", json_schema_extra=_shown("none"),
        description="levels for other loggers, by name: `discord.gateway=DEBUG,aiosqlite=INFO` (a library's lines "
                    "are `WARNING` and above unless named here; a name also sets everything below it)")
    log_format: Literal["text", "json"] = Field(
        default="text", validation_alias="NAPKIN_LOG_FORMAT",
        description="`text`, or `json`: one JSON object a line with `time`, `level`, `logger`, `message` and, "
                    "inside an interaction, `shard`, `guild`, `match` (when the interaction names one) and "
                    "`command`")
    shard_count: int | None = Field(
        default=None, validation_alias="NAPKIN_SHARD_COUNT", ge=1, le=MAX_SHARD_COUNT,
        json_schema_extra=_shown("Discord's recommendation"),
        description="the bot's shards in total, over all its processes (at most 65,536)")
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = Field(
        default=None, validation_alias="NAPKIN_SHARD_IDS", json_schema_extra=_shown("all of them"),
        description="the shards this process runs: `0,1`, `0-3` or `0-1,4` (needs `NAPKIN_SHARD_COUNT`)")
    computer_workers: int = Field(
        default_factory=machine_workers, validation_alias="NAPKIN_COMPUTER_WORKERS", ge=1,
        json_schema_extra=_shown("the CPUs this process may use (at least 1)"),
        description="worker processes for the computer's searches and the reviews (about 50 MB each); they start "
                    "as the work comes, up to this many")
    review_slots: int | None = Field(
        default=None, validation_alias="NAPKIN_REVIEW_SLOTS", ge=1,
        json_schema_extra=_shown("the workers but one (at least 1)"),
        description="reviews (`/match review`) run at once in the workers; with more than one worker at most the "
                    "workers but one, so that a computer opponent's move always finds a free worker")
    metrics_addr: str | None = Field(
        default=None, validation_alias="NAPKIN_METRICS_ADDR", json_schema_extra=_shown("off"),
        description="`host:port` where `/healthz` and `/metrics` (Prometheus) are served, e.g. `127.0.0.1:9108` "
                    "(`0.0.0.0:9108` in a container); also under `napkin play`")
    stop_seconds: float = Field(
        default=10.0, validation_alias="NAPKIN_STOP_SECONDS", gt=0, le=600,
        description="on SIGTERM or SIGINT, how long the interactions under way may take to finish (seconds) "
                    "before the bot stops anyway; a second signal stops it at once")

    @field_validator("computer_workers", "stop_seconds", mode="before")
    @classmethod
    def _blank_is_default(cls, value: Any, info: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return machine_workers() if info.field_name == "computer_workers" else 10.0
        return value

    @field_validator("review_slots", "metrics_addr", "dev_guild", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("log_level", mode="before")
    @classmethod
    def _check_level(cls, value: Any) -> Any:
        if isinstance(value, str):
            return parse_log_level(value) if value.strip() else "INFO"
        return value

    @field_validator("log_levels", mode="before")
    @classmethod
    def _parse_levels(cls, value: Any) -> Any:
        if isinstance(value, str):
            return parse_log_levels(value) if value.strip() else {}
        return value

    @field_validator("database_password", mode="before")
    @classmethod
    def _blank_password(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value else value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("metrics_addr")
    @classmethod
    def _check_address(cls, value: str | None) -> str | None:
        if value is not None:
            parse_address(value)
        return value

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
    def _check_review_slots(self) -> Settings:
        most = max(1, self.computer_workers - 1)
        if self.review_slots is not None and self.review_slots > most:
            raise ValueError(f"NAPKIN_REVIEW_SLOTS={self.review_slots}: at most {most} with "
                             f"NAPKIN_COMPUTER_WORKERS={self.computer_workers} (one worker is kept for the "
                             "computer's moves)")
        return self

    @model_validator(mode="after")
    def _check_password(self) -> Settings:
        if self.database_password is None:
            return self
        if not self.database.startswith(("postgresql://", "postgres://")):
            raise ValueError("NAPKIN_DATABASE_PASSWORD is for a PostgreSQL database, and NAPKIN_DATABASE names a "
                             "SQLite file")
        parts = urlsplit(self.database)
        if parts.password is not None or "password" in parse_qs(parts.query):
            raise ValueError("NAPKIN_DATABASE names a password and NAPKIN_DATABASE_PASSWORD gives one: take it out "
                             "of the URL")
        return self

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
    def reviews_at_once(self) -> int:
        """``NAPKIN_REVIEW_SLOTS``, or its default: every worker but one, at least one."""
        return self.review_slots if self.review_slots is not None else max(1, self.computer_workers - 1)

    @property
    def metrics_address(self) -> tuple[str, int] | None:
        """``NAPKIN_METRICS_ADDR`` as (host, port), or ``None`` when the endpoint is off."""
        return None if self.metrics_addr is None else parse_address(self.metrics_addr)

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


def settings_table() -> str:
    """The admins' table of every setting (Markdown: variable, meaning, default), from :class:`Settings`' fields,
    in their order: what ``docs/operating.md`` shows."""
    lines = ["| variable | meaning | default |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        shown = extra.get("shown_default")
        if shown is None:
            shown = f"`{field.get_default(call_default_factory=False)}`"
        variable = field.validation_alias if isinstance(field.validation_alias, str) else name
        lines.append(f"| `{variable}` | {field.description} | {shown} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(settings_table())
