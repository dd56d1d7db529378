# groundbench: `make run` sets up and runs the default experiment; `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ARGS ?=

# The grounding regression gate: the ci suite (one task per fixture case) against a committed baseline.
GATE_RUN := $(BIN)/groundbench suite=ci perception=synthetic 'seeds=[0,1]' trace.playwright=false
GATE_DIR ?= runs/gate
BASELINE := tests/baselines/ci.json

.PHONY: setup browser run test test-all unit docs gate ci-baseline report lint proof clean \
	bench-overhead bench-concurrency bench-memory bench-peer bgym-venv

setup: $(VENV)/.installed browser

# rapidocr pulls the GUI build of OpenCV; reinstalling the headless build makes it own cv2.

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -e '.[dev,ocr]'
	$(BIN)/pip install -q --force-reinstall --no-deps opencv-python-headless
	touch $@

browser: $(VENV)/.installed
	$(BIN)/python -m harness.setup_browser

# Without ARGS: the first look (experiment=first_look: full and naive side by side on the smoke
# tasks, then the report's table and Pareto plot); with ARGS: one run with those overrides.
FIRST_LOOK ?= runs/first-look

run: setup
ifeq ($(strip $(ARGS)),)
	rm -rf $(FIRST_LOOK)
	$(BIN)/groundbench -m experiment=first_look hydra.sweep.dir=$(FIRST_LOOK)
	$(BIN)/groundbench-report $(FIRST_LOOK)
else
	$(BIN)/groundbench $(ARGS)
endif

test: unit docs gate

# Two pytest workers per core (pytest-xdist), an idle worker taking tests queued on a busy one:
# the browser tests mostly wait on their pages (on 2 cores: 13.7 min against 21.7 with one per core).
WORKERS ?= $(shell echo $$(( $$(nproc) * 2 )))

unit: setup
	$(BIN)/python -m pytest -q -n $(WORKERS) --dist worksteal -m "not slow and not ray"

# The documentation site (mkdocs.yml, docs/); strict, so a broken link or a page left out of nav fails.
docs: setup
	$(BIN)/mkdocs build --strict -q -d runs/site

test-all: setup
	$(BIN)/pip install -q -e '.[dev,ocr,ray]'
	$(BIN)/python -m pytest -q
	$(MAKE) gate

gate: setup
	rm -rf $(GATE_DIR)
	$(GATE_RUN) hydra.run.dir=$(GATE_DIR)
	$(BIN)/groundbench-check $(GATE_DIR) --baseline $(BASELINE) --slack-calls 1

ci-baseline: setup
	rm -rf $(GATE_DIR)
	$(GATE_RUN) hydra.run.dir=$(GATE_DIR)
	$(BIN)/groundbench-check $(GATE_DIR) --baseline $(BASELINE) --update --command "make ci-baseline"

report: setup
	$(BIN)/groundbench-report $(ARGS)

lint: setup
	$(BIN)/ruff check .

proof: setup
	$(BIN)/python -m harness.proof $(ARGS)

# Performance benchmarks (README, "Performance"): figures into runs/bench/NAME.json and .png.
bench-overhead: setup
	$(BIN)/python -m harness.bench.overhead --plot runs/bench/overhead.png $(ARGS)

bench-concurrency: setup
	$(BIN)/python -m harness.bench.concurrency --plot runs/bench/concurrency.png $(ARGS)

bench-memory: setup
	$(BIN)/python -m harness.bench.memory --plot runs/bench/memory.png $(ARGS)

# BrowserGym, the peer, in a venv of its own: never a dependency of groundbench.
BGYM_VENV ?= /work/bgym-venv

$(BGYM_VENV)/.installed:
	$(PYTHON) -m venv $(BGYM_VENV)
	$(BGYM_VENV)/bin/pip install -q browsergym-miniwob==0.14.3 miniwob==1.1.0
	touch $@

bgym-venv: $(BGYM_VENV)/.installed

bench-peer: setup bgym-venv
	$(BIN)/python -m harness.bench.peer_browsergym --bgym-python $(BGYM_VENV)/bin/python $(ARGS)

clean:
	rm -rf $(VENV) runs .pytest_cache
