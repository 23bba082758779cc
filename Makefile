# The project's commands. `make serve` and `make test` are the two the README promises.
SHELL := /bin/bash
VENV  := .venv
PY    := $(VENV)/bin/python
PORT  ?= 8000
export NO_MKDOCS_2_WARNING := 1
# Chromium's profile and caches stay inside the project.
export XDG_CONFIG_HOME := $(CURDIR)/.tmp/xdg-config
export XDG_CACHE_HOME  := $(CURDIR)/.tmp/xdg-cache

.PHONY: setup site serve dev check test bench i18n clean

setup: $(VENV)/.installed node_modules/.installed

# torch is pinned to the CPU build that lies on disk here; other versions download gigabytes.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0 numpy
	$(PY) -m pip install --quiet -e ".[site,pilot,test]"
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

site: setup
	$(PY) -m mkdocs build --strict

# Serves the built folder as any static host would (no live reload; `make dev` has it).
serve: site
	@echo "Serving site/ at http://127.0.0.1:$(PORT)/ (es), /ja/, /ar/"
	$(PY) -m http.server $(PORT) --bind 127.0.0.1 --directory site

dev: setup
	$(PY) -m mkdocs serve --dev-addr 127.0.0.1:$(PORT)

# The fast tier for day-to-day work: no browser, no slow multi-process runs, 500 property examples.
check: setup
	GUIDE_MAX_EXAMPLES=500 $(PY) -m pytest -q -m "not browser and not slow"

test: setup
	@command -v chromium >/dev/null || { echo "Chromium is missing: install it with 'sudo apt-get install chromium fonts-noto-cjk fonts-noto-core'"; exit 1; }
	$(PY) -m pytest

bench: setup
	$(PY) -m benchmarks

i18n: setup
	$(PY) -m guidebuild.i18n_cli update

clean:
	rm -rf site .tmp test-artifacts
