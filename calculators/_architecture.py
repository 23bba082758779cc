"""Decoder-only transformer shapes: parameter inventory and LoRA counts.

The model is Llama-style: token embedding, ``layers`` decoder blocks of
pre-norm attention (q, k, v, o projections; grouped-query attention gives k and v
``kv_heads * head_dim`` outputs) and a gated MLP (gate, up: hidden -> intermediate;
down: intermediate -> hidden; SwiGLU/GeGLU), two RMSNorms per block, a final
norm and an LM head (shared with the embedding when ``tied``).
"""

from __future__ import annotations

from dataclasses import dataclass

LINEARS = ("q", "k", "v", "o", "gate", "up", "down")


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

    @property
    def d(self) -> int:
        return self.head_dim or self.hidden // self.heads

    def linear_shapes(self) -> dict[str, tuple[int, int]]:
        """(in_features, out_features) of each linear layer in one block."""
        h, q_out, kv_out, i = self.hidden, self.heads * self.d, self.kv_heads * self.d, self.intermediate
        return {"q": (h, q_out), "k": (h, kv_out), "v": (h, kv_out), "o": (q_out, h),
                "gate": (h, i), "up": (h, i), "down": (i, h)}

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
        out = kv_heads * head_dim, which makes their adapters smaller than q's.
        """
        shapes = self.linear_shapes()
        out = []
        for name in LINEARS:
            if name in targets:
                i, o = shapes[name]
                out += [Tensor("lora", rank, i, self.layers), Tensor("lora", o, rank, self.layers)]
        return out

    def lora_params(self, rank: int, targets) -> int:
        return sum(t.total for t in self.lora_tensors(rank, targets))
