#!/usr/bin/env bash
# On the GPU machine: compile the first $COUNT kernels of the kernel set that the carried build
# dir lacks, for at most $1 seconds; bring back the index, the log and the new libraries (as
# tar.gz parts under 16 MB, so a later call can carry them if this machine is gone).
source scripts/device/env.sh
LIMIT_S=${1:-540}
JOBS=${JOBS:-16}
PER_TU=${PER_TU:-10}
COUNT=${COUNT:-650}
start=$(date +%s)
list=/tmp/kernels.txt
grep -v '^#' evaluation/data/h200/kernel_set_tnn.txt | head -n "$COUNT" > "$list"
ls build/cutlass/*.so 2>/dev/null | sort > /tmp/before.txt
timeout --signal=KILL "$LIMIT_S" python3 -m benchspace.harness.cli cutlass build --kernels "$list" \
    --build-dir build/cutlass --per-tu "$PER_TU" --jobs "$JOBS" ${BATCHES:+--limit $BATCHES} --no-driver \
    > "$OUT/build.log" 2>&1 || true
tail -5 "$OUT/build.log"
echo "build: $(( $(date +%s) - start )) s, $(ls build/cutlass/libcb_*.so | wc -l) libraries"
cp build/cutlass/batches.json "$OUT/"
ls build/cutlass/*.so | sort > /tmp/after.txt
comm -13 /tmp/before.txt /tmp/after.txt > /tmp/new.txt
tar -czf - -T /tmp/new.txt | split -b 15M - "$OUT/libs.tgz.part-"
ls -la "$OUT"
