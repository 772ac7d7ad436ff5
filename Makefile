# The two set-up commands of the README: `make run` and `make test`. Each creates .venv itself.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SAMPLE := google_bleu/samples/wmt17_en_de

.PHONY: run test lint bench clean

$(VENV)/.run-installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(VENV)/.run-installed $@

# Scores the bundled real WMT17 sample (4 systems against the human reference) as JSON.
run: $(VENV)/.run-installed
	$(PY) -m google_bleu $(SAMPLE)/ref0.txt -i $(SAMPLE)/sys_*.txt

test: $(VENV)/.test-installed
	$(PY) -m ruff check .
	$(PY) -m pytest

# Anchors (nltk, sacrebleu, an HF-equivalent evaluate module) and ours on the same data;
# writes benchmarks/results/{table.md,results.json,growth.png}; then the batched token-id
# GLEU (torch) against a loop of nltk sentence_gleu. About 12 minutes on 2 cores.
$(VENV)/.bench-installed: pyproject.toml $(VENV)/.test-installed
	$(PY) -m pip install --quiet -e '.[test,bench]'
	touch $@

.PHONY: bench-batched
bench-batched: $(VENV)/.bench-installed
	$(PY) benchmarks/bench_batched.py

bench: $(VENV)/.bench-installed
	$(PY) -m benchmarks.run
	$(MAKE) bench-batched

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis .ruff_cache
