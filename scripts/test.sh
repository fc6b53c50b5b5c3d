#!/usr/bin/env bash
# The test command: lint, type-check, regenerate the checked-in headers and fail on any diff,
# compile them with -Wall -Werror, and run the test suite. Needs no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
echo "== ruff"
ruff check .
ruff format --check .
echo "== mypy"
mypy
echo "== checked-in headers"
bash scripts/check_headers.sh
echo "== pytest"
pytest -p no:cacheprovider "$@"
