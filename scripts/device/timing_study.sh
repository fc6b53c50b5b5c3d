#!/usr/bin/env bash
# On the GPU machine: the timing study. Compiles the finalists' kernels (nothing is timed
# while nvcc runs), builds the driver, then times every shape's finalists in fresh driver
# runs, per timing mode (scripts/device/timing_runs.py), until DEADLINE_S.
#
#   RUNS="a:g3,a:g0,a:g20,a:r15" bash scripts/device/timing_study.sh
#
# env: RUNS, DEADLINE_S (seconds of timing after the build), PER_TU, LIBS=1 (bring back the
# libraries as tar parts), PREBUILT (a folder holding libs.tgz.part-* from an earlier call).
# Brings back results.tgz (rows, rounds, logs, provenance) and, with LIBS=1, libs.tgz.part-*.
source scripts/device/env.sh
set +e
B=/tmp/tbuild
R=/tmp/tresults
mkdir -p "$B" "$R"
start=$(date +%s)
if [ -n "${PREBUILT:-}" ] && ls "$PREBUILT"/libs.tgz.part-* >/dev/null 2>&1; then
  cat "$PREBUILT"/libs.tgz.part-* | tar -xz -C "$B" && echo "prebuilt: $(ls $B/libcb_*.so | wc -l) libraries"
fi
python3 -m benchspace.harness.cli cutlass build --kernels spaces/timing_finalists.kernels.txt \
    --build-dir "$B" --per-tu "${PER_TU:-7}" --jobs 16 --no-driver > "$R/build.log" 2>&1
tail -2 "$R/build.log"
python3 -c "from pathlib import Path; from benchspace.evaluation.cutlass.build import build_driver; print(build_driver(Path('$B')))"
echo "build: $(( $(date +%s) - start )) s, $(ls $B/libcb_*.so | wc -l) libraries"
CUBLAS_LIB=/usr/local/cuda/lib64/libcublasLt.so.13
[ -f "$CUBLAS_LIB" ] || CUBLAS_LIB=$(find / -xdev -name 'libcublasLt.so.13' 2>/dev/null | head -1)
"$B/cutlass_bench" --cublas-lib "$CUBLAS_LIB" --cublas-info > "$R/cublas.json"
cp "$OUT/device.json" "$R/" && rm -f "$OUT/device.json"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,power.draw,temperature.gpu --format=csv > "$R/gpu_before.csv"
"$B/cutlass_bench" --describe > "$R/describe.json"
python3 scripts/device/timing_runs.py --bench "$B/cutlass_bench" --build-dir "$B" \
    --finalists spaces/timing_finalists.json --out "$R" --runs "$RUNS" \
    --deadline-s "${DEADLINE_S:-400}" --cublas-lib "$CUBLAS_LIB" 2>&1 | tee "$R/runs.log"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,power.draw,temperature.gpu --format=csv > "$R/gpu_after.csv"
cp "$B/batches.json" "$R/"
(cd "$R" && tar -czf "$OUT/results.tgz" .)
if [ -n "${LIBS:-}" ]; then
  (cd "$B" && tar -czf - libcb_*.so batches.json) | split -b 15M - "$OUT/libs.tgz.part-"
fi
ls -la "$OUT"
echo "timing_study: $(( $(date +%s) - start )) s"
