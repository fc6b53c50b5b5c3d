#!/usr/bin/env bash
# On the GPU machine, for dataset v2: bash scripts/device/v2.sh PHASE...
#   build    compile the kernel list's missing batches (16 nvcc at a time) for at most BUILD_S
#            seconds or BATCHES batches, then stop every compile (never time while compiling)
#   smoke    one shape: a few kernels, knob settings and the cuBLASLt configurations; when
#            cuBLASLt fails there, the eval and train phases after it are skipped
#   eval     measure evaluation shapes until EVAL_S seconds have passed
#   train    measure training shapes until TRAIN_S seconds have passed
#   (eval/train take SKIP, a file of MxNxK lines to leave out, EXHAUSTIVE and MEASURE_ARGS,
#   more measure_passes.py options, e.g. "--topup FILE --extra FILE --rounds 4")
#   libs     bring back the libraries built on this machine (tar parts under 16 MB)
# The build directory lives outside the carried tree (/tmp/cbbuild), so it survives between
# calls on a warm machine; build directories carried in $PREBUILT (default ./prebuilt) are
# merged in first (`cutlass build --merge`).
source scripts/device/env.sh
set +e  # a failed phase must not lose what the others brought
B=${B:-/tmp/cbbuild}
LIST=${LIST:-evaluation/data/h200/kernel_set_tnn_v2.txt}
SHAPES=${SHAPES:-evaluation/data/shapes/h200_v2.json}
PREBUILT=${PREBUILT:-prebuilt}
mkdir -p "$B/src"
for pre in $PREBUILT; do  # build directories made elsewhere (space-separated)
  [ -f "$pre/batches.json" ] && python3 -m benchspace.harness.cli cutlass build --kernels "$LIST" \
      --build-dir "$B" --merge "$pre" --limit 0 --no-driver | head -1
done
# The libs phase brings back every library of $B that was not carried in.
for pre in $PREBUILT; do ls "$pre"/*.so 2>/dev/null; done | xargs -r -n1 basename \
    | sed "s|^|$B/|" | sort > /tmp/libs_before.txt
python3 -c "from pathlib import Path; from benchspace.evaluation.cutlass.build import build_driver; print(build_driver(Path('$B')))"
CUBLAS_LIB=${CUBLAS_LIB:-}
if [ -z "$CUBLAS_LIB" ]; then
  for c in /usr/local/cuda/lib64/libcublasLt.so.13 \
      $(python3 -c "import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], 'lib', 'libcublasLt.so.13'))" 2>/dev/null) \
      $(find / -xdev -name 'libcublasLt.so.13' 2>/dev/null | head -3); do
    if [ -f "$c" ]; then CUBLAS_LIB=$c; break; fi
  done
fi
"$B/cutlass_bench" --cublas-lib "$CUBLAS_LIB" --cublas-info | tee "$OUT/cublas.json" || true
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,temperature.gpu --format=csv > "$OUT/gpu.csv" || true
start=$(date +%s)
finish() {
  cp "$B/batches.json" "$OUT/" 2>/dev/null
  (cd "$OUT" && tar -czf meta.tgz --remove-files $(ls | grep -v -e '\.csv\.gz$' -e '^libs\.tgz' -e '^meta'))
  ls -la "$OUT"
  echo "v2: $(( $(date +%s) - start )) s"
}
trap finish EXIT
for phase in "$@"; do
  case $phase in
  build)
    setsid python3 -m benchspace.harness.cli cutlass build --kernels "$LIST" --build-dir "$B" \
        --per-tu "${PER_TU:-10}" --jobs "${JOBS:-16}" --no-driver ${BATCHES:+--limit $BATCHES} \
        > "$OUT/build.log" 2>&1 &
    pid=$!
    deadline=$(( $(date +%s) + ${BUILD_S:-480} ))
    while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do sleep 2; done
    kill -- -"$pid" 2>/dev/null || true   # the build's process group: python and its nvcc
    sleep 1; kill -9 -- -"$pid" 2>/dev/null || true
    rm -f "$B"/.*.partial
    tail -3 "$OUT/build.log"
    echo "build: $(( $(date +%s) - start )) s, $(ls "$B"/libcb_*.so | wc -l) libraries"
    ;;
  smoke)
    K=$(python3 -c "
import json; idx = json.load(open('$B/batches.json'))['kernels']
names = sorted(n for n in idx if '_stream_k_' in n)[:1] + sorted(n for n in idx if 'pingpong' in n)[:1]
print(' '.join(names))")
    set -- $K
    "$B/cutlass_bench" --lib-dir "$B" --cublas-lib "$CUBLAS_LIB" --rounds-csv "$OUT/smoke_rounds.csv" \
        --heat-s 0.5 --warmups 2 2048 4096 1024 "$1" "$1:M:2" "$1:H:1:k2:dK" "$1:H:1:dD" "$1:H:1:dS" \
        "$2" "$2:N:4" cublas:heuristic cublas:algo0 cublas:algo1 cublas:algo7 > "$OUT/smoke.csv" \
        2> "$OUT/smoke.err" || echo "smoke: rc=$?"
    cut -d, -f1,8,9,11,12,18,19,20,21,25 "$OUT/smoke.csv" | sed 's/cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_//'
    tail -3 "$OUT/smoke.err"
    grep -q '^cublas:heuristic,.*,ok,' "$OUT/smoke.csv" || { echo "smoke: cuBLAS failed"; SMOKE_FAILED=1; }
    ;;
  eval|train)
    if [ -n "${SMOKE_FAILED:-}" ]; then echo "$phase: skipped (smoke failed)"; continue; fi
    var=$(echo "${phase}_S" | tr a-z A-Z)
    python3 scripts/device/measure_passes.py --bench "$B/cutlass_bench" --build-dir "$B" \
        --shapes "$SHAPES" --split "$phase" --out "$OUT" --deadline-s "${!var:-300}" \
        --cublas-lib "$CUBLAS_LIB" \
        --skip-shapes "${SKIP:-evaluation/data/h200/v2/measured_$phase.txt}" \
        ${EXHAUSTIVE:+--exhaustive-first $EXHAUSTIVE} ${MEASURE_ARGS:-} \
        --heat-s "${HEAT_S:-0.5}" | tail -4
    ;;
  libs)
    ls "$B"/*.so | sort > /tmp/libs_after.txt
    comm -13 /tmp/libs_before.txt /tmp/libs_after.txt > /tmp/libs_new.txt
    (cd "$B" && sed "s|$B/||" /tmp/libs_new.txt > /tmp/libs_rel.txt \
        && ls src/*.ptxas.txt >> /tmp/libs_rel.txt && echo batches.json >> /tmp/libs_rel.txt \
        && tar -czf - -T /tmp/libs_rel.txt) | split -b 15M - "$OUT/libs.tgz.part-"
    ;;
  esac
done
