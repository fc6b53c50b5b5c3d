#!/usr/bin/env bash
# The CUDA compile-time example end to end on the GPU machine: build the 25 variants of
# examples/cuda_reduce/reduce.cu (BLOCK_SIZE x ITEMS_PER_THREAD, nvcc for sm_90a) 16 at a time
# while the built ones are timed, tune them on 4 sizes, generate the header, and print the
# winner's speed-up over the library's default (the header's fallbacks).
#
# Two steps. On the CPU machine, from this checkout (packs the committed tree, HEAD, and the
# wheels of the core dependencies the GPU image lacks into DEST, default
# /work/main/.devcarry/variants2; DEST must be inside the checkout that the device receives):
#
#   bash scripts/device/reduce_example.sh pack [DEST]
#
# then with the device tool: carry [".devcarry/variants2"] and run
#
#   cd .devcarry/variants2 && bash scripts/device/reduce_example.sh
#
# (env: SPACE, default spaces/h200_reduce.json; JOBS, default 16; REPEATS, default the
# space's 3; TUNE_LIMIT, default 480 s: the sweep stops there, the rest still runs, and the
# same command again on the warm machine resumes from the store in build/cuda_reduce).
# Brings back under $OUT (at most 8 files): profile.json, store.sqlite.gz, the header
# cuda_reduce_params.hh, speedup.txt + speedup.json, provenance.json (GPU, driver,
# nvcc, clocks and power before/during/after, commit, build and run seconds) and tune.log.
set -uo pipefail

