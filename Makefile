# Every target creates .venv itself on first use.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PLAYERS ?= alice,bob
# Playwright drives Debian's chromium; it must never fetch a browser of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1

.PHONY: play demo run test lint bench arena clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[play,test,bench]'
	touch $(STAMP)

play: $(STAMP)
	$(VENV)/bin/napkin play --players $(PLAYERS)

demo: $(STAMP)
	$(VENV)/bin/napkin demo

run: $(STAMP)
	$(VENV)/bin/napkin run

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy games renderers storage bot
	$(VENV)/bin/lint-imports

test: lint
	$(PY) -m pytest -q

bench: $(STAMP)
	$(VENV)/bin/napkin bench

# Computer players against each other (bench/arena.py), niced: make arena ARGS="--game polygons --games 200"
arena: $(STAMP)
	nice -n 10 $(PY) -m bench.arena $(ARGS)

clean:
	rm -rf $(VENV) demo-out bench/results.json browser-shots
