#!/usr/bin/env bash
# The pilot on one NVIDIA GPU through the real stack (transformers + peft, models built from their
# configuration with random weights, bf16 weights under bf16 autocast), in under 8 minutes:
#   Llama 3.2 1B  full fine-tune (restore check), LoRA r16 (restore check), LoRA with Liger's fused
#                 loss when liger-kernel is installed;
#   Llama 3.1 8B  LoRA r16 with checkpointing, QLoRA (NF4) when bitsandbytes is installed;
#   on a node of several GPUs, `scale` of the 1B full fine-tune over all of them (every strategy).
# Each result gets the calculator's estimate against torch.cuda.max_memory_allocated (goal: 5 %),
# and the reserved memory against the estimate plus the calculator's 10 % fragmentation allowance.
#
# Usage: bash benchmarks/gpu_pilot.sh [OUTPUT_DIR]   (default: $OUT when set, else results/gpu)
# Writes OUTPUT_DIR/gpu-*.json, gpu_pilot.log (progress of every run) and nvidia-smi.txt.
set -euo pipefail

cd "$(dirname "$0")/.."
OUTDIR="${1:-${OUT:-results/gpu}}"
PY="${PYTHON:-python3}"
mkdir -p "$OUTDIR"
LOG="$OUTDIR/gpu_pilot.log"
# Checkpoints go on the output disk (a full fine-tune of the 1B size writes about 15 GB).
WORK="$(mktemp -d "$OUTDIR/.gpu-pilot-work.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
NEED_GB=40

rm -f "$OUTDIR"/gpu-*.json "$OUTDIR/nvidia-smi.txt"   # stale results must not pass for new ones
: > "$LOG"
say() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$LOG"; }

free_gb=$(( $(df --output=avail -B1 "$WORK" | tail -1) / 1000000000 ))
if (( free_gb < NEED_GB )); then
  say "gpu_pilot.sh: only ${free_gb} GB free under $OUTDIR; the checkpoints need about ${NEED_GB} GB"
  exit 2
fi

"$PY" - <<'PY' 2>&1 | tee -a "$LOG"
import sys, torch
if not torch.cuda.is_available():
    sys.exit("gpu_pilot.sh: this PyTorch build sees no CUDA device")
import transformers, peft
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, transformers {transformers.__version__}, "
      f"peft {peft.__version__}, {torch.cuda.get_device_name(0)}, "
      f"{torch.cuda.get_device_properties(0).total_memory / 1e9:.0f} GB")
PY
nvidia-smi -q > "$OUTDIR/nvidia-smi.txt" 2>&1 || say "nvidia-smi -q failed; snapshot not recorded"
has() { "$PY" -c "import $1" 2>/dev/null; }
DEVICE_NAME="$("$PY" -c 'import torch; print(torch.cuda.get_device_name(0))')"
COMMON=(--device cuda --dtype bf16 --precision bf16 --optimizer-impl fused --seq-len 2048
        --warmup-steps 3 --steps 10 --val-batches 2 --overwrite)
status=0

# One pilot run in its own process group, killed whole (the restore child included) past its limit.
pilot() {
  local limit=$1 name=$2; shift 2
  say "start $name (limit ${limit}s)"
  setsid "$PY" -m pilot run "${COMMON[@]}" "$@" --workdir "$WORK/$name" --output "$OUTDIR/$name.json" \
    >>"$LOG" 2>&1 &
  local pid=$! waited=0
  while kill -0 "$pid" 2>/dev/null; do
    if (( waited >= limit )); then
      say "$name: over ${limit}s, killing its process tree"
      kill -TERM -- "-$pid" 2>/dev/null || true; sleep 5; kill -KILL -- "-$pid" 2>/dev/null || true
      status=124
      break
    fi
    sleep 2; waited=$((waited + 2))
  done
  local rc=0
  wait "$pid" || rc=$?
  # exit 3: a failed restore check, recorded in the file; it must not stop the other runs.
  say "end $name: exit $rc after ${waited}s"
  if (( rc != 0 && status == 0 )); then status=$rc; fi
}

pilot 120 gpu-1b-full --model llama-3.2-1b --method full --micro-batch 4 \
  --label "$DEVICE_NAME full fine-tune, Llama 3.2 1B (random init), bf16" \
  --note "benchmarks/gpu_pilot.sh: transformers LlamaForCausalLM from the preset's config, AdamW fused, seq 2048, micro-batch 4"
pilot 80 gpu-1b-lora --model llama-3.2-1b --method lora --lora-rank 16 --micro-batch 8 \
  --label "$DEVICE_NAME LoRA r16, Llama 3.2 1B (random init), bf16" \
  --note "benchmarks/gpu_pilot.sh: peft LoRA r16 on all linear layers, fp32 adapters, seq 2048, micro-batch 8"