if [ "${1:-}" = "pack" ]; then
  dest=${2:-/work/main/.devcarry/variants2}
  root=$(git rev-parse --show-toplevel) || exit 1
  rm -rf "$dest" && mkdir -p "$dest" || exit 1
  # The code and the example, without the study's data (the device needs none of it).
  git -C "$root" archive HEAD benchspace harness generators evaluation examples spaces scripts \
      include benchmarks/demo pyproject.toml setup.py ':!evaluation/data' | tar -x -C "$dest" || exit 1
  git -C "$root" rev-parse HEAD > "$dest/COMMIT"
  if [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
    echo "pack: note: uncommitted changes are not packed (HEAD $(cat "$dest/COMMIT"))"
  fi
  # jsonschema and its own needs: the GPU image has jinja2, numpy, scipy and attrs already.
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
      --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 -d "$dest/.whl" \
      'jsonschema==4.25.1' 'jsonschema-specifications==2025.9.1' 'referencing==0.36.2' \
      'rpds-py==0.27.1' || exit 1
  echo "pack: $(du -sh "$dest" | cut -f1) in $dest (commit $(cut -c1-12 "$dest/COMMIT"))"
  exit 0
fi

source scripts/device/env.sh
set +e  # a failed step must not lose what the others brought
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
SPACE=${SPACE:-spaces/h200_reduce.json}
JOBS=${JOBS:-16}
B=build/cuda_reduce
start=$(date +%s)
if ! python3 -c "import jsonschema, jinja2, numpy, scipy" 2>"$OUT/tune.log"; then
  echo "reduce_example: benchspace's dependencies are missing (carry the packed .whl):"
  cat "$OUT/tune.log"
  exit 1
fi
if ! command -v nvcc >/dev/null; then
  echo "reduce_example: no nvcc on PATH or in /usr/local/cuda/bin" | tee -a "$OUT/tune.log"
  exit 1
fi
gpu_state() {  # one CSV line: clocks, power, temperature
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,clocks.max.sm,power.draw,power.limit,temperature.gpu,pstate \
      --format=csv,noheader,nounits 2>/dev/null | head -1
}
before=$(gpu_state)
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader,nounits -lms 500 \
    > /tmp/reduce_dmon.csv 2>/dev/null &
dmon=$!
repeats=()
[ -n "${REPEATS:-}" ] && repeats=(--repeats "$REPEATS")
tune0=$(date +%s.%N)
# The store lives in the build folder: a second call on the still-warm machine resumes from it
# (what is measured is not measured again) when a first one ran out of time.
timeout -s INT "${TUNE_LIMIT:-480}" python3 -m benchspace.harness.cli tune --space "$SPACE" \
    --build-dir "$B" --build-jobs "$JOBS" --out "$OUT/profile.json" --store "$B/store.sqlite" \
    --allow-failures ${TUNE_FLAGS:-} "${repeats[@]}" >> "$OUT/tune.log" 2>&1
tune_rc=$?
if [ "$tune_rc" = 124 ]; then
  echo "tune: stopped after ${TUNE_LIMIT:-480} s; run the same command again to resume"
fi
tune1=$(date +%s.%N)
kill "$dmon" 2>/dev/null
wait "$dmon" 2>/dev/null
after=$(gpu_state)
tail -12 "$OUT/tune.log"
echo "tune: exit $tune_rc, $(python3 -c "print(f'{$tune1 - $tune0:.1f}')") s"

python3 -m benchspace.harness.cli generate --profile "$OUT/profile.json" --space "$SPACE" \
    --out "$OUT/cuda_reduce_params.hh" >> "$OUT/tune.log" 2>&1
echo "generate: exit $?"
if [ -f "$OUT/cuda_reduce_params.hh" ]; then  # the header compiles as C++17 and as CUDA
  echo '#include "cuda_reduce_params.hh"' > /tmp/reduce_header_check.cc
  g++ -std=c++17 -fsyntax-only -I"$OUT" /tmp/reduce_header_check.cc >> "$OUT/tune.log" 2>&1
  echo "header compiles (g++): exit $?"
fi
python3 examples/cuda_reduce/speedup.py --profile "$OUT/profile.json" --space "$SPACE" \
    --json "$OUT/speedup.json" > "$OUT/speedup.txt" 2>&1
cat "$OUT/speedup.txt"

COMMIT=$(cat COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown) \
BEFORE=$before AFTER=$after TUNE_S=$(python3 -c "print($tune1 - $tune0)") TUNE_RC=$tune_rc \
SPACE=$SPACE JOBS=$JOBS B=$B python3 - <<'PY'
import json, os, sqlite3, statistics, subprocess

out = os.environ["OUT"]
def run(*argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        return ""
def state(line):
    keys = ["sm_mhz", "mem_mhz", "max_sm_mhz", "power_w", "power_limit_w", "temp_c", "pstate"]
    vals = [v.strip() for v in line.split(",")] if line else []
    return dict(zip(keys, vals))
during = {}
try:
    rows = [l.split(",") for l in open("/tmp/reduce_dmon.csv") if l.count(",") == 1]
    sm = [float(a) for a, _ in rows if a.strip().replace(".", "").isdigit()]
    pw = [float(b) for _, b in rows if b.strip().replace(".", "").isdigit()]
    if sm:
        during["sm_mhz"] = {"min": min(sm), "median": statistics.median(sm), "max": max(sm)}
    if pw:
        during["power_w"] = {"min": min(pw), "median": statistics.median(pw), "max": max(pw)}
    during["samples"] = len(rows)
except OSError:
    pass
builds, runs = {}, {}
try:
    db = sqlite3.connect(f"file:{os.environ['B']}/store.sqlite?mode=ro", uri=True)
    for status, n, s in db.execute("SELECT status, COUNT(*), SUM(seconds) FROM builds GROUP BY status"):
        builds[status] = {"count": n, "seconds": round(s or 0.0, 3)}
    for status, n, s in db.execute(
        "SELECT status, COUNT(*), SUM(duration_s) FROM attempts GROUP BY status"
    ):
        runs[status] = {"count": n, "seconds": round(s or 0.0, 3)}
    db.close()
    db = sqlite3.connect(f"{os.environ['B']}/store.sqlite")  # the write-ahead log folded in
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
except sqlite3.Error as exc:
    builds["error"] = str(exc)
device = json.load(open(f"{out}/device.json"))
prov = {
    **device,
    "nvcc_version": run("nvcc", "--version").splitlines()[-2:],
    "gpu_uuid": run("nvidia-smi", "--query-gpu=uuid", "--format=csv,noheader"),
    "vbios": run("nvidia-smi", "--query-gpu=vbios_version", "--format=csv,noheader"),
    "commit": os.environ["COMMIT"],
    "space": os.environ["SPACE"],
    "build_jobs": int(os.environ["JOBS"]),
    "gpu_before": state(os.environ["BEFORE"]),
    "gpu_during": during,
    "gpu_after": state(os.environ["AFTER"]),
    "tune_exit": int(os.environ["TUNE_RC"]),
    "sweep_wall_s": round(float(os.environ["TUNE_S"]), 3),
    "builds": builds,
    "build_seconds_total": round(sum(v.get("seconds", 0.0) for v in builds.values() if isinstance(v, dict)), 3),
    "runs": runs,
    "run_seconds_total": round(sum(v["seconds"] for v in runs.values()), 3),
}
json.dump(prov, open(f"{out}/provenance.json", "w"), indent=2, sort_keys=True)
print(f"builds: {builds}")
print(f"runs: {runs}")
print(f"sweep wall {prov['sweep_wall_s']} s; build seconds {prov['build_seconds_total']}, "
      f"run seconds {prov['run_seconds_total']}; SM clock during {during.get('sm_mhz')}")
PY
rm -f "$OUT/device.json"
[ -f "$B/store.sqlite" ] && gzip -9 -c "$B/store.sqlite" > "$OUT/store.sqlite.gz"
ls -la "$OUT"
echo "reduce_example: $(( $(date +%s) - start )) s"
