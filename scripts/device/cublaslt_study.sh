#!/usr/bin/env bash
# On the GPU machine: the cuBLASLt study (pinned configurations, cuBLASLt's configuration space
# beside the tune-my-shapes shortlist). Builds the shortlist's kernels (nothing is timed while
# nvcc runs) and driver v4, lists cuBLASLt's configuration space per shape and samples it
# (scripts/device/cublaslt_space.py), then times every shape's configurations in fresh driver
# runs (scripts/device/timing_runs.py): the top 8 CUTLASS kernels of the shortlist,
# cublas:heuristic, cublas:algo0..7, the same eight as pinned `cublaslt:` configurations, and
# the space sample. Run a chooses, run b (new processes, new order) confirms.
#
#   PREBUILT=prebuilt RUNS="a:g0r10,b:g0r10" bash scripts/device/cublaslt_study.sh
#
# env: RUNS, DEADLINE_S (seconds of timing after the build), SAMPLE (space configurations per
# shape, 8), PREBUILT (a folder holding libs.tgz.part-* from an earlier call).
source scripts/device/env.sh
set +e
B=/tmp/cbuild
R=/tmp/cresults
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
cat "$R/cublas.json"
cp "$OUT/device.json" "$R/" && rm -f "$OUT/device.json"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,power.draw,temperature.gpu --format=csv > "$R/gpu_before.csv"
"$B/cutlass_bench" --describe > "$R/describe.json"
s0=$(date +%s)
python3 scripts/device/cublaslt_space.py --bench "$B/cutlass_bench" --cublas-lib "$CUBLAS_LIB" \
    --finalists spaces/cublaslt_finalists.json --out "$R/finalists.json" \
    --sample "${SAMPLE:-8}" > "$R/space.log" 2>&1
tail -3 "$R/space.log"
echo "space: $(( $(date +%s) - s0 )) s"
python3 scripts/device/timing_runs.py --bench "$B/cutlass_bench" --build-dir "$B" \
    --finalists "$R/finalists.json" --out "$R" --runs "$RUNS" \
    --deadline-s "${DEADLINE_S:-400}" --cublas-lib "$CUBLAS_LIB" 2>&1 | tee "$R/runs.log"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,power.draw,temperature.gpu --format=csv > "$R/gpu_after.csv"
cp "$B/batches.json" "$R/"
(cd "$R" && tar -czf "$OUT/results.tgz" .)
ls -la "$OUT"
echo "cublaslt_study: $(( $(date +%s) - start )) s"
