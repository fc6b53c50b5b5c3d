#!/usr/bin/env bash
# Regenerate every checked-in generated header from its checked-in profile (and the GEMM
# header, scripts/check_gemm_header.sh); fail on any diff,
# and compile each with g++ -std=c++17 -Wall -Wextra -Werror.
set -euo pipefail
cd "$(dirname "$0")/.."
BS=${BENCHSPACE:-.venv/bin/benchspace}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
# each line: header profile space [confirm.json whose rejected changes are held]
while read -r header profile space hold; do
  [ -z "$header" ] && continue
  "$BS" generate --profile "$profile" --space "$space" ${hold:+--hold "$hold"} \
      --out "$tmp/generated.hh" >/dev/null 2>&1 || \
    "$BS" generate --profile "$profile" --space "$space" ${hold:+--hold "$hold"} --out "$tmp/generated.hh"
  if ! diff -u "$header" "$tmp/generated.hh"; then
    echo "check_headers: $header differs from what $profile generates; regenerate it" >&2
    status=1
  fi
  printf '#include "%s"\nint main() { return 0; }\n' "$PWD/$header" > "$tmp/use.cc"
  g++ -std=c++17 -Wall -Wextra -Werror -c "$tmp/use.cc" -o "$tmp/use.o"
  echo "check_headers: $header ok"
done < scripts/generated_headers.txt
# The GEMM kernel header (several minutes): scripts/check_gemm_header.sh, unless the caller
# runs it itself (SKIP_GEMM=1: scripts/test.sh runs it beside the tests).
if [ "${SKIP_GEMM:-0}" != 1 ]; then
  bash scripts/check_gemm_header.sh || status=1
fi
exit $status
