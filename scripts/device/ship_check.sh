#!/usr/bin/env bash
# On the GPU machine: one call that checks what ships, one step after the other (nothing is
# timed while nvcc runs):
#   0. the header's CUTLASS kernels built as driver libraries;
#   1. the library of $HEADER built through its own CMake project and its verify_and_time on
#      the 64 v2 evaluation shapes (library_check.sh);
#   2. the driver (mode g2ms) on the same shapes with the header's choice, cublas:heuristic
#      and cublas:algo0..7 (shipped_header_configs.py), a confirmation run of the header:
#      nothing in it chose the header's entries; and benchspace_gemm_run, the library's
#      run() loaded as a driver library, timed in the same rounds as the header's choice;
#   3. the CUDA compile-time example (reduce_example.sh), whose compiles overlap its own
#      timed runs as the GPU bench allows.
# Each part's files go under $OUT/<part>/ and come back as one tarball per part.
#
#   PREBUILT=prebuilt bash scripts/device/ship_check.sh    (env: HEADER, TUNE_LIMIT, REDUCE)
# REDUCE=0 leaves part 3 out (the header's parts alone).
source scripts/device/env.sh
set +e
HEADER=${HEADER:-include/benchspace/gemm_kernels.hh}
SHAPES=evaluation/data/shapes/h200_v2_eval.txt
B=/tmp/sbuild
start=$(date +%s)
top=$OUT
mkdir -p "$B" /tmp/ship/lib /tmp/ship/driver /tmp/ship/reduce
cp "$OUT/device.json" /tmp/ship/ 2>/dev/null
if [ -n "${PREBUILT:-}" ] && ls "$PREBUILT"/libs.tgz.part-* >/dev/null 2>&1; then
  cat "$PREBUILT"/libs.tgz.part-* | tar -xz -C "$B" && echo "prebuilt: $(ls $B/libcb_*.so | wc -l) libraries"
fi
# The header's choices as driver configurations, and its CUTLASS kernels.
python3 scripts/device/shipped_header_configs.py --header "$HEADER" --shapes "$SHAPES" \
    > /tmp/ship/driver/configs.txt 2> /tmp/ship/driver/configs.log
python3 - <<'PY'
import json
kernels, finalists = set(), {}
for line in open("/tmp/ship/driver/configs.txt"):
    words = line.split()
    if len(words) < 4 or not words[0].isdigit():
        continue
    m, n, k, choice = words[:4]
    # benchspace_gemm_run: the library's own entry point, timed in the driver's rounds beside
    # the header's choice (libcb_benchspace_gemm.so, copied in after the library's build).
    finalists[f"{m}x{n}x{k}"] = {"shortlist": [choice] if not choice.startswith("cublas:") else [], "extra": ["benchspace_gemm_run"]}
    if choice.startswith("cutlass3x_"):
        kernels.add(choice.split(":")[0])
json.dump(finalists, open("/tmp/ship/driver/finalists.json", "w"), indent=1, sort_keys=True)
open("/tmp/ship/driver/kernels.txt", "w").write("".join(k + "\n" for k in sorted(kernels)))
print(f"header: {len(finalists)} shapes, {len(kernels)} CUTLASS kernels")
PY
# The header's kernels as driver libraries (the library's own build follows in
# library_check.sh, which then times the library; nothing else runs meanwhile).
if [ -s /tmp/ship/driver/kernels.txt ]; then
  python3 -m benchspace.harness.cli cutlass build --kernels /tmp/ship/driver/kernels.txt \
      --build-dir "$B" --per-tu 2 --jobs 16 --no-driver > /tmp/ship/driver/build.log 2>&1
fi
python3 -c "from pathlib import Path; from benchspace.evaluation.cutlass.build import build_driver; print(build_driver(Path('$B')))" >> /tmp/ship/driver/build.log 2>&1
tail -2 /tmp/ship/driver/build.log
echo "driver libraries: $(( $(date +%s) - start )) s"
# 1. the library: built through its CMake project, then timed through its own entry point.
OUT=/tmp/ship/lib HEADER="$HEADER" COMMIT=$(cat COMMIT 2>/dev/null || echo unknown) \
    bash scripts/device/library_check.sh 2>&1 | tail -6
echo "library: $(( $(date +%s) - start )) s"
# The library's entry point as a driver library (its CMake target cb_benchspace_gemm).
cp /tmp/benchspace_gemm/build/libcb_benchspace_gemm.so "$B/" 2>/dev/null &&
  echo "driver: benchspace_gemm_run from libcb_benchspace_gemm.so" ||
  echo "driver: no libcb_benchspace_gemm.so (its rows read unknown_kernel)"
# 2. the driver's confirmation run of the header's choices.
CUBLAS_LIB=/usr/local/cuda/lib64/libcublasLt.so.13
[ -f "$CUBLAS_LIB" ] || CUBLAS_LIB=$(find / -xdev -name 'libcublasLt.so.13' 2>/dev/null | head -1)
python3 scripts/device/timing_runs.py --bench "$B/cutlass_bench" --build-dir "$B" \
    --finalists /tmp/ship/driver/finalists.json --out /tmp/ship/driver --runs "s:g2ms" \
    --deadline-s 200 --cublas-lib "$CUBLAS_LIB" 2>&1 | tail -2
# 3. the CUDA example.
cp "$HEADER" /tmp/ship/driver/header.hh
parts="lib driver"
if [ "${REDUCE:-1}" != 0 ]; then
  OUT=/tmp/ship/reduce TUNE_LIMIT=${TUNE_LIMIT:-120} JOBS=16 bash scripts/device/reduce_example.sh 2>&1 | tail -6
  parts="$parts reduce"
fi
for part in $parts; do (cd /tmp/ship/$part && tar -czf "$top/$part.tgz" .); done
cp /tmp/ship/device.json "$top/" 2>/dev/null
ls -la "$top"
echo "ship_check: $(( $(date +%s) - start )) s"
