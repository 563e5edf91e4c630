"""The container recipe cannot be built on these machines, so this reads it: the Dockerfile and compose.yaml may
only name real settings with values the bot accepts, run real ``napkin`` subcommands, and serve and probe the
health endpoint on the port the metrics setting names; the two bots of compose.yaml run every shard once, from one
image. The image is built from pinned inputs: the base image by digest, every Python package from requirements.lock
(one version, with hashes) which must agree with pyproject.toml; PostgreSQL's password reaches the bot as its own
setting, never inside the URL, and Docker rotates the bots' logs."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from bot.config import Settings, parse_address, parse_shard_ids

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = {field.validation_alias for field in Settings.model_fields.values()}
BUILD_VARIABLES = {"NAPKIN_COMMIT"}
"""Variables of the image that are not settings: the commit it was built from (:mod:`bot.ops.build`)."""
OURS = re.compile(r"(NAPKIN|DISCORD)_\w+")
IMAGE = "napkin-games:local"


def _dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions: (keyword, arguments), continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", "\n".join(line for line in (ROOT / "Dockerfile").read_text().splitlines()
                                          if not line.lstrip().startswith("#")))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1].strip()) for line in text.splitlines()
            if line.strip()]


def _one(keyword: str) -> str:
    (found,) = [arguments for name, arguments in _dockerfile() if name == keyword]
    return found


def _docker_env() -> dict[str, str]:
    found: dict[str, str] = {}
    for name, arguments in _dockerfile():
        if name == "ENV":
            found.update(part.split("=", 1) for part in shlex.split(arguments))
    return found


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return loaded


def _interpolated(value: object) -> str:
    """A compose value with ``${NAME:?message}`` and ``${NAME:-default}`` filled as compose would (a stand-in for a
    required one)."""
    return re.sub(r"\$\{(\w+):([?-])([^}]*)\}", lambda m: m[3] if m[2] == "-" else f"stand-in-{m[1].lower()}",
                  str(value))


def _bots() -> dict[str, dict[str, Any]]:
    """The services that run the bot (a ``napkin`` subcommand), whatever their image."""
    return {name: service for name, service in _compose()["services"].items() if name != "db"}


def _settings(environment: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    for name in SETTINGS:
        monkeypatch.delenv(str(name), raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, _interpolated(value))
    return Settings(_env_file=None)


def _subcommand_exists(arguments: list[str]) -> bool:
    done = subprocess.run([sys.executable, "-m", "bot.cli", *arguments, "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    return done.returncode == 0 and done.stdout.startswith("usage: napkin")


def test_the_image_runs_napkin_run_as_a_user_without_privileges() -> None:
    assert re.fullmatch(r"python:3\.11-slim@sha256:[0-9a-f]{64}", _one("FROM"))  # the base image by its digest
    assert _one("USER") not in ("root", "0")
    entry, command = json.loads(_one("ENTRYPOINT")), json.loads(_one("CMD"))
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert entry == ["napkin"] and scripts["napkin"] == "bot.cli:main" and command == ["run"]
    assert _subcommand_exists(command)
    copied = {arguments.split()[0] for name, arguments in _dockerfile() if name == "COPY"}
    assert {"bot", "games", "renderers", "storage", "i18n", "pyproject.toml"} <= copied
    assert all((ROOT / path).exists() for path in copied)


def test_the_images_settings_are_real_and_its_ports_are_the_metrics_port(monkeypatch: pytest.MonkeyPatch) -> None:
    environment = _docker_env()
    ours = {name for name in environment if OURS.fullmatch(name)} - BUILD_VARIABLES
    assert ours and ours <= SETTINGS
    settings = _settings({name: environment[name] for name in ours}, monkeypatch)
    assert settings.metrics_address is not None
    host, port = settings.metrics_address
    assert host == "0.0.0.0"  # reachable from outside the container
    assert _one("EXPOSE") == str(port)
    probe = re.search(r"http://127\.0\.0\.1:(\d+)(/\w+)", _one("HEALTHCHECK"))
    assert probe is not None and (int(probe[1]), probe[2]) == (port, "/healthz")


def test_compose_runs_postgresql_first_and_two_bots_that_split_the_shards(monkeypatch: pytest.MonkeyPatch) -> None:
    compose = _compose()
    db = compose["services"]["db"]
    assert db["image"].startswith("postgres:") and db["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]
    bots = _bots()
    assert len(bots) == 2
    _, image_port = parse_address(_docker_env()["NAPKIN_METRICS_ADDR"])
    shards: list[int] = []
    counts = set()
    host_ports = set()
    for name, bot in bots.items():
        assert bot["depends_on"] == {"db": {"condition": "service_healthy"}}, name
        assert _subcommand_exists(bot["command"]), name
        environment = {key: str(value) for key, value in bot["environment"].items()}
        assert {key for key in environment if OURS.fullmatch(key)} <= SETTINGS, name
        assert set(environment) <= SETTINGS, name  # nothing else is read from it
        settings = _settings(environment, monkeypatch)  # values the bot accepts
        assert settings.database == "postgresql://napkin@db:5432/napkin"  # no password in the URL
        assert settings.metrics_address is not None and settings.metrics_address[1] == image_port
        for mapping in bot["ports"]:
            *host, container = str(mapping).split(":")
            assert int(container) == image_port, name
            host_ports.add(tuple(host))
        seconds = int(str(bot["stop_grace_period"]).removesuffix("s"))
        assert seconds >= settings.stop_seconds + 5, name  # room for the graceful stop before a SIGKILL
        counts.add(settings.shard_count)
        shards += parse_shard_ids(environment["NAPKIN_SHARD_IDS"])
    (count,) = counts
    assert count is not None and sorted(shards) == list(range(count))  # every shard once
    assert len(host_ports) == 2  # one host port each


def _locked() -> dict[str, tuple[str, list[str]]]:
    """requirements.lock: each package's canonical name, its one version and its hashes."""
    text = (ROOT / "requirements.lock").read_text()
    found: dict[str, tuple[str, list[str]]] = {}
    for entry in re.split(r"\n(?=[A-Za-z])", text):  # an entry starts at a line's first column
        head = entry.split("\\", 1)[0].strip()
        if not head or head.startswith("#"):
            continue
        name, _, version = head.partition("==")
        assert version and not name.startswith("-"), head
        found[canonicalize_name(name)] = (version, re.findall(r"--hash=sha256:([0-9a-f]{64})", entry))
    return found


