"""scripts/install-test-deps.sh, the first step of ``make test`` and ``.ci/run``: its decisions on a stand-in machine
(a folder standing in for /, and a PATH of stand-in programs: ``id`` says who runs it, ``apt-get`` records what it
was asked and "installs" into the folder)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-test-deps.sh"
BASH = "/bin/bash"


def _program(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{BASH}\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


class Machine:
    """A stand-in machine: ``root`` for /, ``bin`` for the PATH, ``log`` for what apt-get was asked."""

    def __init__(self, base: Path, *, uid: int, chromium: bool, postgres: bool, apt: str | None = "installs") -> None:
        self.root, self.bin, self.log = base / "root", base / "bin", base / "apt.log"
        self.root.mkdir()
        self.bin.mkdir()
        _program(self.bin, "id", f'[ "$1" = "-u" ] && echo {uid}')
        if chromium:
            _program(self.root, "usr/bin/chromium", "exit 0")
        if postgres:
            _program(self.root, "usr/lib/postgresql/16/bin/pg_ctl", "exit 0")
        if apt is not None:
            install = "\n".join(
                f'[ "$p" = {package} ] && /bin/mkdir -p {self.root}/{folder} && /bin/touch {self.root}/{folder}/{name}'
                f' && /bin/chmod +x {self.root}/{folder}/{name}'
                for package, folder, name in (("chromium", "usr/bin", "chromium"),
                                              ("postgresql", "usr/lib/postgresql/16/bin", "pg_ctl")))
            install = f'for p in "$@"; do\n{install}\ndone; true' if apt == "installs" else ""
            _program(self.bin, "apt-get", f'echo "$*" >> {self.log}\n{install}')

    def run(self) -> subprocess.CompletedProcess[str]:
        env = {"PATH": str(self.bin), "NAPKIN_SYSTEM_ROOT": str(self.root)}
        return subprocess.run([BASH, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60, check=False)

    def asked(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


def test_everything_present_is_one_line_and_nothing_installed(tmp_path: Path) -> None:
    machine = Machine(tmp_path, uid=1000, chromium=True, postgres=True)
    done = machine.run()
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.splitlines() == [
        f"test dependencies: Chromium ({machine.root}/usr/bin/chromium) and PostgreSQL's server "
        f"({machine.root}/usr/lib/postgresql/16/bin) are installed"]
    assert machine.asked() == []


@pytest.mark.parametrize(("chromium", "postgres", "missing"), [
    (False, False, "chromium postgresql"), (False, True, "chromium"), (True, False, "postgresql")])
def test_without_root_one_line_says_what_to_install_and_how(tmp_path: Path, chromium: bool, postgres: bool,
                                                            missing: str) -> None:
    machine = Machine(tmp_path, uid=1000, chromium=chromium, postgres=postgres)
    done = machine.run()
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"make test needs {missing} (Debian packages); install them with: sudo apt-get update && sudo apt-get "
        f"install -y --no-install-recommends {missing}"]
    assert machine.asked() == []


def test_as_root_apt_get_installs_only_what_is_missing(tmp_path: Path) -> None:
    machine = Machine(tmp_path, uid=0, chromium=True, postgres=False)
    done = machine.run()
    assert done.returncode == 0, done.stderr
    assert machine.asked() == ["update -q", "install -y --no-install-recommends postgresql -q"]
    assert done.stdout.splitlines()[-1] == "test dependencies: installed postgresql"
    assert (machine.root / "usr/lib/postgresql/16/bin/pg_ctl").exists()


def test_as_root_an_install_that_did_not_bring_them_fails(tmp_path: Path) -> None:
    machine = Machine(tmp_path, uid=0, chromium=False, postgres=False, apt="does nothing")
    done = machine.run()
    assert done.returncode == 1
    assert machine.asked() == ["update -q", "install -y --no-install-recommends chromium postgresql -q"]
    assert "still missing" in done.stderr


def test_as_root_without_apt_get_says_to_use_the_package_manager(tmp_path: Path) -> None:
    machine = Machine(tmp_path, uid=0, chromium=False, postgres=True, apt=None)
    done = machine.run()
    assert done.returncode == 1 and "no apt-get" in done.stderr and len(done.stderr.splitlines()) == 1


def test_make_test_stops_before_any_test_when_the_script_refuses(tmp_path: Path) -> None:
    machine = Machine(tmp_path, uid=1000, chromium=False, postgres=True)
    venv = tmp_path / "venv"
    env = {"PATH": f"{machine.bin}:/usr/bin:/bin", "NAPKIN_SYSTEM_ROOT": str(machine.root),
           "HOME": os.environ.get("HOME", str(tmp_path))}
    done = subprocess.run(["make", "-C", str(ROOT), "test", f"VENV={venv}"], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode != 0
    assert "make test needs chromium (Debian packages); install them with: sudo apt-get update && sudo apt-get " \
           "install -y --no-install-recommends chromium" in done.stderr.splitlines()
    assert not venv.exists() and "pytest" not in done.stdout + done.stderr  # nothing was installed, no test ran
