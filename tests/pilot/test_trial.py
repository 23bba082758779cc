"""Issue 52's trial as an ML engineer types it, end to end through the command line, offline: a preset with
the reader's own data, a trace of the published Gemma 3 12B config.json (a multimodal wrapper), and `scale`
for a job that one process cannot hold. (Its fourth step, kill -9 during the restore stage, is
tests/pilot/test_survival.py's `test_sigkill_while_a_child_runs_takes_the_child_with_it`.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from .conftest import TINY_MODEL

pytestmark = pytest.mark.slow  # real models, torchrun

# google/gemma-3-12b-pt's config.json as published (its shape: the keys a trace reads).
GEMMA_3_12B = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "model_type": "gemma3",
    "boi_token_index": 255999,
    "eoi_token_index": 256000,
    "image_token_index": 262144,
    "mm_tokens_per_image": 256,
    "initializer_range": 0.02,
    "text_config": {
        "model_type": "gemma3_text",
        "hidden_size": 3840,
        "intermediate_size": 15360,
        "num_attention_heads": 16,
        "num_hidden_layers": 48,
        "num_key_value_heads": 8,
        "head_dim": 256,
        "vocab_size": 262208,
        "sliding_window": 1024,
        "query_pre_attn_scalar": 256,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    },
    "vision_config": {
        "model_type": "siglip_vision_model",
        "hidden_size": 1152,
        "image_size": 896,
        "intermediate_size": 4304,
        "num_attention_heads": 16,
        "num_hidden_layers": 27,
        "patch_size": 14,
        "vision_use_head": False,
    },
    "torch_dtype": "bfloat16",
    "transformers_version": "4.50.0.dev0",
}


def _pilot(tmp_path, *argv: str, timeout: int = 300) -> tuple[subprocess.CompletedProcess, float]:
    # No network here, and none is asked for: HF_HUB_OFFLINE makes any attempt fail at once, not after a minute.
    env = dict(os.environ, TMPDIR=str(tmp_path), HF_HUB_OFFLINE="1")
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pilot", *argv], capture_output=True, text=True, timeout=timeout, env=env
    )
    return done, time.monotonic() - start


def test_the_trial_sequence_runs_offline_from_the_command_line(tmp_path, validate):
    # 1. A preset with the reader's own data: tokenized offline, byte-level, and said so.
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"text": f"Ejemplo {i}: el piloto lee tu texto. 日本語の文も。"}) + "\n" for i in range(200)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "preset.json"
    done, _ = _pilot(
        tmp_path,
        *("run", "--model", "qwen3-0.6b", "--method", "lora", "--dtype", "bf16", "--data", str(corpus)),
        *("--seq-len", "32", "--micro-batch", "1", "--warmup-steps", "2", "--steps", "2", "--val-batches", "1"),
        *("--no-restore-check", "--quiet", "-o", str(out)),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"data: {corpus}, tokenized as UTF-8 bytes, offline" in done.stdout
    data = validate(json.loads(out.read_text(encoding="utf-8")))
    assert data["model"]["family"] == "qwen3" and data["timing"]["data_pipeline"]["tokens"] > 0

    # 2. The published Gemma 3 12B config.json, the command the calculator suggests for it.
    config = tmp_path / "config.json"
    config.write_text(json.dumps(GEMMA_3_12B), encoding="utf-8")
    out = tmp_path / "gemma.json"
    done, _ = _pilot(
        tmp_path, "trace", "--model-config", str(config), "--method", "lora", "--seq-len", "512", "-o", str(out)
    )
    assert done.returncode == 0, done.stderr[-2000:]
    trace = validate(json.loads(out.read_text(encoding="utf-8")))
    assert trace["model"]["parameters"] > 11_000_000_000 and trace["trace"]["peak_bytes"] > 20e9

    # 3. `scale` for a job one process cannot hold (here: 0.7 MB of tensors, where one process needs 0.88).
    out = tmp_path / "scale.json"
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in TINY_MODEL.items()]
    done, _ = _pilot(
        tmp_path,
        *("scale", *flags, "--seq-len=16", "--micro-batch=2", "--grad-accum=2", "--steps=4", "--warmup-steps=2"),
        *("--threads=1", "--memory-limit-gb=0.0007", "--strategies=fsdp_ckpt", "--quiet", "-o", str(out)),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    s = validate(json.loads(out.read_text(encoding="utf-8")))["scaling"]
    assert (s["baseline"]["strategy"], s["baseline"]["world_size"]) == ("fsdp", 2)
    assert [(r["strategy"], r["checkpoint"]["restored"]) for r in s["runs"]] == [("fsdp_ckpt", True)]
    assert "baseline: one process ran out of memory" in done.stdout
