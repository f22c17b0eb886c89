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
	$(PY) -m pip install -e ".[test,cuda]"
	touch $@ $(VENV)/.installed-base

$(VENV)/.installed-notebooks: pyproject.toml | $(PY)
	$(PY) -m pip install -e ".[test,cuda,notebooks]"
	touch $@ $(VENV)/.installed-test $(VENV)/.installed-base

demo: $(VENV)/.installed-base
	$(PY) examples/demo.py

# Chapter 10 runs twice: in the main run its kernels compile to PTX (no GPU
# needed); then on Numba's CUDA simulator, which must be on before Python starts.
test: $(VENV)/.installed-test
	$(PY) -m pytest
	NUMBA_ENABLE_CUDASIM=1 $(PY) -m pytest tests/ch10_cuda

# make test-ch04 runs chapter 04's tests (and its notebook)
test-ch%: $(VENV)/.installed-test
	$(PY) -m pytest -m ch$*
	if [ "$*" = "10" ]; then NUMBA_ENABLE_CUDASIM=1 $(PY) -m pytest tests/ch10_cuda; fi

lab: $(VENV)/.installed-notebooks
	$(VENV)/bin/jupyter lab notebooks/

bench: $(VENV)/.installed-base
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
