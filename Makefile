# Set-up and everyday commands. Everything installs into ./.venv with pinned versions (constraints.txt).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: serve test lint typecheck unit e2e clean bench fuzz

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'
	touch $(STAMP)

serve: $(STAMP)
	$(BIN)/kubelite serve $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check kubelite tests bench

# mypy over kubelite/, configured in pyproject.toml ([tool.mypy]); its cache keeps a re-run to a second or two
typecheck: $(STAMP)
	$(BIN)/mypy

test: $(STAMP) lint typecheck
	$(BIN)/pytest -q -n 2 --dist loadfile tests

unit: $(STAMP)
	$(BIN)/pytest -q tests/unit

e2e: $(STAMP)
	$(BIN)/pytest -q -n 2 --dist loadfile tests/e2e

bench: $(STAMP)
	bash bench/prepare.sh $(PYTHON) && $(BIN)/python -m bench $(ARGS)

# a few minutes of property-based requests against a real server, from the OpenAPI it serves (not in `test`)
fuzz: $(STAMP)
	$(BIN)/python -m bench.fuzz $(ARGS)

clean:
	rm -rf $(VENV) kubelite-data .mypy_cache
