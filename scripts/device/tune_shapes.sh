#!/usr/bin/env bash
# On the GPU machine: tune my shapes. $SPACE is a `benchspace cutlass tune-shapes` space
# written on the CPU machine (the selector needs pandas and xgboost, which the GPU machine
# may lack), with its <stem>.kernels.txt and <stem>.shortlist.csv beside it; the committed
# default is the top 8 of 24 LLM projection shapes (evaluation/data/shapes/llm_projections.txt):
#
#   benchspace cutlass tune-shapes evaluation/data/shapes/llm_projections.txt --topk 8 \
#       --out spaces/tune_shapes_llm.json
#
# This script compiles exactly the shortlisted kernels the build dir lacks, measures every
# shape's shortlist with cuBLASLt (cublas:heuristic, cublas:algo0..7) in the same interleaved
# rounds (`benchspace tune`, one driver process per shape), and, where pandas is installed,
# writes a header per K in $KS from the measured winners (else run the same `cutlass header
# --from-profile` lines on the CPU machine). K in $KS are prefixes of the one top-8 shortlist,
# all timed in the same rounds (measured separately they would be re-timed under other
# clocks, and the store would serve the smaller K from cache anyway).
#
#   run: bash scripts/device/tune_shapes.sh    (env: SPACE KS B JOBS PER_TU PREBUILT STORE
#        CONFIRM TUNE_FLAGS TUNE_BY)
#
# CONFIRM (default "--confirm 17 --confirm-rounds 2"): after the selection rounds every shape's
# configurations are re-timed in fresh driver processes (`tune --confirm`), and the profile's
# figures come from those; CONFIRM="" stops after the selection. STORE (default
# $OUT/store.sqlite) may name a store kept between calls: a second call with the same STORE
# resumes (the selection from the store, then the confirmation); a store carried from another
# machine needs TUNE_FLAGS=--allow-other-host. TUNE_BY=S interrupts the tune (SIGINT: the
# store keeps every finished attempt) S seconds after the script started, so that a call ends
# inside the device's command limit with its store brought back; the next call resumes it.
#
# Needs the v2 driver (cublas:* configurations; benchmarks/cutlass since dataset v2); with an older
# driver the cublas:* configurations are dropped from the space and the run says so. Brings
# back under $OUT: the space, shortlist and kernel list, profile.json + store.sqlite,
# winners_k<K>.md and gemm_kernels_k<K>.hh, batches.json and the build log (all but the profile
# and the store packed in rest.tgz: the device brings back 8 files at most).
source scripts/device/env.sh
set +e  # a failed step must not lose what the others brought
SPACE=${SPACE:-spaces/tune_shapes_llm.json}
KS=${KS-1 4 8}  # KS="" writes no header
B=${B:-build/cutlass}
start=$(date +%s)
mkdir -p "$B"
cutlass() { python3 -m benchspace.harness.cli cutlass "$@"; }
merge=()
for pre in ${PREBUILT:-prebuilt}; do  # build directories carried from elsewhere
  [ -f "$pre/batches.json" ] && merge+=(--merge "$pre")
done
cutlass build --kernels "${SPACE%.json}.kernels.txt" --build-dir "$B" "${merge[@]}" \
    --per-tu "${PER_TU:-6}" --jobs "${JOBS:-16}" > "$OUT/build.log" 2>&1
tail -3 "$OUT/build.log"
echo "build: $(( $(date +%s) - start )) s"
CUBLAS_LIB=${CUBLAS_LIB:-}
if [ -z "$CUBLAS_LIB" ]; then
  for c in /usr/local/cuda/lib64/libcublasLt.so.13 \
      $(python3 -c "import nvidia, os, glob; print(*glob.glob(os.path.join(list(nvidia.__path__)[0], '*', 'lib', 'libcublasLt.so.13')) + glob.glob(os.path.join(list(nvidia.__path__)[0], '*', '*', 'lib', 'libcublasLt.so.13')))" 2>/dev/null); do
    if [ -f "$c" ]; then CUBLAS_LIB=$c; break; fi
  done
fi
# The driver's cuBLASLt (it reads $CB_CUBLASLT when no --cublas-lib is given); recorded.
if [ -n "$CUBLAS_LIB" ]; then export CB_CUBLASLT=$CUBLAS_LIB; fi
if ! "$B/cutlass_bench" --cublas-info > "$OUT/cublas.json" 2>&1; then
  echo "tune_shapes: this driver times no cuBLAS (not the v2 driver): measuring CUTLASS only"
  python3 - "$SPACE" <<'PY'
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
for bench in doc["spaces"]:
    flags = bench["flags"]
    if "--cublas-algos" in flags:
        at = flags.index("--cublas-algos")
        del flags[at : at + 2]
    for case in bench["cases"]:
        case["tune"]["kernel"] = [c for c in case["tune"]["kernel"] if not c.startswith("cublas:")]
json.dump(doc, open(path, "w"), indent=2, sort_keys=True)
PY
fi
measure=$(date +%s)
STORE=${STORE:-$OUT/store.sqlite}
if [ -z "${CONFIRM+set}" ]; then CONFIRM="--confirm 17 --confirm-rounds 2"; fi
mkdir -p "$(dirname "$STORE")"
limit=()
if [ -n "${TUNE_BY:-}" ]; then limit=(timeout -s INT "$(( TUNE_BY - ($(date +%s) - start) ))"); fi
# shellcheck disable=SC2086  # CONFIRM and TUNE_FLAGS are word lists
"${limit[@]}" python3 -m benchspace.harness.cli tune --space "$SPACE" --build-dir "$B" \
    --out "$OUT/profile.json" \
    --store "$STORE" --allow-failures $CONFIRM ${TUNE_FLAGS:-} \
    2>&1 | tail -8
[ "$STORE" = "$OUT/store.sqlite" ] || gzip -c "$STORE" > "$OUT/store.sqlite.gz"
echo "measure: $(( $(date +%s) - measure )) s"
python3 -c "import pandas" 2>/dev/null || KS=""  # headers then on the CPU machine
for k in $KS; do
  cutlass header --from-profile "$OUT/profile.json" --shortlist "${SPACE%.json}.shortlist.csv" \
      --topk "$k" --out "$OUT/gemm_kernels_k$k.hh" > "$OUT/winners_k$k.md" 2>&1
  tail -1 "$OUT/winners_k$k.md"
done
cp "$SPACE" "${SPACE%.json}.shortlist.csv" "${SPACE%.json}.kernels.txt" "$B/batches.json" \
    "$OUT/" 2>/dev/null
echo "tune_shapes: $(( $(date +%s) - start )) s"
# The device brings back at most 8 files: everything but the profile and the store in one tarball.
(cd "$OUT" && tar -czf /tmp/tune_shapes_rest.tgz --exclude=profile.json --exclude='store.sqlite*' . \
    && find . -maxdepth 1 -type f ! -name profile.json ! -name 'store.sqlite*' -delete \
    && mv /tmp/tune_shapes_rest.tgz rest.tgz)
ls -la "$OUT"