def test_the_lock_file_pins_every_dependency_of_pyproject_with_hashes() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = [Requirement(text) for text in [*project["project"]["dependencies"],
                                              *project["project"]["optional-dependencies"]["postgres"],
                                              *project["build-system"]["requires"]]]
    locked = _locked()
    assert len(locked) > len(wanted)  # their own dependencies too
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{requirement} is not in requirements.lock: run make lock"
        version, _ = locked[name]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"requirements.lock has {name}=={version}, outside {requirement}: run make lock")
        for extra in requirement.extras:  # psycopg[binary]: the extra's own package is pinned too
            assert canonicalize_name(f"{name}-{extra}") in locked, requirement
    assert all(hashes for _, hashes in locked.values())  # every pin has its hashes
    header = (ROOT / "requirements.lock").read_text().split("\n\n", 1)[0]
    assert "--generate-hashes" in header and "--extra=postgres" in header and "pyproject.toml" in header


def test_the_image_installs_only_what_the_lock_file_pins() -> None:
    runs = [arguments for name, arguments in _dockerfile() if name == "RUN" and "pip install" in arguments]
    assert runs[0] == "pip install --require-hashes --no-deps -r requirements.lock"
    (own,) = runs[1:]
    assert own.startswith("pip install --no-deps --no-build-isolation . ")  # the bot, nothing fetched
    copies = [arguments.split() for name, arguments in _dockerfile() if name == "COPY"]
    assert copies[0] == ["requirements.lock", "./"]


def test_every_bot_service_runs_the_one_image_built_here() -> None:
    bots = _bots()
    assert len(bots) == 2 and {bot["image"] for bot in bots.values()} == {IMAGE}
    builders = {name: bot["build"] for name, bot in bots.items() if "build" in bot}
    (builder,) = builders.values()  # built once, by one service
    assert builder["context"] == "." and builder["args"] == {"NAPKIN_COMMIT": "${NAPKIN_COMMIT:-unknown}"}
    assert all(bot.get("pull_policy") == "never" for name, bot in bots.items() if name not in builders)
    arguments = {arguments.split("=")[0] for name, arguments in _dockerfile() if name == "ARG"}
    assert set(builder["args"]) <= arguments and _docker_env()["NAPKIN_COMMIT"] == "$NAPKIN_COMMIT"


def test_the_database_password_reaches_the_bot_as_its_own_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    compose = _compose()
    server = compose["services"]["db"]["environment"]["POSTGRES_PASSWORD"]
    awkward = "p@ss:w/rd?#%20&x=1 'q' \"d\" \\ é$"
    for bot in _bots().values():
        environment = {key: str(value) for key, value in bot["environment"].items()}
        assert environment["NAPKIN_DATABASE_PASSWORD"] == server  # the same variable as the server's
        assert "POSTGRES_PASSWORD" not in environment["NAPKIN_DATABASE"]
        settings = _settings({**environment, "NAPKIN_DATABASE_PASSWORD": awkward}, monkeypatch)
        assert settings.database_password is not None and settings.database_password.get_secret_value() == awkward
        assert settings.database == "postgresql://napkin@db:5432/napkin"


def test_docker_rotates_the_bots_logs() -> None:
    for name, bot in _bots().items():
        logging = bot["logging"]
        assert logging["driver"] == "json-file", name
        size, files = logging["options"]["max-size"], int(logging["options"]["max-file"])
        assert re.fullmatch(r"\d+m", size) and int(size[:-1]) * files <= 100, name  # at most 100 MB a bot
