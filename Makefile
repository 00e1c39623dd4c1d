# Health LTM: the two everyday commands are `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1

.PHONY: run test lint unit synth bench eval load clean openapi

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
	$(PY) -m pytest -n 2 --dist loadgroup

unit: $(STAMP)
	$(PY) -m pytest tests/unit

lint: $(STAMP)
	$(VENV)/bin/ruff check functions infra tests bench
	$(VENV)/bin/mypy

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

## A bounded load run against a local stack on loopback: docs/bench/load.md.
load: $(STAMP)
	$(PY) -m bench.load

clean:
	rm -rf $(VENV) node_modules cdk.out .ltm
