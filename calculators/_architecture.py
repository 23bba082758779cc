"""Decoder-only transformer shapes: parameter inventory and LoRA counts.

The model is Llama-style: token embedding, ``layers`` decoder blocks of
pre-norm attention (q, k, v, o projections; grouped-query attention gives k and v
``kv_heads * head_dim`` outputs) and a gated MLP (gate, up: hidden -> intermediate;
down: intermediate -> hidden; SwiGLU/GeGLU), two RMSNorms per block, a final
norm and an LM head (shared with the embedding when ``tied``). Phi-3 fuses q, k and v into one
``qkv`` projection and gate and up into one ``gate_up`` (``fused``): the same weights in fewer,
larger tensors, and one LoRA adapter per fused module.
"""

from __future__ import annotations

from dataclasses import dataclass

LINEARS = ("q", "k", "v", "o", "gate", "up", "down")
FUSED = {"qkv": ("q", "k", "v"), "gate_up": ("gate", "up")}  # fused module -> the projections it holds


def partly_targeted(targets) -> dict[str, tuple[str, ...]]:
    """Fused module -> its projections, for each module that ``targets`` names only part of. peft adapts
    whole modules, so the calculator and the pilot both refuse these (each in its own words)."""
    names = set(targets)
    return {module: parts for module, parts in FUSED.items() if 0 < len(names & set(parts)) < len(parts)}


@dataclass(frozen=True)
class Tensor:
    """``count`` identical tensors of shape (rows, cols); cols == 1 for vectors."""
    role: str        # "linear:<name>", "embedding", "lm_head", "norm", "bias", "other", "lora"
    rows: int
    cols: int
    count: int

    @property
    def numel(self) -> int:
        return self.rows * self.cols

    @property
    def total(self) -> int:
        return self.numel * self.count


@dataclass(frozen=True)
class Architecture:
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    tied: bool = False
    qkv_bias: bool = False
    head_dim: int = 0  # 0 = hidden // heads
    fused: bool = False  # qkv and gate_up projections (Phi-3)

    @property
    def d(self) -> int:
        return self.head_dim or self.hidden // self.heads

    def linear_shapes(self) -> dict[str, tuple[int, int]]:
        """(in_features, out_features) of each linear module in one block, fused ones as one."""
        h, q_out, kv_out, i = self.hidden, self.heads * self.d, self.kv_heads * self.d, self.intermediate
        if self.fused:
            return {"qkv": (h, q_out + 2 * kv_out), "o": (q_out, h), "gate_up": (h, 2 * i), "down": (i, h)}
        return {"q": (h, q_out), "k": (h, kv_out), "v": (h, kv_out), "o": (q_out, h),
                "gate": (h, i), "up": (h, i), "down": (i, h)}

    def adapted(self, module: str, targets) -> bool:
        """Whether a LoRA adapter sits on ``module``: a fused one needs all its projections
        targeted (peft adapts whole modules; ``memory.check`` refuses part of one)."""
        return all(name in targets for name in FUSED.get(module, (module,)))

    def base_tensors(self, extra: int = 0) -> list[Tensor]:
        """Every parameter tensor of the base model; ``extra`` adds unmodelled 1-D params."""
        L = self.layers
        out = [Tensor("linear:" + n, o, i, L) for n, (i, o) in self.linear_shapes().items()]
        out.append(Tensor("embedding", self.vocab, self.hidden, 1))
        if not self.tied:
            out.append(Tensor("lm_head", self.vocab, self.hidden, 1))
        out.append(Tensor("norm", self.hidden, 1, 2 * L + 1))
        if self.qkv_bias:
            out.append(Tensor("bias", (self.heads + 2 * self.kv_heads) * self.d, 1, L))
        if extra > 0:
            out.append(Tensor("other", extra, 1, 1))
        return out

    def derived_params(self) -> int:
        return sum(t.total for t in self.base_tensors())

    def lora_tensors(self, rank: int, targets) -> list[Tensor]:
        """LoRA A (rank x in) and B (out x rank) for each targeted linear in every block.

        Hu et al. 2021, "LoRA": W x + B A x with A in R^{r x k}, B in R^{d x r}, so each
        adapted linear adds r * (in + out) trainable parameters. With GQA, k and v have
        out = kv_heads * head_dim, which makes their adapters smaller than q's. A fused module
        has one adapter: one A for the shared input, one B as wide as all its outputs.
        """
        out = []
        for name, (i, o) in self.linear_shapes().items():
            if self.adapted(name, targets):
                out += [Tensor("lora", rank, i, self.layers), Tensor("lora", o, rank, self.layers)]
        return out

    def lora_params(self, rank: int, targets) -> int:
        return sum(t.total for t in self.lora_tensors(rank, targets))
