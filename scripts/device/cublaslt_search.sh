#!/usr/bin/env bash
# On the GPU machine: the cuBLASLt study's second call. From call c1's data
# (evaluation/data/h200/cublaslt): run c times, per shape, the best of cuBLASLt's top 8 and its
# neighbours in cuBLASLt's configuration space (scripts/device/cublaslt_search.py --stage
# search); run d confirms every pick of runs a and c in fresh rounds (--stage confirm).
#
#   PREBUILT=prebuilt MODE=g0r10 bash scripts/device/cublaslt_search.sh
source scripts/device/env.sh
set +e
B=/tmp/cbuild
R=/tmp/cresults
D=evaluation/data/h200/cublaslt
MODE=${MODE:-g0r10}
mkdir -p "$B" "$R"
start=$(date +%s)
if [ -n "${PREBUILT:-}" ] && ls "$PREBUILT"/libs.tgz.part-* >/dev/null 2>&1; then
  cat "$PREBUILT"/libs.tgz.part-* | tar -xz -C "$B" && echo "prebuilt: $(ls $B/libcb_*.so | wc -l) libraries"
fi
python3 -m benchspace.harness.cli cutlass build --kernels spaces/timing_finalists.kernels.txt \
    --build-dir "$B" --per-tu "${PER_TU:-7}" --jobs 16 --no-driver > "$R/build.log" 2>&1
tail -1 "$R/build.log"
python3 -c "from pathlib import Path; from benchspace.evaluation.cutlass.build import build_driver; print(build_driver(Path('$B')))"
CUBLAS_LIB=/usr/local/cuda/lib64/libcublasLt.so.13
[ -f "$CUBLAS_LIB" ] || CUBLAS_LIB=$(find / -xdev -name 'libcublasLt.so.13' 2>/dev/null | head -1)
"$B/cutlass_bench" --cublas-lib "$CUBLAS_LIB" --cublas-info > "$R/cublas.json"
cp "$OUT/device.json" "$R/" && rm -f "$OUT/device.json"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,power.draw,temperature.gpu --format=csv > "$R/gpu_before.csv"
echo "build: $(( $(date +%s) - start )) s"
python3 scripts/device/cublaslt_search.py --stage search --finalists "$D/finalists.json" \
    --rows "$D/timing_rows_a_$MODE.csv.gz" --space "$D/space.csv.gz" --out "$R/finalists_c.json"
python3 scripts/device/timing_runs.py --bench "$B/cutlass_bench" --build-dir "$B" \
    --finalists "$R/finalists_c.json" --out "$R" --runs "c:$MODE" \
    --deadline-s "${DEADLINE_S:-300}" --cublas-lib "$CUBLAS_LIB" 2>&1 | tee "$R/runs_c.log"
python3 scripts/device/cublaslt_search.py --stage confirm --finalists "$D/finalists.json" \
    --rows "$D/timing_rows_a_$MODE.csv.gz" --search-rows "$R/timing_rows_c_$MODE.csv.gz" \
    --out "$R/finalists_d.json"
python3 scripts/device/timing_runs.py --bench "$B/cutlass_bench" --build-dir "$B" \
    --finalists "$R/finalists_d.json" --out "$R" --runs "d:$MODE" \
    --deadline-s 400 --cublas-lib "$CUBLAS_LIB" 2>&1 | tee "$R/runs_d.log"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,power.draw,temperature.gpu --format=csv > "$R/gpu_after.csv"
(cd "$R" && tar -czf "$OUT/results.tgz" .)
ls -la "$OUT"
echo "cublaslt_search: $(( $(date +%s) - start )) s"
