#!/usr/bin/env bash
# The pilot on one NVIDIA GPU, in under 8 minutes: a random-initialised ~1.2-billion-parameter
# Llama-style model (Llama 3.2 1B dimensions: 16 layers, hidden 2048, 32 heads, 8 KV heads,
# MLP 8192, vocabulary 128256, tied embeddings) in bf16 autocast, full fine-tune and LoRA,
# each with the fresh-process restore check. Writes one result file per run to the directory
# given as $1 (default: $OUT when set, else results/gpu), then validates them and prints the
# calculator's estimate against torch.cuda.max_memory_allocated.
#
# Usage: bash benchmarks/gpu_pilot.sh [OUTPUT_DIR]     (run from anywhere; needs torch with CUDA)
set -euo pipefail

cd "$(dirname "$0")/.."
OUTDIR="${1:-${OUT:-results/gpu}}"
PY="${PYTHON:-python3}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpu-pilot.XXXXXX")"   # checkpoints (~15 GB for the full fine-tune)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUTDIR"

"$PY" - <<'PY'
import sys, torch
if not torch.cuda.is_available():
    sys.exit("gpu_pilot.sh: this PyTorch build sees no CUDA device")
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}, "
      f"{torch.cuda.get_device_properties(0).total_memory / 1e9:.0f} GB")
PY

MODEL=(--layers 16 --hidden 2048 --heads 32 --kv-heads 8 --intermediate 8192 --vocab 128256 --tie-embeddings)
COMMON=(--device cuda --precision bf16 --seq-len 2048 --warmup-steps 5 --steps 20 --val-batches 2 --quiet --overwrite)
DEVICE_NAME="$("$PY" -c 'import torch; print(torch.cuda.get_device_name(0))')"
status=0

# Each run is bounded so that both fit in the 8 minutes even if one misbehaves; exit 3 means a
# failed restore check, which is recorded in the file and must not stop the LoRA run.
timeout 270 "$PY" -m pilot run "${MODEL[@]}" "${COMMON[@]}" --method full --micro-batch 4 \
  --label "$DEVICE_NAME full fine-tune, 1.2B Llama-style, bf16" \
  --note "benchmarks/gpu_pilot.sh: random-initialised Llama 3.2 1B shape, AdamW, seq 2048, micro-batch 4" \
  --workdir "$WORK/full" --output "$OUTDIR/gpu-full-bf16.json" || status=$?

timeout 150 "$PY" -m pilot run "${MODEL[@]}" "${COMMON[@]}" --method lora --lora-rank 16 --micro-batch 8 \
  --label "$DEVICE_NAME LoRA r16, 1.2B Llama-style, bf16" \
  --note "benchmarks/gpu_pilot.sh: random-initialised Llama 3.2 1B shape, LoRA rank 16 on all linear layers, seq 2048, micro-batch 8" \
  --workdir "$WORK/lora" --output "$OUTDIR/gpu-lora-bf16.json" || status=$?

"$PY" -m pilot validate "$OUTDIR"/gpu-*.json || status=$?

"$PY" - "$OUTDIR" <<'PY'
import json, pathlib, sys
for path in sorted(pathlib.Path(sys.argv[1]).glob("gpu-*.json")):
    r = json.loads(path.read_text())
    m, e, rs = r["memory"] or {}, r["estimate"] or {}, r["restore"] or {}
    print(f"{path.name}: status {r['outcome']['status']}, max_memory_allocated {m.get('peak_tensor_bytes', 0) / 1e9:.2f} GB, "
          f"estimate {(e.get('estimated_bytes') or 0) / 1e9:.2f} GB (error {e.get('relative_error')}), "
          f"restore passed {rs.get('passed')}")
    if e.get("components"):
        print("  estimate by component (GB):", {k: round(v / 1e9, 2) for k, v in e["components"].items()})
PY
exit "$status"
