#!/usr/bin/env bash
# On the GPU machine: build the shipped header's GEMM library through its own CMake project and
# check benchspace::gemm::run on the 64 evaluation shapes of dataset v2, timed beside the
# cuBLASLt heuristic in the same interleaved rounds:
#
#   benchspace cutlass library --header $HEADER --out $LIB      (needs the nvidia-cutlass wheel,
#   cmake -S $LIB -B $LIB/build && cmake --build ... -j$JOBS     carried in .whl as for build.sh)
#   $LIB/build/verify_and_time $SHAPES --rounds $ROUNDS --min-ms $MIN_MS
#
#   run: bash scripts/device/library_check.sh   (env: HEADER SHAPES LIB JOBS PER_TU ROUNDS MIN_MS CUBLASLT_ROOT
#        COMMIT: the commit to record, where the copy on the GPU machine has no .git)
#
# Brings back under $OUT: library_check.csv.gz (one row per shape: the header's choice, what
# run() ran, ok, rel_err, ms of run() and of the heuristic, speedup), provenance.json (GPU,
# driver, nvcc, CUTLASS and cuBLASLt versions, commit, header hash, SM clock and power over the
# run), clocks.csv.gz (nvidia-smi every 500 ms), and the generate / build / verify logs.
source scripts/device/env.sh
set +e  # a failed step must not lose what the others brought
HEADER=${HEADER:-include/benchspace/gemm_kernels.hh}
SHAPES=${SHAPES:-evaluation/data/shapes/h200_v2_eval.txt}
LIB=${LIB:-/tmp/benchspace_gemm}
JOBS=${JOBS:-16}
PER_TU=${PER_TU:-4}
ROUNDS=${ROUNDS:-15}
MIN_MS=${MIN_MS:-2}
start=$(date +%s)

if ! command -v cmake >/dev/null; then
  python3 -m pip install -q --no-index --find-links .whl cmake >/dev/null 2>&1 ||
    { echo "cmake not found and no cmake wheel in .whl; carry one"; exit 1; }
fi
if ! python3 -c "import cutlass_library" 2>/dev/null; then
  echo "cutlass_library not importable: carry the nvidia-cutlass wheel in .whl (see build.sh)"
  exit 1
fi

python3 -m benchspace.harness.cli cutlass library --header "$HEADER" --out "$LIB" \
    --per-tu "$PER_TU" > "$OUT/library.log" 2>&1 || { cat "$OUT/library.log"; exit 1; }
cat "$OUT/library.log"
generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
# cuBLASLt: the toolkit's, else the nvidia-cublas wheel's (as tune_shapes.sh finds it).
CUBLASLT_ROOT=${CUBLASLT_ROOT:-}
if [ -z "$CUBLASLT_ROOT" ] && [ ! -f /usr/local/cuda/include/cublasLt.h ]; then
  CUBLASLT_ROOT=$(python3 - 2>/dev/null <<'PY'
import glob, os, nvidia
found = [h for p in nvidia.__path__ for h in sorted(glob.glob(os.path.join(p, "*", "include", "cublasLt.h")))]
print(os.path.dirname(os.path.dirname(found[0])) if found else "")
PY
)
fi
echo "cuBLASLt: ${CUBLASLT_ROOT:-from the CUDA toolkit}"
cmake -S "$LIB" -B "$LIB/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    ${CUBLASLT_ROOT:+-DCUBLASLT_ROOT="$CUBLASLT_ROOT"} \
    > "$OUT/build.log" 2>&1 && cmake --build "$LIB/build" -j "$JOBS" >> "$OUT/build.log" 2>&1
build_rc=$?
built=$(date +%s)
echo "build: rc $build_rc, $((built - start)) s"
tail -3 "$OUT/build.log"
[ $build_rc -eq 0 ] || exit 1

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv,noheader,nounits -lms 500 > /tmp/clocks.csv 2>/dev/null &
smi=$!
"$LIB/build/verify_and_time" "$SHAPES" --rounds "$ROUNDS" --min-ms "$MIN_MS" \
    --csv /tmp/library_check.csv 2> "$OUT/verify.log"
verify_rc=$?
kill "$smi" 2>/dev/null
wait "$smi" 2>/dev/null
echo "verify_and_time: rc $verify_rc, $(($(date +%s) - built)) s"
tail -3 "$OUT/verify.log"
gzip -c /tmp/library_check.csv > "$OUT/library_check.csv.gz"
gzip -c /tmp/clocks.csv > "$OUT/clocks.csv.gz"

COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
python3 - "$LIB" "$HEADER" "$SHAPES" "$COMMIT" "$ROUNDS" "$MIN_MS" "$build_rc" "$verify_rc" <<'EOF'
import csv, hashlib, json, math, os, re, statistics, sys
lib, header, shapes, commit, rounds, min_ms, build_rc, verify_rc = sys.argv[1:]
out = os.environ["OUT"]
device = json.load(open(f"{out}/device.json"))
manifest = json.load(open(f"{lib}/library.json"))
log = open(f"{out}/verify.log").read()
found = re.search(r"cuBLASLt (\d+)", log)
rows = list(csv.DictReader(open("/tmp/library_check.csv")))
clocks = [line.split(",") for line in open("/tmp/clocks.csv") if line.count(",") >= 4]
def med(i):
    vals = [float(c[i]) for c in clocks if c[i].strip().replace(".", "", 1).isdigit()]
    return statistics.median(vals) if vals else None
ok = [r for r in rows if r["ok"] == "1"]
speed = [float(r["speedup"]) for r in ok if r["speedup"] not in ("", "nan")]
summary = {
    "shapes": len(rows),
    "ok": len(ok),
    "fallbacks": sum(r["choice"] != r["header_choice"] for r in rows),
    "geomean_speedup_vs_heuristic": math.exp(sum(map(math.log, speed)) / len(speed)) if speed else None,
    "min_speedup": min(speed) if speed else None,
    "max_rel_err": max((float(r["rel_err"]) for r in ok), default=None),
}
prov = {
    **device,
    "what": "benchspace cutlass library + CMake build + verify_and_time",
    "commit": commit,
    "header": header,
    "header_sha256": hashlib.sha256(open(header, "rb").read()).hexdigest(),
    "shapes_file": shapes,
    "cutlass_version": manifest["cutlass_version"],
    "cublaslt_version": int(found.group(1)) if found else None,
    "header_cublaslt_version": manifest["cublaslt_version"],
    "rounds": int(rounds),
    "min_graph_ms": float(min_ms),
    "build_rc": int(build_rc),
    "verify_rc": int(verify_rc),
    "sm_clock_mhz_median": med(1),
    "mem_clock_mhz_median": med(2),
    "power_w_median": med(3),
    "temperature_c_median": med(4),
    "summary": summary,
}
json.dump(prov, open(f"{out}/provenance.json", "w"), indent=2)
print(json.dumps(summary))
EOF
ls -la "$OUT"
