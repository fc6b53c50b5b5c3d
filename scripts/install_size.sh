#!/usr/bin/env bash
# The install size the README states: this checkout installed into a fresh virtual environment
# (pip install ., the core dependencies only), its site-packages measured with du.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
if ! "$venv/bin/pip" install -q --disable-pip-version-check . >"$venv.log" 2>&1; then
    cat "$venv.log" >&2
    exit 1
fi
site="$(echo "$venv"/lib/python3*/site-packages)"
total=$(du -sm "$site" | cut -f1)
echo "site-packages: ${total} MB ($("$venv/bin/python" --version))"
for pkg in numpy scipy jsonschema jinja2; do
    if [ -d "$site/$pkg" ]; then echo "  $pkg: $(du -sm "$site/$pkg" | cut -f1) MB"; fi
done
