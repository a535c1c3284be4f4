# Attention Lab: the two commands are `make lab` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Tests must not depend on the user's Jupyter, IPython or matplotlib settings.
TEST_HOME := $(CURDIR)/.test-home
# One BLAS / OpenMP thread per process: the tests run on as many workers as there are cores, and a second thread
# in each worker (and in each notebook kernel) oversubscribes them: OpenBLAS's waiting threads then spin against
# the other worker (a 1.3 s cell of notebook 06 took 33 s; the pytest session took 7 min 13 s, 6 min 12 s with this).
# Bytecode is compiled when a module is first imported and kept (__pycache__, git-ignored), even where the shell sets
# PYTHONDONTWRITEBYTECODE: set-up installs without compiling (see below), and without a kept .pyc every kernel, test
# worker and server would compile torch's modules again (an import of torch and matplotlib: 12 s, then 5 s).
# The test targets (test, quick, unit, nbval) only call tools/course.py, which sets that environment (its test_env)
# and the pytest flags: Windows, without make, runs the same loop (`py tools\course.py quick`).
export PYTHONDONTWRITEBYTECODE :=

# The edition `make lab` / `make present` open: zh when LANG says so (`make lab LANG=zh`, or a zh_CN system).
EDITION := $(if $(filter zh%,$(LANG)),zh,en)
LAB_COPY := my-notebooks
NB ?= 01
LAB_ARGS ?=
NB_FILE = $(notdir $(firstword $(wildcard notebooks/$(EDITION)/$(NB)*.ipynb)))

