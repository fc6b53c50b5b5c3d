#!/usr/bin/env bash
# On the GPU machine, one call for the compile-time variants: first, with nothing else
# running, benchmarks/variant_pipeline.py on the machine's CPU cores (builds pinned apart from
# timed runs; values timed during builds against quiet ones); then the CUDA example swept with
# `tune --confirm 3` (reduce_example.sh: the picks and the library's default re-timed in
# fresh interleaved rounds). Brings back pipeline.json + pipeline.txt and reduce.tgz.
#
#   bash scripts/device/variants_check.sh     (env: PIPELINE_ARGS, PIPELINE_TIMEOUT, TUNE_LIMIT; REDUCE=0: the
#                                             pipeline alone)
source scripts/device/env.sh
set +e
start=$(date +%s)
top=$OUT
uptime > "$top/pipeline.txt"
timeout "${PIPELINE_TIMEOUT:-420}" python3 benchmarks/variant_pipeline.py ${PIPELINE_ARGS:-} \
    --json "$top/pipeline.json" >> "$top/pipeline.txt" 2>&1
echo "variant_pipeline: exit $?, $(( $(date +%s) - start )) s"
cat "$top/pipeline.txt"
[ "${REDUCE:-1}" = 0 ] && exit 0
mkdir -p /tmp/reduce
OUT=/tmp/reduce TUNE_FLAGS="--confirm 3" TUNE_LIMIT=${TUNE_LIMIT:-240} JOBS=16 \
    bash scripts/device/reduce_example.sh 2>&1 | tail -14
cp "$top/device.json" /tmp/reduce/device.json 2>/dev/null
(cd /tmp/reduce && tar -czf "$top/reduce.tgz" .)
ls -la "$top"
echo "variants_check: $(( $(date +%s) - start )) s"
