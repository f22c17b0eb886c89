# minijax — set-up and everyday commands. Needs only Python 3 and make.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo tour async-demo test test-llvm-check test-cuda-simulator test-cuda-gpu lab notebooks book bench clean test-ch% exercise-ch%

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip

# Each extra is installed once; the stamp is redone when pyproject.toml changes.
$(VENV)/.installed-base: pyproject.toml | $(PY)
	$(PY) -m pip install -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install -e ".[test,cuda,dtypes,examples]"
	touch $@ $(VENV)/.installed-examples $(VENV)/.installed-base

$(VENV)/.installed-notebooks: pyproject.toml | $(PY)
	$(PY) -m pip install -e ".[test,cuda,dtypes,examples,notebooks]"
	touch $@ $(VENV)/.installed-test $(VENV)/.installed-examples $(VENV)/.installed-base

$(VENV)/.installed-book: pyproject.toml | $(PY)
	$(PY) -m pip install -e ".[book]"
	touch $@ $(VENV)/.installed-base

$(VENV)/.installed-examples: pyproject.toml | $(PY)
	$(PY) -m pip install -e ".[examples]"
	touch $@ $(VENV)/.installed-base

# Chapter 14: an MLP learns scikit-learn's handwritten digits in a few epochs
# (jit + grad + asynchronous dispatch); pictures and parameters in build/train_digits.
demo: $(VENV)/.installed-examples
	$(PY) examples/train_digits.py --model mlp --epochs 5

# The same training loop blocking every step, then only at the end.
async-demo: $(VENV)/.installed-examples
	$(PY) examples/async_vs_sync.py

# One print per chapter 00-08 (and 13): arrays, dtypes, tracing, transformations.
tour: $(VENV)/.installed-base
	$(PY) examples/tour.py

# Chapter 10 (CUDA) runs three times, with no GPU needed:
# 1. in the main run, its programs' kernels compile to PTX and assemble (ptxas);
# 2. on Numba's CUDA simulator (switched on before Python starts): chapter 10's
#    tests and a fast subset of the shared suite with the "cuda" backend
#    (CUDA_SIM_SUITE), every module they lower recorded in CUDA_KERNELS;
# 3. every recorded kernel compiles to PTX and assembles.
CUDA_SIM_SUITE := tests/ch10_cuda tests/ch00_arrays/test_jnp_edge_cases.py \
	tests/ch00_arrays/test_convolution.py tests/ch00_arrays/test_reduce_window.py \
	tests/ch00_arrays/test_fft.py tests/ch08_control_flow/test_reduce_window_generic.py \
	tests/ch00_arrays/test_compiler_hints.py \
	tests/ch00_arrays/test_jnp_extras.py tests/ch05_jaxpr/test_ir.py \
	tests/ch06_jit/test_jit_api.py tests/ch06_jit/test_jit_caching.py \
	tests/ch06_jit/test_jit_errors.py tests/ch06_jit/test_jit_jnp_functions.py \
	tests/ch06_jit/test_jit_transforms.py tests/ch07_reverse_ad/test_checkpoint.py \
	tests/ch07_reverse_ad/test_custom_derivatives.py tests/ch07_reverse_ad/test_grad_api.py \
	tests/ch07_reverse_ad/test_grad_of_jit.py tests/ch07_reverse_ad/test_jnp_custom_jvps.py \
	tests/ch08_control_flow tests/ch12_effects/test_debug_print.py \
	tests/ch12_effects/test_tutorials.py tests/ch12_effects/test_callbacks.py \
	tests/ch13_random/test_threefry.py tests/ch13_random/test_transforms.py \
	tests/ch13_random/test_samplers.py tests/ch13_random/test_initializers.py
# ... with the "cuda" backend, less the draws too big for the simulator's Python threads
CUDA_SIM_TESTS := cuda and not LARGE and not million and not variance_scaling_statistics
CUDA_KERNELS := build/cuda-kernels

test: $(VENV)/.installed-test
	$(PY) -m pytest
	$(MAKE) test-llvm-check
	$(MAKE) test-cuda-simulator
	$(MAKE) book

# Chapter 09's own compiler against Numba: every kernel of these tests compiled by
# both, and every call's outputs compared bit for bit (kernel_compiler's "check")
LLVM_CHECK_SUITE := tests/ch09_numba tests/ch14_end_to_end
test-llvm-check: $(VENV)/.installed-test
	MINIJAX_CPU_COMPILER=check $(PY) -m pytest -q $(LLVM_CHECK_SUITE)

test-cuda-simulator: $(VENV)/.installed-test
	rm -rf $(CUDA_KERNELS)
	NUMBA_ENABLE_CUDASIM=1 MINIJAX_RECORD_CUDA=$(CUDA_KERNELS) $(PY) -m pytest $(CUDA_SIM_SUITE) -k "$(CUDA_SIM_TESTS)"
	MINIJAX_RECORD_CUDA=$(CUDA_KERNELS) $(PY) -m pytest tests/ch10_cuda/test_recorded_ptx.py

# On a machine with a GPU: chapter 10's tests and the same subset of the shared
# suite with the "cuda" backend, the kernels run on the GPU (no size limits).
test-cuda-gpu: $(VENV)/.installed-test
	MINIJAX_TEST_GPU=1 $(PY) -m pytest $(CUDA_SIM_SUITE) -k cuda $(PYTEST_ARGS)

# make test-ch04 runs chapter 04's tests (and its notebook)
test-ch%: $(VENV)/.installed-test
	$(PY) -m pytest -m ch$*
	if [ "$*" = "10" ]; then $(MAKE) test-cuda-simulator; fi

# make exercise-ch04 runs the checks of chapter 04's exercises on your modules
# (exercises/README.md); they fail until the exercises are done.
exercise-ch%: $(VENV)/.installed-test
	$(PY) -m pytest -q exercises/ch$*

lab: $(VENV)/.installed-notebooks
	$(VENV)/bin/jupyter lab notebooks/

# Execute every chapter notebook top to bottom and write it back with its
# outputs (normalized for stable diffs); NOTEBOOKS=04 or NOTEBOOKS="04 09" for some.
# tests/test_notebooks.py checks the cells tagged "deterministic" against them.
notebooks: $(VENV)/.installed-test
	$(PY) tools/run_notebooks.py $(NOTEBOOKS)

# The chapters as a static site with their committed outputs (nothing is
# executed): build/book/_build/html/index.html. Table of contents from CHAPTERS.md.
book: $(VENV)/.installed-book
	$(PY) tools/book_toc.py
	$(VENV)/bin/jupyter-book build -W . --config book/_config.yml --toc book/_toc.yml --path-output build/book

bench: $(VENV)/.installed-base
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
