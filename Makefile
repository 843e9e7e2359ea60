.PHONY: install test unit lint format serve

install:
	python3 -m venv .venv && .venv/bin/pip install -e '.[dev]'

test:
	.venv/bin/python -m pytest -q

unit:
	.venv/bin/python -m pytest -q tests/unit

lint:
	.venv/bin/ruff check factcourt tests
	.venv/bin/ruff format --check factcourt tests
	.venv/bin/mypy

format:
	.venv/bin/ruff check --fix factcourt tests
	.venv/bin/ruff format factcourt tests

serve:
	.venv/bin/factcourt serve
