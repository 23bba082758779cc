# The project's commands. `make serve` and `make test` are the two the README promises.
SHELL := /bin/bash
VENV  := .venv
PY    := $(VENV)/bin/python
PORT  ?= 8000
# The address the site is published at: canonical URLs and the sitemap name it. The build itself
# works from any origin and path, e.g. `make site SITE_URL=https://example.org/guia/`.
SITE_URL ?= http://127.0.0.1:$(PORT)/
export SITE_URL
export NO_MKDOCS_2_WARNING := 1
# Chromium's profile and caches stay inside the project.
export XDG_CONFIG_HOME := $(CURDIR)/.tmp/xdg-config
export XDG_CACHE_HOME  := $(CURDIR)/.tmp/xdg-cache

.PHONY: setup setup-site site serve dev lint types check test bench i18n clean from-wheels

# The site needs only the `site` extra; the tests also need the pilot's torch and the test tools.
setup-site: $(VENV)/.site node_modules/.installed
setup: setup-site $(VENV)/.installed

# Two distributions, installed in place: the generator (generator/), then this guide, which needs it.
$(VENV)/.site: pyproject.toml generator/pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e "./generator[site]" -e ".[site]"
	touch $@

# torch is pinned to the CPU build that lies on disk here; other versions download gigabytes.
$(VENV)/.installed: $(VENV)/.site
	$(PY) -m pip install --quiet torch==2.13.0 numpy==2.4.6
	$(PY) -m pip install --quiet -e "./generator[site]" -e ".[site,pilot,test]"
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

site: setup-site
	$(PY) -m mkdocs build --strict

# Serves the built folder as a configured static host would: the precompressed .br/.gz files with
# Content-Encoding (no live reload; `make dev` has it).
serve: site
	@echo "Serving site/ at http://127.0.0.1:$(PORT)/ (es), /ja/, /ar/"
	$(PY) -m guidekit.site.serve site --port $(PORT) --bind 127.0.0.1

dev: setup-site
	$(PY) -m mkdocs serve --dev-addr 127.0.0.1:$(PORT)

# The fast tier for day-to-day work (about 90 s of CPU time, under a minute on two workers): no browser,
# no site or wheel build (`build`: plugin events are called directly instead), no pilot training or
# multi-process runs (`slow`), 500 property examples. `make test` runs everything.
check: setup lint types
	GUIDE_MAX_EXAMPLES=500 $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup -m "not browser and not slow and not build"

# ruff's rules and settings are in pyproject.toml; `ruff check --fix` sorts imports and `ruff format`
# lays the code out (`make lint` fails on code it would change).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# mypy's settings (strict, on the calculators and the pilot's result leaf) are in pyproject.toml.
types: setup
	$(VENV)/bin/mypy

# How many random inputs the sampling tests draw (the property tests' Hypothesis examples, the
# CPython-Pyodide parity's sets per calculator). Every behaviour is tested at any size; CI (.ci/run)
# draws the full 10,000 and 500, a contributor's `make test` fewer.
TEST_EXAMPLES ?= 2000
TEST_PARITY_SETS ?= 150
# Two pytest-xdist workers, a locale's browser tests kept together in one (tests/conftest.py): the
# suite is CPU-bound, and one process alone left a core idle whenever Chromium waited.
TEST_WORKERS ?= 2

test: setup
	@test -n "$$GUIDE_CHROMIUM" || command -v chromium-headless-shell >/dev/null || { echo "Chromium's headless shell is missing: install it with 'sudo apt-get install chromium-headless-shell fonts-noto-cjk fonts-noto-core'"; exit 1; }
	@command -v msgcat >/dev/null || { echo "GNU gettext is missing (the catalog tests use msgfmt and msgcat): install it with 'sudo apt-get install gettext'"; exit 1; }
	GUIDE_MAX_EXAMPLES=$(TEST_EXAMPLES) GUIDE_PARITY_SETS=$(TEST_PARITY_SETS) $(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=25

bench: setup benchmarks/lighthouse/node_modules/.installed
	$(PY) -m benchmarks

# Lighthouse only for `make bench`: the site and the tests do without its 146 packages.
benchmarks/lighthouse/node_modules/.installed: benchmarks/lighthouse/package.json benchmarks/lighthouse/package-lock.json
	npm ci --prefix benchmarks/lighthouse --no-audit --no-fund
	touch $@

i18n: setup-site
	$(PY) -m guidekit.i18n.generator_strings generator
	$(PY) -m guidekit.i18n update

# This guide as another author's would build: the generator and the guide installed from their wheels
# (no editable install, -I: no checkout on the path) in a clean virtual environment, built under
# --strict, its pages then compared with the usual build's (examples/heat-pump gets the same in the
# tests: tests/site/test_example_guide.py). CI runs it after `make test`.
# The runtime's names carry digests of the wheels (and the snapshot's bytes differ between any two builds:
# guidekit/runtime/snapshot.py), so the pages are compared with those names made one.
SAME_RUNTIME = s\#assets/calc/[0-9a-f]+/\#assets/calc/H/\#g; s\#runtime-[0-9a-f]+\.pyodide-snapshot\#runtime-H.pyodide-snapshot\#g
from-wheels: site
	rm -rf .tmp/wheels && python3 -m venv .tmp/wheels/venv
	.tmp/wheels/venv/bin/pip install --quiet "./generator[site]" ".[site]"
	.tmp/wheels/venv/bin/python -I -c "import guidekit, calculators, sys; \
	  sys.exit(any(not m.__file__.startswith('$(CURDIR)/.tmp/wheels/venv') for m in (guidekit, calculators)))"
	env -u PYTHONPATH .tmp/wheels/venv/bin/python -I -m mkdocs build --strict -q -d .tmp/wheels/site
	diff -r -q -x '*.whl' -x '*.pyodide-snapshot' -x '*.br' -x '*.gz' -x 'sw.js' -x '*.html' site .tmp/wheels/site
	diff <(cd site && find . -name '*.html' | sort | xargs sed -E "$(SAME_RUNTIME)") \
	     <(cd .tmp/wheels/site && find . -name '*.html' | sort | xargs sed -E "$(SAME_RUNTIME)")
	rm -rf build generator/build   # pip's in-tree builds
	@echo "the guide built from its wheels is the same site"

clean:
	rm -rf site .tmp test-artifacts
