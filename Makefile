# Two commands matter (see README): `make synth` writes dist/, `make test` runs the suite.
# Both install what they need first: a Python venv (.venv) and the npm toolchain (node_modules,
# with Node 22 LTS for jsii and cdk8s-cli).
PYTHON ?= python3
BIN := .venv/bin
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
export JSII_NODE := $(CURDIR)/node_modules/.bin/node
export CDK8S_CHECK_UPGRADE := false
CRDS ?= ../shared/upstream/crds
# Validation reads the v1.14.1 CRDs from here instead of downloading them.
export KARPENTER_GPU_CRDS ?= $(abspath $(CRDS))

.PHONY: deps synth test test-packaging snapshots imports clean bench

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv .venv
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

deps: $(BIN)/.installed node_modules/.installed

synth: deps  ## write dist/<environment>/ from stacks/ (all-or-nothing)
	$(BIN)/python main.py

test: deps  ## validate dist/, then the test suite (fails on stale dist/ or snapshots) on every core
	$(BIN)/karpenter-gpu validate dist
	$(BIN)/python -m pytest -n auto --dist loadfile

test-packaging: deps  ## the wheel, installed into a fresh venv outside the checkout (a separate CI step)
	$(BIN)/python -m pytest -m packaging

snapshots: deps  ## accept snapshot changes after reviewing them
	$(BIN)/python -m pytest --snapshot-update

imports: deps  ## regenerate imports/ offline from a local CRD folder
	$(BIN)/python tools/regen_imports.py $(CRDS)

bench: deps  ## time synth, validate and the simulator against their floors (see BENCHMARKS.md)
	$(BIN)/python tools/bench.py

clean:
	rm -rf .venv node_modules build *.egg-info
