# groundbench: `make run` sets up and runs the default experiment; `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ARGS ?=

.PHONY: setup browser run test test-all lint proof clean

setup: $(VENV)/.installed browser

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -e '.[dev,ocr]'
	# rapidocr pulls the GUI build of OpenCV; the headless build must own cv2 (no libGL needed).
	$(BIN)/pip install -q --force-reinstall --no-deps opencv-python-headless
	touch $@

browser: $(VENV)/.installed
	$(BIN)/python -m harness.setup_browser

run: setup
	$(BIN)/groundbench $(ARGS)

test: setup
	$(BIN)/python -m pytest -q -m "not slow"

test-all: setup
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/ruff check .

proof: setup
	$(BIN)/python -m harness.proof $(ARGS)

clean:
	rm -rf $(VENV) runs .pytest_cache
