# groundbench: `make run` sets up and runs the default experiment; `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ARGS ?=

# The grounding regression gate: the ci suite (one task per fixture case) against a committed baseline.
GATE_RUN := $(BIN)/groundbench suite=ci perception=synthetic 'seeds=[0,1]' trace.playwright=false
GATE_DIR ?= runs/gate
BASELINE := tests/baselines/ci.json

.PHONY: setup browser run test test-all unit gate ci-baseline report lint proof clean

setup: $(VENV)/.installed browser

# rapidocr pulls the GUI build of OpenCV; reinstalling the headless build makes it own cv2.

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -e '.[dev,ocr]'
	$(BIN)/pip install -q --force-reinstall --no-deps opencv-python-headless
	touch $@

browser: $(VENV)/.installed
	$(BIN)/python -m harness.setup_browser

run: setup
	$(BIN)/groundbench $(ARGS)

test: unit gate

unit: setup
	$(BIN)/python -m pytest -q -m "not slow and not ray"

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

clean:
	rm -rf $(VENV) runs .pytest_cache