pilot 80 gpu-8b-lora --model llama-3.1-8b --method lora --lora-rank 16 --micro-batch 2 --grad-checkpointing \
  --no-restore-check \
  --label "$DEVICE_NAME LoRA r16, Llama 3.1 8B (random init), bf16, checkpointing" \
  --note "benchmarks/gpu_pilot.sh: peft LoRA r16 on all linear layers, gradient checkpointing, seq 2048, micro-batch 2"
if has bitsandbytes; then
  pilot 90 gpu-8b-qlora --model llama-3.1-8b --method qlora --lora-rank 16 --micro-batch 2 --grad-checkpointing \
    --no-restore-check \
    --label "$DEVICE_NAME QLoRA NF4 r16, Llama 3.1 8B (random init), checkpointing" \
    --note "benchmarks/gpu_pilot.sh: bitsandbytes NF4 with double quantization, bf16 compute, seq 2048, micro-batch 2"
else
  say "bitsandbytes not installed: QLoRA skipped"
fi
if has liger_kernel; then
  pilot 60 gpu-1b-lora-fused-loss --model llama-3.2-1b --method lora --lora-rank 16 --micro-batch 8 --loss fused \
    --no-restore-check \
    --label "$DEVICE_NAME LoRA r16, Llama 3.2 1B, fused linear cross-entropy" \
    --note "benchmarks/gpu_pilot.sh: Liger Kernel fused linear cross-entropy, seq 2048, micro-batch 8"
else
  say "liger-kernel not installed: fused-loss run skipped"
fi

# On a node of several GPUs, the scaling step on all of them: every strategy at the same effective batch,
# each with its sharded checkpoint saved and loaded back.
GPUS="$("$PY" -c 'import torch; print(torch.cuda.device_count())')"
if (( GPUS > 1 )); then
  say "start gpu-1b-scale on $GPUS GPUs (limit 600s)"
  rc=0
  timeout --kill-after=30 600 setsid "$PY" -m pilot scale --device cuda --dtype bf16 --precision bf16 \
    --seq-len 2048 --model llama-3.2-1b --method full --micro-batch 2 --grad-accum "$GPUS" \
    --warmup-steps 3 --steps 10 --nproc-per-node "$GPUS" --workdir "$WORK" --overwrite --quiet \
    --label "$DEVICE_NAME x$GPUS scaling, Llama 3.2 1B full fine-tune (random init), bf16" \
    --note "benchmarks/gpu_pilot.sh: ddp, zero1, zero2, fsdp, fsdp_ckpt on $GPUS GPUs, seq 2048, micro-batch 2" \
    --output "$OUTDIR/gpu-1b-scale.json" >>"$LOG" 2>&1 || rc=$?
  say "end gpu-1b-scale: exit $rc"
  if (( rc != 0 && status == 0 )); then status=$rc; fi
else
  say "one GPU: the scaling step needs several, skipped"
fi

"$PY" -m pilot validate "$OUTDIR"/gpu-*.json 2>&1 | tee -a "$LOG" || status=$?

"$PY" - "$OUTDIR" <<'PY' 2>&1 | tee -a "$LOG"
import json, pathlib, sys
FRAGMENTATION = 0.10  # the calculator's default allowance
for path in sorted(pathlib.Path(sys.argv[1]).glob("gpu-*.json")):
    r = json.loads(path.read_text())
    if r["kind"] == "scale":
        s = r["scaling"]
        runs = ", ".join(f"{x['strategy']} x{x['world_size']} {x['efficiency']:.0%}" for x in s["runs"])
        print(f"{path.name}: {r['outcome']['status']}, baseline {s['baseline']['strategy']} x{s['baseline']['world_size']}; {runs}")
        continue
    m, e, rs = r["memory"] or {}, r["estimate"] or {}, r["restore"] or {}
    peak, est, reserved = m.get("peak_tensor_bytes"), e.get("estimated_bytes"), m.get("reserved_bytes")
    line = f"{path.name}: {r['outcome']['status']}, max_memory_allocated {(peak or 0) / 1e9:.2f} GB"
    if est and peak:
        line += f", estimate {est / 1e9:.2f} GB ({(est - peak) / peak:+.1%}, goal within 5 %)"
        if reserved:
            line += f", reserved {reserved / 1e9:.2f} GB vs estimate + {FRAGMENTATION:.0%} {est * (1 + FRAGMENTATION) / 1e9:.2f} GB"
    else:
        line += f", no estimate ({e.get('reason')})"
    line += f", restore {'passed' if rs.get('passed') else 'not checked' if not rs else 'FAILED'}"
    print(line)
PY
exit "$status"
