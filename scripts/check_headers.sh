#!/usr/bin/env bash
# Regenerate every checked-in generated header from its checked-in profile; fail on any diff,
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
