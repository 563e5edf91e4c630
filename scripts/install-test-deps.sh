#!/usr/bin/env bash
# What the tests need from the system, installed when missing: Debian's Chromium (the browser tests drive it with
# Playwright, which never downloads a browser) and PostgreSQL's server binaries (the storage tests start throwaway
# clusters with them). `make test` and `.ci/run` run this first.
#
# Everything present: one line saying so, exit 0. Something missing and running as root: apt-get installs it.
# Something missing and not root: one line naming what to install and the exact command, exit 1 (no test runs).
#
# NAPKIN_CHROMIUM names another Chromium (as the browser tests read it); NAPKIN_SYSTEM_ROOT is a folder standing in
# for / (the script's own test uses it with a folder of stand-in programs).
set -euo pipefail

root="${NAPKIN_SYSTEM_ROOT:-}"
chromium="${NAPKIN_CHROMIUM:-$root/usr/bin/chromium}"

postgres_bin() {
    local found
    for found in "$root"/usr/lib/postgresql/*/bin/pg_ctl; do
        if [ -x "$found" ]; then
            echo "${found%/pg_ctl}"
            return 0
        fi
    done
    found="$(command -v pg_ctl 2>/dev/null || true)"
    echo "${found%/pg_ctl}"
}

missing=()
[ -x "$chromium" ] || missing+=(chromium)
pg="$(postgres_bin)"
[ -n "$pg" ] || missing+=(postgresql)

if [ "${#missing[@]}" -eq 0 ]; then
    echo "test dependencies: Chromium ($chromium) and PostgreSQL's server ($pg) are installed"
    exit 0
fi

install=(apt-get install -y --no-install-recommends "${missing[@]}")
if [ "$(id -u)" != "0" ]; then
    echo "make test needs ${missing[*]} (Debian packages); install them with: sudo apt-get update && sudo ${install[*]}" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "make test needs ${missing[*]} and this machine has no apt-get: install Chromium and PostgreSQL's server" \
         "binaries with its package manager" >&2
    exit 1
fi
echo "test dependencies: installing ${missing[*]} with apt-get"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
"${install[@]}" -q
[ -x "$chromium" ] && [ -n "$(postgres_bin)" ] || {
    echo "apt-get ran, but Chromium or PostgreSQL's server binaries are still missing" >&2
    exit 1
}
echo "test dependencies: installed ${missing[*]}"
