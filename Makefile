# minijax — set-up and everyday commands. Needs only Python 3 and make.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test lab bench clean test-ch%

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip

# Each extra is installed once; the stamp is redone when pyproject.toml changes.
$(VENV)/.installed-base: pyproject.toml | $(PY)
	$(PY) -m pip install -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install -e ".[test]"
	touch $@ $(VENV)/.installed-base

$(VENV)/.installed-notebooks: pyproject.toml | $(PY)
	$(PY) -m pip install -e ".[test,notebooks]"
	touch $@ $(VENV)/.installed-test $(VENV)/.installed-base

demo: $(VENV)/.installed-base
	$(PY) examples/demo.py

test: $(VENV)/.installed-test
	$(PY) -m pytest

# make test-ch04 runs chapter 04's tests (and its notebook)
test-ch%: $(VENV)/.installed-test
	$(PY) -m pytest -m ch$*

lab: $(VENV)/.installed-notebooks
	$(VENV)/bin/jupyter lab notebooks/

bench: $(VENV)/.installed-base
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
