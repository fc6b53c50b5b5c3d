#!/usr/bin/env bash
# Regenerate include/benchspace/gemm_kernels.hh from the shipped selector and the leaf rule
# decided on dataset v2's training shapes (evaluation/README.md); fail on any diff, and
# compile it with g++ -std=c++17 -Wall -Wextra -Werror; the same for the cuBLASLt studies'
# tune-my-shapes headers (evaluation/data/h200/cublaslt_{wide,ranked}/gemm_kernels_tuned.hh).
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
# The tune-my-shapes headers of the cuBLASLt studies, from their recorded runs.
for study in evaluation/data/h200/cublaslt_wide evaluation/data/h200/cublaslt_ranked; do
  "$BS" cutlass header --from-study "$study" --out "$tmp/gemm_kernels_tuned.hh" >/dev/null
  if ! diff -u "$study/gemm_kernels_tuned.hh" "$tmp/gemm_kernels_tuned.hh"; then
    echo "check_headers: $study/gemm_kernels_tuned.hh differs from the study's; regenerate it" >&2
    status=1
  fi
  printf '#include "%s"\nint main() { return 0; }\n' "$PWD/$study/gemm_kernels_tuned.hh" > "$tmp/tuned.cc"
  g++ -std=c++17 -Wall -Wextra -Werror -c "$tmp/tuned.cc" -o "$tmp/tuned.o"
  echo "check_headers: $study/gemm_kernels_tuned.hh ok"
done
exit $status
