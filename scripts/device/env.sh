# Sourced at the start of every command on the GPU machine: install the carried wheels (the
# machine reaches no package index) and make the checkout importable.
set -euo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl >/dev/null 2>&1 || true
export PYTHONPATH=/tmp/site:$PWD
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
{
  echo "{"
  echo "  \"gpu\": \"$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)\","
  echo "  \"driver\": \"$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)\","
  echo "  \"nvcc\": \"$(nvcc --version | tail -2 | head -1 | sed 's/"//g')\","
  echo "  \"cpu_cores\": $(nproc),"
  echo "  \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\""
  echo "}"
} > "$OUT/device.json"
