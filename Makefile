# The two set-up commands of the README: `make run` and `make test`. Each creates .venv itself.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SAMPLE := google_bleu/samples/wmt17_en_de

.PHONY: run test check lint bench clean app browser java docs

# Every environment is installed by uv (seconds where pip took minutes: it links what its cache
# holds), itself installed from PyPI into the environment by pip. uv looks for wheels on disk
# where pip is told to (PIP_FIND_LINKS: this machine's CPU build of torch, for torch==2.13.0).
FIND_LINKS = $(if $(PIP_FIND_LINKS),--find-links $(PIP_FIND_LINKS))
# $(call install,ENV,WHAT): ENV made with uv in it where it has none, then WHAT installed by uv.
define install
	test -x $(1)/bin/uv || { $(PYTHON) -m venv $(1) && $(1)/bin/python -m pip install --quiet uv; }
	$(1)/bin/uv pip install --quiet --python $(1)/bin/python $(FIND_LINKS) $(2)
endef

$(VENV)/.run-installed: pyproject.toml
	$(call install,$(VENV),-e '.[evaluate]')
	touch $@

$(VENV)/.test-installed: pyproject.toml
	$(call install,$(VENV),-e '.[test]')
	touch $(VENV)/.run-installed $(VENV)/.app-installed $@

# Scores the bundled real WMT17 sample (4 systems against the human reference) as JSON, then
# says where the command is (on standard error: standard output stays the JSON).
run: $(VENV)/.run-installed
	$(PY) -m google_bleu $(SAMPLE)/ref0.txt -i $(SAMPLE)/sys_*.txt
	@echo "The command is $(VENV)/bin/google-bleu (on the path after: source $(VENV)/bin/activate)." >&2

# Lint, the whole suite in .venv on both cores (then its 20 slowest tests, to see where the time
# goes; tests/conftest.py says how they are shared out), then each framework's tests in its own
# environment (below), two at a time. See the README for what it installs and how long it takes;
# `make check` is the fast tier.
TEST_WORKERS ?= 2
test: $(VENV)/.test-installed browser
	$(PY) -m ruff check .
	GOOGLE_BLEU_BROWSER=$(BROWSER) $(PY) -m pytest -n $(TEST_WORKERS) --durations=20
	$(MAKE) -j$(TEST_WORKERS) --output-sync=target frameworks

