#!/usr/bin/env bash
# Regenerate include/benchspace/gemm_kernels.hh from the shipped selector and the leaf rule
# decided on dataset v2's training shapes (evaluation/README.md); fail on any diff, and
# compile it with g++ -std=c++17 -Wall -Wextra -Werror.
set -euo pipefail
cd "$(dirname "$0")/.."
BS=${BENCHSPACE:-.venv/bin/benchspace}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
# The GEMM kernel header comes from the shipped selector and the leaf rule decided on dataset
# v2's training shapes (evaluation/README.md), not from a tuning profile.
"$BS" cutlass header --evidence evaluation/data/h200/v2 --leaf-policy pinned --pilot 1000 \
    --narrow 4 --out "$tmp/gemm_kernels.hh" >/dev/null
if ! diff -u include/benchspace/gemm_kernels.hh "$tmp/gemm_kernels.hh"; then
  echo "check_headers: include/benchspace/gemm_kernels.hh differs from the selector's; regenerate it" >&2
  status=1
fi
printf '#include "%s"\nint main() { return 0; }\n' "$PWD/include/benchspace/gemm_kernels.hh" > "$tmp/gemm.cc"
g++ -std=c++17 -Wall -Wextra -Werror -c "$tmp/gemm.cc" -o "$tmp/gemm.o"
echo "check_headers: include/benchspace/gemm_kernels.hh ok"
exit $status
