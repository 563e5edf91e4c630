"""The admins' docs say what the code does: the settings table is the settings class's, the invite's permissions
are the code's one list, every metric the bot exports is explained (and the example alert names only real ones),
and the README points players and admins to their docs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.client import NapkinBot
from bot.config import Settings, settings_table
from bot.ops.invite import PLACEHOLDER, SCOPES, application_id, invite_url, permissions, permissions_table
from storage import Database

ROOT = Path(__file__).resolve().parents[2]
OPERATING = (ROOT / "docs" / "operating.md").read_text()


def _block(text: str, begin: str, end: str) -> str:
    start = text.index(begin)
    return text[text.index("\n", start) + 1:text.index(end, start)].strip()


def test_the_settings_table_is_the_settings_class() -> None:
    shown = _block(OPERATING, "<!-- settings:", "<!-- end of settings -->")
    assert shown == settings_table(), "regenerate the table with: python -m bot.config"
    names = [line.split("`")[1] for line in shown.splitlines()[2:]]
    assert names == [field.validation_alias for field in Settings.model_fields.values()]
    assert all(field.description for field in Settings.model_fields.values())


def test_the_docs_show_the_permissions_and_address_the_code_asks_for() -> None:
    assert _block(OPERATING, "<!-- permissions:", "<!-- end of permissions -->") == permissions_table()
    assert f"The permissions integer is `{permissions().value}`" in OPERATING
    assert invite_url() in OPERATING and f"client_id={PLACEHOLDER}" in invite_url()
    assert set(SCOPES) == {"bot", "applications.commands"} and permissions().value == 309237763072


def _napkin(*arguments: str, token: str | None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)} | ({"DISCORD_TOKEN": token} if token else {})
    return subprocess.run([sys.executable, "-m", "bot.cli", "invite-url", *arguments], cwd=ROOT / "docs", env=env,
                          capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.slow  # second processes: napkin invite-url run three times
def test_invite_url_takes_the_id_given_else_the_tokens_else_says_to_fill_it_in() -> None:
    given = _napkin("--client-id", "4242", token=None)
    assert given.returncode == 0 and given.stdout.strip() == invite_url(4242) and given.stderr == ""
    token = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDe.not-a-real-secret-at-all"  # the first part is 123456789012345678
    assert application_id(token) == 123456789012345678
    from_token = _napkin(token=token)
    assert from_token.returncode == 0 and from_token.stdout.strip() == invite_url(123456789012345678)
    for missing in (None, "not-a-token"):
        placeholder = _napkin(token=missing)
        assert placeholder.returncode == 0 and placeholder.stdout.strip() == invite_url(PLACEHOLDER)
        assert len(placeholder.stderr.splitlines()) == 1 and PLACEHOLDER in placeholder.stderr
        said = "DISCORD_TOKEN does not look like a bot token" if missing else "DISCORD_TOKEN is not set"
        assert said in placeholder.stderr, placeholder.stderr  # what is wrong, as it is


async def test_every_metric_the_bot_exports_is_explained_and_the_alert_names_only_real_ones(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "bot.db")
    try:
        bot = NapkinBot(db)
        bot.metrics.interactions.labels(command="/help", outcome="ok").inc()
        bot.metrics.interaction_seconds.labels(command="/help").observe(0.1)
        bot.metrics.errors.labels(kind="other").inc()
        exposition = bot.metrics.exposition().decode()
    finally:
        await db.close()
    families = set(re.findall(r"^# TYPE (napkin_\w+) (\w+)", exposition, re.M))
    documented = dict(re.findall(r"^\| `(napkin_\w+)` \| (\w+) \|", OPERATING, re.M))
    exported = dict(families)
    assert documented == exported
    assert "# TYPE process_resident_memory_bytes gauge" in exposition
    example = re.search(r"```yaml\n(groups:.*?)```", OPERATING, re.S)
    assert example is not None
    rules: Any = yaml.safe_load(example[1])
    named = {name for group in rules["groups"] for rule in group["rules"]
             for name in re.findall(r"napkin_\w+", rule["expr"])}
    assert named and all(name.removesuffix("_bucket") in exported for name in named)


def test_the_readme_keeps_its_first_screen_and_points_to_the_docs() -> None:
    readme = (ROOT / "README.md").read_text()
    first_screen = readme[:readme.index("---")]
    assert "make play" in first_screen and "make test" in first_screen
    assert "](docs/playing.md)" in readme and "](docs/operating.md)" in readme
    assert "](operating.md)" in (ROOT / "docs" / "playing.md").read_text()
    assert "NAPKIN_SHARD_IDS" not in readme  # the admins' material has one home


def test_the_players_docs_name_every_start_option_and_every_rest_between_uses() -> None:
    from bot.exts import match, tournament
    from bot.games import napkin_chess
    from games import GAMES

    playing = (ROOT / "docs" / "playing.md").read_text()
    for key in ("chopsticks", "differences", "groebner_nim", "napkin_chess", "polygons"):
        row = next(line for line in playing.splitlines() if line.startswith(f"| `/{GAMES[key].command} start` |"))
        assert all(f"`{option.name}`" in row for option in GAMES[key].options), (key, row)

    rests = dict(re.findall(r"^\| (.+?) \| (\d+) \|$", playing, flags=re.MULTILINE))
    assert {name: int(uses) for name, uses in rests.items()} == {
        "`/<game> start`": match.START_USES, "**Rematch** (button)": match.REMATCH_RATE,
        "`/match board`": match.BOARD_REPOSTS, "`/match history`": match.HISTORY_USES,
        "`/match review`": match.REVIEW_USES, "`/napkin free`": napkin_chess.FREE_USES,
        "`/tournament create`": tournament.CREATE_USES}