# Frameworks whose pins conflict with the main test environment, each tested against the real
# package in its own virtual environment (.venvs/<name>), built from
# tests/frameworks/<name>/requirements.txt, then this package, then no-deps.txt installed with
# --no-deps where the framework's full dependency set needs a GPU stack (last, so that nothing is
# checked against the dependencies left out on purpose). Each runs the tests in
# tests/frameworks/<name>/.
FRAMEWORKS := $(patsubst tests/frameworks/%/requirements.txt,%,$(wildcard tests/frameworks/*/requirements.txt))

# slime and ROLL are not on PyPI: their tests import a checkout (the release tag's source tree),
# by default the one in ../shared/frameworks beside the clone. Without it their environment is
# not built and their tests are skipped, saying why (a failure under CI=true).
SLIME_SOURCE ?= $(abspath ../shared/frameworks/slime-0.3.1)
ROLL_SOURCE ?= $(abspath ../shared/frameworks/roll-0.3.0)
export SLIME_SOURCE ROLL_SOURCE
CHECKOUT_slime := SLIME_SOURCE
CHECKOUT_roll := ROLL_SOURCE
UNCHECKED := $(foreach name,slime roll,$(if $(wildcard $($(CHECKOUT_$(name)))/setup.py),,$(name)))

# Built afresh when the framework's requirements change; when only pyproject.toml (or no-deps.txt)
# does, the package and the wheel are installed again into the environment as it is. .venv's uv
# builds them (pip took 40-120 s an environment on 2 cores, uv 3-13 s).
UV := $(VENV)/bin/uv
UV_INSTALL = $(UV) pip install --quiet --python .venvs/$*/bin/python $(FIND_LINKS)

.venvs/%/.requirements: tests/frameworks/%/requirements.txt | $(VENV)/.test-installed
	rm -rf .venvs/$*
	$(UV) venv --quiet --python $(PYTHON) .venvs/$*
	$(UV_INSTALL) -r $<
	touch $@

.PRECIOUS: .venvs/%/.requirements
.SECONDEXPANSION:
.venvs/%/.installed: .venvs/%/.requirements pyproject.toml $$(wildcard tests/frameworks/$$*/no-deps.txt)
	$(UV_INSTALL) -e .
	if [ -f tests/frameworks/$*/no-deps.txt ]; then $(UV_INSTALL) --no-deps -r tests/frameworks/$*/no-deps.txt; fi
	touch $@

# The longest first (as measured on 2 cores), so that two at a time end together.
LONGEST_FIRST := verl verifiers openrlhf slime spark areal roll lighteval torchmetrics-oldest
.PHONY: frameworks $(FRAMEWORKS:%=framework-%)
frameworks: $(patsubst %,framework-%,$(foreach name,$(LONGEST_FIRST),$(filter $(name),$(FRAMEWORKS))) $(filter-out $(LONGEST_FIRST),$(FRAMEWORKS)))

# Spark runs on a Java runtime (make java, below).
framework-spark: java

# Static pattern rules: make skips implicit-rule search for phony targets, so a plain
# `framework-%:` pattern would never run.
$(filter-out $(UNCHECKED:%=framework-%),$(FRAMEWORKS:%=framework-%)): framework-%: .venvs/%/.installed
	GOOGLE_BLEU_FRAMEWORK=$* .venvs/$*/bin/python -m pytest -p no:cacheprovider \
		--confcutdir=tests/frameworks/$* --rootdir=. tests/frameworks/$*

$(UNCHECKED:%=framework-%): framework-%:
	@reason="$* is not on PyPI and $(CHECKOUT_$*)=$($(CHECKOUT_$*)) is no checkout of it"; \
	if [ "$$CI" = true ]; then echo "framework-$*: CI must run these tests, but $$reason" >&2; exit 1; fi; \
	echo "framework-$*: skipped (its environment is not built): $$reason"

# The fast tier for the development loop, in its own environment (.venv-check: the base install
# and the `check` extra's test tools, no torch, gradio, evaluate, ray or trl): lint and every
# test not marked slow (no browser, Space load test, Ray cluster, process groups, training step,
# docs build or framework environment). The tests that need an optional package are skipped,
# each saying which (conftest.py); `make test` runs them all. 1m39s from a fresh clone, install
# included, on 2 cores (the README says how it was measured).
CHECK_VENV := .venv-check

$(CHECK_VENV)/.installed: pyproject.toml
	$(call install,$(CHECK_VENV),-e '.[check]')
	touch $@

check: $(CHECK_VENV)/.installed
	$(CHECK_VENV)/bin/python -m ruff check .
	$(CHECK_VENV)/bin/python -m pytest -n $(TEST_WORKERS) -m "not slow" -q

# Anchors (nltk, sacrebleu, an HF-equivalent evaluate module) and ours on the same data;
# writes benchmarks/results/{table.md,results.json,growth.png}; then the batched token-id
# GLEU (torch) against a loop of nltk sentence_gleu. About 12 minutes on 2 cores.
$(VENV)/.bench-installed: pyproject.toml $(VENV)/.test-installed
	$(call install,$(VENV),-e '.[test,bench]')
	touch $@

# The per-sample curve: one sample a call to 4,096 (text and token ids) against the nltk loop,
# and the crossover of the engine's two counting strategies; writes benchmarks/results/small.json
# and small.png. About two minutes on 2 cores.
.PHONY: bench-small
bench-small: $(VENV)/.bench-installed
	$(PY) benchmarks/bench_small.py

.PHONY: bench-cli
bench-cli: $(VENV)/.bench-installed
	$(PY) benchmarks/bench_cli.py

.PHONY: bench-batched
bench-batched: $(VENV)/.bench-installed
	$(PY) benchmarks/bench_batched.py

# Pairwise GLEU (MBR, all N x N pairs) against loops of nltk and sacrebleu; writes
# benchmarks/results/pairwise.json. About 2 minutes on 2 cores.
.PHONY: bench-pairwise
bench-pairwise: $(VENV)/.bench-installed
	$(PY) benchmarks/bench_pairwise.py
# MBR with reference aggregation against exact MBR: cost at N = 64..4096 and agreement on
# every WMT17 segment; writes benchmarks/results/mbr_aggregate.json. About a minute on 2 cores.
.PHONY: bench-mbr
bench-mbr: $(VENV)/.bench-installed
	$(PY) benchmarks/bench_mbr_aggregate.py
# Throughput against workers for --jobs and Ray Data, and the 10M-line memory run (a few minutes).
.PHONY: bench-scale
bench-scale: $(VENV)/.bench-installed
	$(PY) benchmarks/bench_scale.py

# The command line with --jobs 1 and 2 on 1, 16 and 100 WMT17 systems and one 400,000-line
# file, and the Ray Data, Daft and Spark recipes on that file with every CPU (Daft and Spark in
# their own environments, Spark on Java: make java); writes benchmarks/results/jobs.json. About
# seven minutes on 2 cores.
.PHONY: bench-jobs
bench-jobs: $(VENV)/.bench-installed .venvs/daft/.installed .venvs/spark/.installed java
	$(PY) benchmarks/bench_jobs.py --ray --daft --spark

# The gathered veRL reward against the per-sample one inside veRL 0.9.1's own reward loop (8 and
# 64 concurrent calls, CPU), after veRL's own tests (make framework-verl); writes
# benchmarks/results/gather.json and the table in docs/rl-rewards.md. Runs in veRL's framework
# environment, .venvs/verl (tests/frameworks/verl/requirements.txt and no-deps.txt). Under a
# minute to build and under a minute to run, on 2 cores.
.PHONY: bench-gather
bench-gather: framework-verl .venvs/verl/.installed
	.venvs/verl/bin/python benchmarks/bench_gather.py
	.venvs/verl/bin/python benchmarks/report.py

bench: $(VENV)/.bench-installed
	$(PY) -m benchmarks.run
	$(MAKE) bench-small
	$(MAKE) bench-cli
	$(MAKE) bench-jobs
	$(MAKE) bench-batched
	$(MAKE) bench-pairwise
	$(MAKE) bench-mbr
	$(MAKE) bench-scale
	$(MAKE) bench-gather
	$(PY) benchmarks/report.py


$(VENV)/.app-installed: pyproject.toml
	$(call install,$(VENV),-e '.[evaluate,app]')
	touch $@

# The Space on http://127.0.0.1:7860 (GRADIO_SERVER_NAME / GRADIO_SERVER_PORT change it).
app: $(VENV)/.app-installed
	GRADIO_ANALYTICS_ENABLED=False $(PY) app.py

# A Debian package that tests need, never a downloaded build: $(call debian_package,SWITCH,is it
# there,package,the tests). Where it is missing and make runs as root, it is installed with
# apt-get (a change to the system, announced first); otherwise the tests skip with the reason
# (and fail under CI=true). SWITCH=0 installs nothing, and the tests skip, saying so.
define debian_package
@if [ "$($(1))" = 0 ]; then echo "$(1)=0: $(3) is not installed and $(4) skipped"; \
elif $(2); then :; \
elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	echo "installing Debian's $(3) for $(5): apt-get install $(3), as root (make test $(1)=0 skips it)"; \
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(3)) >/tmp/google-bleu-$(3).log 2>&1 \
		|| echo "could not install $(3) (see /tmp/google-bleu-$(3).log); $(5) will skip"; \
else echo "$(3) not found and not root: $(5) will skip"; fi
endef

# Debian's chromium for the browser test (`make test BROWSER=0`: none, and no browser test).
BROWSER ?= 1
browser:
	$(call debian_package,BROWSER,[ -x /usr/bin/chromium ],chromium,the browser test is,the browser test)

# Debian's Java runtime for the Spark tests (`make test JAVA=0`: none; without java they skip).
JAVA ?= 1
java:
	$(call debian_package,JAVA,command -v java >/dev/null 2>&1,openjdk-17-jre-headless,the Spark tests are,the Spark tests)

# The documentation site in site/: performance tables regenerated from benchmarks/results,
# then a strict build (a broken link or reference fails).
$(VENV)/.docs-installed: pyproject.toml
	$(call install,$(VENV),-e '.[docs]')
	touch $@

docs: $(VENV)/.docs-installed
	$(PY) benchmarks/report.py
	$(PY) -m mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) $(CHECK_VENV) .venvs build *.egg-info .pytest_cache .hypothesis .ruff_cache site
