#!/usr/bin/env bash
# On the GPU machine: the wide cuBLASLt study. Three runs over the 64 v2 evaluation shapes,
# each in fresh driver processes (scripts/device/timing_runs.py), nothing timed while nvcc runs:
#   s  screen: every configuration of cuBLASLt's listed space per shape (the recorded
#      evaluation/data/h200/cublaslt/space.csv.gz on an H200 whose cuBLASLt is the version it
#      was listed with, else listed again here), mode s3r2 (cheap);
#   a  selection: the K = 8 CUTLASS shortlist, cuBLASLt's top 8 (pinned) and the screen's
#      --top fastest others, mode g0r10;
#   d  confirmation: run a's picks beside cublas:heuristic and cublas:algo0..7, mode g0r10.
# Every figure of a pick comes from run d (benchspace cutlass summary on the data folder).
# The screen takes about 7 s a shape (cuBLASLt loads each configuration's kernel on first use),
# so the study takes two calls, the second on the machine the first left warm:
#
#   PART=screen LIBS=.devcarry/libs bash scripts/device/cublaslt_wide.sh
#   PART=rest LIBS=.devcarry/libs [SCREEN=DIR] bash scripts/device/cublaslt_wide.sh
#
# env: PART (screen, rest, or all: both in one call), LIBS (a folder with the shortlist's
# libcb_*.so, batches.json and cutlass_bench built elsewhere; else they are built here from
# spaces/timing_finalists.kernels.txt, which needs the nvidia-cutlass wheel in .whl), SCREEN (a
# folder holding the first call's results.tgz, when the second call finds a fresh machine),
# TOP (screened configurations per shape in run a, 8), FINALISTS (the shapes and their CUTLASS
# shortlists, as spaces/cublaslt_finalists.json: {"MxNxK": {"shortlist": [kernel, ...]}}; other
# shapes than the study's have their space listed here, and their kernels must be in LIBS),
# RANKED (the screen's finalists written by scripts/cublaslt_rank.py --space ... --out FILE: the
# screen times the ranker's top k per shape instead of the whole listed space).
source scripts/device/env.sh
set +e
B=/tmp/cbuild
R=/tmp/cresults
D=evaluation/data/h200/cublaslt
PART=${PART:-all}
FINALISTS=${FINALISTS:-spaces/cublaslt_finalists.json}
mkdir -p "$B" "$R"
start=$(date +%s)
if [ ! -x "$B/cutlass_bench" ]; then
  [ -n "${LIBS:-}" ] && cp -a "$LIBS"/. "$B"/ && echo "carried: $(ls $B/libcb_*.so | wc -l) libraries"
  python3 -m benchspace.harness.cli cutlass build --kernels spaces/timing_finalists.kernels.txt \
      --build-dir "$B" --per-tu "${PER_TU:-7}" --jobs 16 --no-driver > "$R/build.log" 2>&1
  tail -1 "$R/build.log"
  python3 -c "from pathlib import Path; from benchspace.evaluation.cutlass.build import build_driver; print(build_driver(Path('$B')))"
else
  echo "warm machine: $B and $(ls $R | wc -l) files of $R kept"
fi
if [ "$PART" = rest ] && [ ! -f "$R/timing_rows_s_s3r2.csv.gz" ]; then
  echo "a fresh machine: the screen comes from $SCREEN"
  tar -xzf "$SCREEN/results.tgz" -C "$R" || exit 1
fi
CUBLAS_LIB=/usr/local/cuda/lib64/libcublasLt.so.13
[ -f "$CUBLAS_LIB" ] || CUBLAS_LIB=$(find / -xdev -name 'libcublasLt.so.13' 2>/dev/null | head -1)
"$B/cutlass_bench" --cublas-lib "$CUBLAS_LIB" --cublas-info > "$R/cublas_$PART.json"
cat "$R/cublas_$PART.json"
cp "$OUT/device.json" "$R/device_$PART.json" && rm -f "$OUT/device.json"
smi() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,power.draw,temperature.gpu --format=csv > "$R/$1.csv"
}
smi "gpu_before_$PART"
echo "build: $(( $(date +%s) - start )) s"
if [ "$PART" != rest ]; then
  if [ -n "${RANKED:-}" ]; then
    cp "$RANKED" "$R/finalists_s.json"
    echo "screen: the ranker's list $RANKED"
  else
    SPACE="$D/space.csv.gz"
    recorded=$(python3 -c "import json; print(json.load(open('$D/cublas.json'))['version'])")
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
    if ! grep -q "\"version\": $recorded" "$R/cublas_$PART.json" || [ "$gpu" != "NVIDIA H200" ] ||
       [ "$FINALISTS" != spaces/cublaslt_finalists.json ]; then
      echo "$gpu, not the recorded space's NVIDIA H200 with cuBLASLt $recorded: listing it again"
      python3 scripts/device/cublaslt_space.py --bench "$B/cutlass_bench" --cublas-lib "$CUBLAS_LIB" \
          --finalists "$FINALISTS" --out "$R/finalists_listed.json" --sample 0 > "$R/space.log" 2>&1
      SPACE="$R/space.csv.gz"
    fi
    python3 scripts/device/cublaslt_wide.py --stage screen --space "$SPACE" --out "$R/finalists_s.json"
  fi
  python3 scripts/device/timing_runs.py --bench "$B/cutlass_bench" --build-dir "$B" \
      --finalists "$R/finalists_s.json" --out "$R" --runs "s:s3r2" --warmups 1 \
      --deadline-s "${SCREEN_S:-520}" --cublas-lib "$CUBLAS_LIB" 2>&1 | tee "$R/runs_s.log"
  echo "screen: $(( $(date +%s) - start )) s"
fi
if [ "$PART" != screen ]; then
  python3 scripts/device/cublaslt_wide.py --stage select --shortlist "$FINALISTS" \
      --rows "$R/timing_rows_s_s3r2.csv.gz" --top "${TOP:-8}" --out "$R/finalists.json"
  python3 scripts/device/timing_runs.py --bench "$B/cutlass_bench" --build-dir "$B" \
      --finalists "$R/finalists.json" --out "$R" --runs "a:g0r10" \
      --deadline-s "${SELECT_S:-200}" --cublas-lib "$CUBLAS_LIB" 2>&1 | tee "$R/runs_a.log"
  python3 scripts/device/cublaslt_wide.py --stage confirm --finalists "$R/finalists.json" \
      --rows "$R/timing_rows_a_g0r10.csv.gz" --out "$R/finalists_d.json"
  python3 scripts/device/timing_runs.py --bench "$B/cutlass_bench" --build-dir "$B" \
      --finalists "$R/finalists_d.json" --out "$R" --runs "d:g0r10" \
      --deadline-s "${CONFIRM_S:-150}" --cublas-lib "$CUBLAS_LIB" 2>&1 | tee "$R/runs_d.log"
fi
smi "gpu_after_$PART"
# The screen's per-round rows travel apart (the largest file; the rest comes back without it).
(cd "$R" && tar -czf "$OUT/results.tgz" --exclude='timing_rounds_s_*' --exclude='build.log' .)
[ "$PART" != rest ] && cp "$R"/timing_rounds_s_*.csv.gz "$OUT/" 2>/dev/null
ls -la "$OUT"
echo "cublaslt_wide $PART: $(( $(date +%s) - start )) s"
