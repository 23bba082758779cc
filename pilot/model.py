"""The models the pilot trains: the built-in Llama-style decoder here, transformers models in hf_model.

The built-in model follows the Llama layout (RMSNorm, rotary embeddings, grouped-query attention
through scaled_dot_product_attention, SwiGLU MLP). It needs nothing beyond torch, which makes it
the pilot's smoke test; the reference for memory is the real stack (hf_model).
It is always initialised on the CPU from the run's seed, so a fresh process rebuilds exactly the
same frozen weights before a restore.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from .config import ModelConfig, TrainConfig


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)


def _rotary(seq_len: int, head_dim: int, base: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    inv = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    angles = torch.outer(torch.arange(seq_len, dtype=torch.float32), inv)
    return angles.cos(), angles.sin()


def _apply_rotary(x, cos, sin):
    x1, x2 = x[..., 0::2], x[..., 1::2]
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


class Attention(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.heads, self.kv_heads = cfg.heads, cfg.kv_heads
        self.head_dim = cfg.hidden // cfg.heads
        self.q = nn.Linear(cfg.hidden, cfg.heads * self.head_dim, bias=False)
        self.k = nn.Linear(cfg.hidden, cfg.kv_heads * self.head_dim, bias=False)
        self.v = nn.Linear(cfg.hidden, cfg.kv_heads * self.head_dim, bias=False)
        self.o = nn.Linear(cfg.heads * self.head_dim, cfg.hidden, bias=False)
        self.dropout = cfg.dropout

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        q, k = _apply_rotary(q, cos[:t], sin[:t]), _apply_rotary(k, cos[:t], sin[:t])
        out = F.scaled_dot_product_attention(
            q,
            k,
            v,
            is_causal=True,
            enable_gqa=self.kv_heads != self.heads,
            dropout_p=self.dropout if self.training else 0.0,
        )
        return self.o(out.transpose(1, 2).reshape(b, t, -1))


class MLP(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.gate = nn.Linear(cfg.hidden, cfg.intermediate, bias=False)
        self.up = nn.Linear(cfg.hidden, cfg.intermediate, bias=False)
        self.down = nn.Linear(cfg.intermediate, cfg.hidden, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.attn_norm, self.attn = RMSNorm(cfg.hidden), Attention(cfg)
        self.mlp_norm, self.mlp = RMSNorm(cfg.hidden), MLP(cfg)
        self.dropout = nn.Dropout(cfg.dropout)

    def forward(self, x, cos, sin):
        x = x + self.dropout(self.attn(self.attn_norm(x), cos, sin))
        return x + self.dropout(self.mlp(self.mlp_norm(x)))


class Decoder(nn.Module):
    """Llama-style causal language model returning the mean next-token loss."""

    def __init__(self, cfg: ModelConfig, max_seq_len: int):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab, cfg.hidden)
        self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.norm = RMSNorm(cfg.hidden)
        self.lm_head = nn.Linear(cfg.hidden, cfg.vocab, bias=False)
        if cfg.tie_embeddings:
            self.lm_head.weight = self.embed.weight
        cos, sin = _rotary(max_seq_len, cfg.hidden // cfg.heads)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.grad_checkpointing = False
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens[:, :-1])
        for layer in self.layers:
            if self.grad_checkpointing and self.training:
                x = checkpoint(layer, x, self.cos, self.sin, use_reentrant=False)
            else:
                x = layer(x, self.cos, self.sin)
        logits = self.lm_head(self.norm(x))
        return F.cross_entropy(logits.flatten(0, 1).float(), tokens[:, 1:].flatten())


class LoRALinear(nn.Module):
    """A frozen linear layer plus a trainable low-rank update (B starts at zero, as in the LoRA paper)."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        self.lora_a = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))
        self.scale = alpha / rank

    def forward(self, x):
        return self.base(x) + F.linear(F.linear(x, self.lora_a), self.lora_b) * self.scale


def apply_lora(model: nn.Module, train: TrainConfig) -> None:
    """Freeze everything, then wrap the target projections of the built-in model."""
    for p in model.parameters():
        p.requires_grad_(False)
    for module in list(model.modules()):
        for name in train.lora_targets:
            child = getattr(module, name, None)
            if isinstance(child, nn.Linear) and isinstance(module, (Attention, MLP)):
                setattr(module, name, LoRALinear(child, train.lora_rank, train.lora_alpha))


def check_builtin(train: TrainConfig) -> None:
    """The built-in model has no quantization, fused loss or LoRA dropout: say so before any work."""
    unsupported = {
        "train.method": train.method == "qlora",
        "train.loss": train.loss != "standard",
        "train.lora_dropout": train.lora_dropout > 0,
    }
    for option, used in unsupported.items():
        if used:
            raise ValueError(
                f"{option} as given needs a transformers model (--model PRESET or --model-config); "
                f"the built-in model has none of it"
            )


def build_model(model_cfg: ModelConfig, train: TrainConfig, seed: int, device: torch.device) -> nn.Module:
    """The model on ``device``, identical in every process that builds it from the same seed."""
    if model_cfg.is_transformers:
        from .hf_model import build

        return build(model_cfg, train, seed, device)
    check_builtin(train)
    torch.manual_seed(seed)  # built on the CPU: the same weights on any device
    model = Decoder(model_cfg, train.seq_len)
    if train.method == "lora":
        apply_lora(model, train)
    if model_cfg.dtype == "bf16":
        # The frozen base (everything in a full fine-tune) in bf16; adapters stay fp32 unless asked.
        for p in model.parameters():
            if not p.requires_grad or train.method == "full" or train.adapter_dtype == "weights":
                p.data = p.data.to(torch.bfloat16)
    model.grad_checkpointing = train.grad_checkpointing
    return model.to(device)


def decoder_layers(model: nn.Module) -> list[nn.Module]:
    """The blocks FSDP wraps one by one."""
    if hasattr(model, "decoder_layers"):
        return model.decoder_layers()
    return list(getattr(model, "layers", []))


def parameter_count(model: nn.Module) -> tuple[int, int]:
    """(all parameters, trainable parameters), counting tied weights once."""
    unique = {id(p): p for p in model.parameters()}.values()
    return sum(p.numel() for p in unique), sum(p.numel() for p in unique if p.requires_grad)
