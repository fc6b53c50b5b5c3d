#!/usr/bin/env bash
# On the GPU machine: write the study space from what compiled, sweep it with benchspace
# (one driver process per shape, round-robin timing), time cuBLAS the same way, and bring
# back the store, the profile and the baseline.
source scripts/device/env.sh
start=$(date +%s)
python3 -m harness.cli cutlass space --build-dir build/cutlass ${LIMIT:+--limit $LIMIT} \
    --budget "${BUDGET:-200}"
python3 -m harness.cli tune --space spaces/cutlass_sm90_bf16.json --build-dir build/cutlass \
    --out "$OUT/profile.json" --store "${STORE:-$OUT/store.sqlite}" --allow-failures ${BENCH:+--bench $BENCH} \
    2>&1 | tail -25
python3 benchmarks/cutlass/cublas_baseline.py --shapes evaluation/data/shapes/h200.json \
    --out "$OUT/cublas.csv" || true
cp build/cutlass/batches.json evaluation/data/h200/kernels_compiled_tnn.txt \
    spaces/cutlass_sm90_bf16.json "$OUT/" || true
echo "measure: $(( $(date +%s) - start )) s"