.PHONY: setup lab lab-reset present site slides test unit quick nbval notebooks bench gpu-check lock clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml tools/lab-overrides.json tools/jupyter_lab_config.json tools/lab_setup.py \
          tools/voila/voila.json $(wildcard tools/voila/templates/*/*) tools/course.py
	@# tools/course.py setup: .venv, requirements.txt with --require-hashes (and --no-compile: byte-compiling every
	@# module of torch took 70 s of a 163 s set-up), the package editable, the course's Jupyter and Voila settings.
	@# The same script is the route without make (`python tools/course.py lab` / `test`).
	$(PYTHON) tools/course.py setup --force

## make lab: set up, then open JupyterLab on the start-here notebook (127.0.0.1, token on). It serves the
## working copy my-notebooks/ (ignored by git; new course versions flow in, your changes are kept), never
## notebooks/. LANG=zh: the Chinese edition and JupyterLab's Chinese interface. Stop it with Ctrl+C twice.
lab: setup
	$(PY) tools/course.py lab --lang $(EDITION) $(if $(LAB_ARGS),-- $(LAB_ARGS))

## make lab-reset: put your working copy aside (my-notebooks.bak/, then .bak.2/, ...: no backup is overwritten)
## and start again from the course's notebooks
lab-reset: setup
	$(PY) tools/lab_setup.py copy --reset

## make present NB=01: the teacher's view of one notebook in Voila (story and widgets, no code; idle kernels culled);
## 127.0.0.1, a token in the printed URL, Host/Origin checks, at most KERNELS live kernels (tools/present.py)
KERNELS ?= 4
present: setup
	@$(PY) tools/lab_setup.py copy
	@test -n "$(NB_FILE)" || { echo "no notebook $(NB) in notebooks/$(EDITION)"; exit 1; }
	$(PY) tools/present.py $(LAB_COPY)/$(EDITION)/$(NB_FILE) --kernels $(KERNELS) $(LAB_ARGS)

## make site / make slides: offline HTML of both editions / reveal.js slides, in _site/ (needs npm once)
site: setup
	$(PY) tools/build_site.py site

slides: setup
	$(PY) tools/build_site.py slides

## make lite: the course in the browser, nothing installed (JupyterLite with Pyodide): both editions of notebooks
## 00-12 in _site/lite/ (13 trains with torch: its index says so), for any static web server (`python3 -m http.server -d _site/lite`, a school server, a
## static host). The first build fetches its pinned, hash-checked packages once into tools/lite/cache/ (ignored);
## later builds run offline (tools/lite/build_lite.py; licences in tools/lite/LICENSES.md)
.PHONY: lite
lite: setup
	$(PY) tools/lite/build_lite.py

## make test: set up, then run every test: ruff, unit tests, nbval over both editions and the browser tests, on
## two workers (pytest-xdist; --dist loadfile keeps each test file, and so each notebook's cells, on one worker);
## it ends with the 20 slowest tests, so a log (CI's included) shows where the time went
TEST_WORKERS ?= 2
test: setup
	$(PY) tools/course.py test --workers $(TEST_WORKERS)

## make unit: every unit test, without the browser tests (tests/browser drives Chromium; make test runs them)
unit: setup
	$(PY) tools/course.py unit --workers $(TEST_WORKERS)

## make quick: the one-minute loop: the unit tests of core, backends, teaching and labs on two workers
## (pytest-xdist), without browser, nbval and slow tests (a retrain, a wheel build: make test runs them),
## and hypothesis's profile `quick` (fewer fixed examples a property)
quick: setup
	$(PY) tools/course.py quick --workers $(TEST_WORKERS)

## make nbval: nbval over every notebook of both editions (every stored text output compared)
nbval: setup
	$(PY) tools/course.py nbval --workers $(TEST_WORKERS)

## make notebooks: rebuild both editions from notebooks/src; executes only notebooks whose code or library
## changed (a markdown edit keeps every output). NB=03 limits it to one notebook; FORCE=1 executes anyway.
## First it exports the course text (the markdown of every source) that notebook 13's model trains on: a markdown
## edit anywhere changes that text, and so re-executes 13.
notebooks: setup
	$(PY) -m attention_core.labs.nb13_build_a_gpt.corpus
	$(PY) tools/build_notebooks.py $(if $(FORCE),--force) $(if $(filter command line,$(origin NB)),$(NB))

## make train: retrain notebook 12's four small models (the induction recipe from seeds 0 and 3, the coreference
## encoder and decoder), export notebook 13's corpus (the course's markdown) and retrain notebook 13's two GPTs
## (torch on the CPU, seeded and deterministic, a few minutes); writes attention_core/data/models/*.npz and *.json
## and data/course_text.json, which the notebooks only load
.PHONY: train
train: setup
	$(PY) -m attention_core.labs.nb12_trained_transformer.training --overwrite-shipped
	$(PY) -m attention_core.labs.nb13_build_a_gpt.corpus
	$(PY) -m attention_core.labs.nb13_build_a_gpt.training --overwrite-shipped

## make train-sweep: the induction recipe from seeds 0-4 (about 5 x the induction run; JOBS=3 trains 3 at once);
## writes the table attention_core/data/models/induction_sweep.json that notebook 12 prints (the committed table
## is one such run: 474 s here, seeds one after another; its "note" says how it was run)
.PHONY: train-sweep
train-sweep: setup
	$(PY) -m attention_core.labs.nb12_trained_transformer.training --sweep --overwrite-shipped $(if $(JOBS),--jobs $(JOBS))

## make bench: measure speed and memory (writes benchmarks/results.json)
bench: setup
	$(PY) benchmarks/run.py

## make gpu-check: CUDA parity tests and the fused-vs-explicit table (on a machine with a GPU)
gpu-check: setup
	$(PY) -m pytest -p no:cacheprovider -m cuda tests
	$(PY) benchmarks/gpu_check.py

## make lock: re-resolve requirements.in into the exact requirements.txt with the sha256 of every file
## (pip-compile --generate-hashes; pins already in requirements.txt are kept where they still fit), then
## tools/lock_merge.py: torch==2.13.0 with its CPU wheel's hash and those of every file PyPI has of it, and
## the pins only macOS / Windows need. Run it on Linux where torch resolves to 2.13.0+cpu: here the local
## wheel; elsewhere `make lock TORCH_INDEX=https://download.pytorch.org/whl/cpu` (it also adds that index's hashes)
LOCK_VENV := /tmp/attention-lab-lock
TORCH_INDEX ?=
lock:
	rm -rf $(LOCK_VENV) && $(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install -q pip-tools==7.6.2
	$(LOCK_VENV)/bin/python tools/lock_merge.py seed requirements.txt > requirements.lock.tmp
	$(LOCK_VENV)/bin/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \
	  --no-emit-find-links --no-header $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) \
	  --output-file requirements.lock.tmp requirements.in
	$(LOCK_VENV)/bin/python tools/lock_merge.py merge requirements.lock.tmp --out requirements.txt
	rm requirements.lock.tmp

clean:
	rm -rf $(VENV) $(TEST_HOME) .pytest_cache .lab _site tools/site/node_modules
