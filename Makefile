# Every target creates .venv itself on first use.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PLAY_STAMP := $(VENV)/.installed-play
PLAYERS ?= alice,bob
LOCALE ?= en-US
# Playwright drives Debian's chromium; it must never fetch a browser of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1

.PHONY: play demo run test test-fast test-deps lint bench arena lock clean catalogs

# Everything: the bot, napkin play, the tests and the benchmarks.
$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[play,test,bench]'
	touch $(STAMP)

# Only what napkin play needs (the bot and the play extra): no test tools, no browser, no PostgreSQL.
$(PLAY_STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[play]'
	touch $(PLAY_STAMP)

play: $(PLAY_STAMP)
	$(VENV)/bin/napkin play --players $(PLAYERS) --locale $(LOCALE)

demo: $(PLAY_STAMP)
	$(VENV)/bin/napkin demo

run: $(PLAY_STAMP)
	$(VENV)/bin/napkin run

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy games renderers storage bot i18n
	$(VENV)/bin/lint-imports

# The catalogs in step with the code: Babel's extractor (babel.cfg) writes i18n/napkin.pot, then every shipped
# language's i18n/locales/<locale>/LC_MESSAGES/napkin.po is updated from it (new ids arrive untranslated).
catalogs: $(STAMP)
	$(PY) -m i18n.catalogs

# Chromium and PostgreSQL's server first (installed when missing and root; otherwise one line saying how, and stop).
test-deps:
	bash scripts/install-test-deps.sh

# The suite in TEST_WORKERS processes (pytest-xdist), each test file kept in one of them (its module fixtures:
# a browser, a PostgreSQL cluster).
TEST_WORKERS ?= 2
test: test-deps
	$(MAKE) --no-print-directory lint
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile

# The quick loop: ruff (a second), then every test not marked slow, in FAST_WORKERS processes (three: its tests wait
# on SimCord and subprocesses as much as they compute, so a third process fills two CPUs): under 3 minutes on 2 CPUs. Slow are the strength matches and equivalence checks (the computer's levels played out, reviews and exact
# searches against independent implementations over thousands of cases, the shipped puzzles), the browser suite and
# the fault suites (a real PostgreSQL server killed, second processes, SIGKILLs). It installs no system package:
# without PostgreSQL's server binaries its tests are skipped (make test-deps installs them). mypy and the import
# contracts are make lint's; make test runs everything.
FAST_WORKERS ?= 3
test-fast: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q -n $(FAST_WORKERS) --dist loadfile -m "not slow"

# The benchmarks (bench/): make bench, or some of them: make bench ARGS="--only boards --only backends"
bench: $(STAMP)
	$(PY) -m bench $(ARGS)

# Computer players against each other (bench/arena.py), niced: make arena ARGS="--game polygons --games 200"
arena: $(STAMP)
	nice -n 10 $(PY) -m bench.arena $(ARGS)

# The container's Python dependencies, pinned with their hashes: the main dependencies, the postgres extra and what
# building the package takes (setuptools), resolved for this Python (3.11, as the image's). Run it after changing a
# dependency in pyproject.toml; tests/ops/test_container.py fails until the two agree.
lock: $(STAMP)
	$(PY) -m pip install --quiet -e '.[lock]'
	$(VENV)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --no-emit-index-url --no-emit-find-links \
		--extra postgres --strip-extras --build-deps-for wheel --output-file requirements.lock pyproject.toml

clean:
	rm -rf $(VENV) demo-out bench/results.json browser-shots
