#!/usr/bin/env bash
# The test command: lint, type-check, regenerate the checked-in headers and fail on any diff,
# compile them with -Wall -Werror, re-print the docs' fast figures, and run the test suite. Needs no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
# The GEMM header's regeneration takes minutes of one core: it runs beside the steps below
# and its verdict is read at the end.
gemm_log=$(mktemp)
bash scripts/check_gemm_header.sh > "$gemm_log" 2>&1 &
gemm_pid=$!
trap 'kill "$gemm_pid" 2>/dev/null || true; rm -f "$gemm_log"' EXIT
echo "== ruff"
ruff check .
ruff format --check .
echo "== mypy"
mypy
echo "== checked-in headers"
SKIP_GEMM=1 bash scripts/check_headers.sh
echo "== figures (the fast ones re-run; fail on drift)"
python scripts/figures.py --check
# tests/test_figures.py would run that check again; it is done
export BENCHSPACE_FIGURES_CHECKED=1
echo "== pytest"
# The tests run in parallel workers, one per core (pytest-xdist; a file's tests stay on one
# worker); PYTEST_WORKERS=0 runs them in this process.
pytest -p no:cacheprovider -n "${PYTEST_WORKERS:-auto}" --dist loadfile "$@"
echo "== checked-in GEMM header (regenerated beside the tests)"
if ! wait "$gemm_pid"; then
  cat "$gemm_log"
  exit 1
fi
cat "$gemm_log"
