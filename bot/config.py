"""Configuration from environment variables (and a ``.env`` file), with pydantic-settings.

| variable           | meaning                                                  | default     |
|--------------------|----------------------------------------------------------|-------------|
| ``DISCORD_TOKEN``  | the bot token (required by ``napkin run``)               | none        |
| ``NAPKIN_DATABASE``| a SQLite file path (or ``sqlite:///path``), or a ``postgresql://`` URL | ``napkin.db``|
| ``NAPKIN_DEV_GUILD``| a server id whose commands sync instantly (development) | none        |
| ``NAPKIN_LOG_LEVEL``| logging level                                           | ``INFO``    |
"""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from storage import DEFAULT_PATH


class Settings(BaseSettings):
    """The bot's settings; secrets have no default."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: SecretStr | None = Field(default=None, validation_alias="DISCORD_TOKEN")
    database: str = Field(default=DEFAULT_PATH, validation_alias="NAPKIN_DATABASE")
    dev_guild: int | None = Field(default=None, validation_alias="NAPKIN_DEV_GUILD")
    log_level: str = Field(default="INFO", validation_alias="NAPKIN_LOG_LEVEL")
