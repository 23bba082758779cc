"""Decoder-only transformer shapes: parameter inventory and LoRA counts.

The base model is Llama-style: token embedding, ``layers`` decoder blocks of
pre-norm attention (q, k, v, o projections; grouped-query attention gives k and v
``kv_heads * head_dim`` outputs) and a gated MLP (gate, up: hidden -> intermediate;
down: intermediate -> hidden; SwiGLU/GeGLU), two RMSNorms per block, a final
norm and an LM head (shared with the embedding when ``tied``). Phi-3 fuses q, k and v into one
``qkv`` projection and gate and up into one ``gate_up`` (``fused``): the same weights in fewer,
larger tensors, and one LoRA adapter per fused module.

The other families (``FAMILIES``) change that block as transformers 5 implements them: Gemma's
four "sandwich" norms, q/k norms (Qwen3, Gemma 3 and Qwen3-MoE per head, OLMoE over the whole
projection), and mixture-of-experts MLPs. transformers stores a block's routed experts as two
grouped 3-D parameters, ``gate_up_proj`` (experts x 2*intermediate x hidden) and ``down_proj``
(experts x hidden x intermediate), beside a router weight (experts x hidden); Qwen2-MoE adds a
dense shared expert (gate/up/down linears of its own width) and a one-output sigmoid gate for it.
Every expert is resident and, in a full fine-tune, gets a gradient and optimizer state.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from guidekit.l10n import N_

# Public: the pilot builds models and applies LoRA by these same names and rules.
__all__ = [
    "ATTENTION_LINEARS",
    "EXPERT_PARAMS",
    "FAMILIES",
    "FUSED",
    "LINEARS",
    "MLP_LINEARS",
    "MOE_FAMILIES",
    "Architecture",
    "Family",
    "Tensor",
    "partly_targeted",
    "rank_limit",
]

# A block's linear layers by short name, the LoRA target names of the calculator, the pilot and the result
# schema (peft's module is the name + "_proj"; tests/pilot/test_config_contract ties the schema's enum).
ATTENTION_LINEARS = ("q", "k", "v", "o")
MLP_LINEARS = ("gate", "up", "down")
LINEARS = ATTENTION_LINEARS + MLP_LINEARS
FUSED = {"qkv": ("q", "k", "v"), "gate_up": ("gate", "up")}  # fused module -> the projections it holds
EXPERT_PARAMS = {"gate_up": ("gate", "up"), "down": ("down",)}  # an expert tensor -> the targets adapting it


@dataclass(frozen=True)
class Family:
    """How a model family's decoder block differs from Llama's, as transformers 5 builds it."""

    label: str  # the menu label (a msgid; the names are proper nouns)
    norms: int = 2  # RMSNorms per block (Gemma: before and after attention and MLP)
    gemma_norm: bool = False  # the norm scales in fp32 by (1 + w), so it saves an fp32 normalised copy
    qk_norm: str = ""  # "head": q and k normalised per head; "full": over the whole projection (OLMoE)
    softcap: bool = False  # tanh soft-capping of the attention scores and the final logits (Gemma 2)
    moe: bool = False  # routed experts in place of the dense MLP
    shared_expert: bool = False  # Qwen2-MoE: a dense shared expert with a sigmoid gate beside the routed ones
    renorm_topk: bool = False  # the top-k routing weights renormalised to sum to 1 (Mixtral; Qwen3-MoE's configs)
    fp32_routing: bool = False  # Mixtral keeps the routing weights in fp32; the others cast them back
    sdpa: bool = True  # transformers runs it with SDPA (Gemma 2's soft-capping needs eager or FlashAttention)


# Family id -> its block; the ids are the calculator's `family` choices. "llama" also covers Mistral,
# Qwen2 and Phi-3, whose differences (biases, fused projections) are the inputs' own.
FAMILIES = {
    "llama": Family(N_("Llama-style (Llama, Mistral, Qwen2, Phi-3)")),
    "qwen3": Family("Qwen3", qk_norm="head"),
    "gemma2": Family("Gemma 2", norms=4, gemma_norm=True, softcap=True, sdpa=False),
    "gemma3": Family("Gemma 3", norms=4, gemma_norm=True, qk_norm="head"),
    "mixtral": Family("Mixtral", moe=True, renorm_topk=True, fp32_routing=True),
    "qwen2_moe": Family("Qwen2-MoE", moe=True, shared_expert=True),
    "qwen3_moe": Family("Qwen3-MoE", qk_norm="head", moe=True, renorm_topk=True),
    "olmoe": Family("OLMoE", qk_norm="full", moe=True),
}
MOE_FAMILIES = tuple(k for k, f in FAMILIES.items() if f.moe)


def partly_targeted(targets: Iterable[str], fused: bool = False, moe: bool = False) -> dict[str, tuple[str, ...]]:
    """Fused module -> its projections, for each module that ``targets`` names only part of. peft adapts
    whole modules (and whole expert tensors), so the calculator and the pilot both refuse these (each in
    its own words). ``fused``: Phi-3's qkv and gate_up; ``moe``: the experts' gate_up tensor."""
    names = set(targets)
    groups = (dict(FUSED) if fused else {}) | ({"gate_up": EXPERT_PARAMS["gate_up"]} if moe else {})
    return {module: parts for module, parts in groups.items() if 0 < len(names & set(parts)) < len(parts)}


def rank_limit(shapes: dict[str, tuple[int, int]]) -> tuple[int, str] | None:
    """The highest useful LoRA rank over the adapted layers (name -> (in, out)) and the layer that sets
    it: a rank above a layer's smaller side adds parameters without adding rank. The one rule the pilot
    (the built model's layers) and the calculator (the declared shape) both refuse a rank by."""
    if not shapes:
        return None
    name = min(shapes, key=lambda n: min(shapes[n]))
    return min(shapes[name]), name


@dataclass(frozen=True)
class Tensor:
    """``count`` identical parameters, each ``group`` stacked (rows, cols) matrices; cols == 1 for vectors.
    ``group`` > 1 is a block's experts, which transformers keeps in one 3-D parameter."""

    role: str  # "linear:<name>", "experts:<name>", "router", "embedding", "lm_head", "norm", "bias", "other", "lora"
    rows: int
    cols: int
    count: int
    group: int = 1

    @property
    def numel(self) -> int:
        """Elements of one parameter (all its experts)."""
        return self.rows * self.cols * self.group

    @property
    def total(self) -> int:
        return self.numel * self.count


@dataclass(frozen=True)
class Architecture:
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int  # the MLP's width; for mixture-of-experts, each routed expert's
    vocab: int
    tied: bool = False
    qkv_bias: bool = False
    head_dim: int = 0  # 0 = hidden // heads
    fused: bool = False  # qkv and gate_up projections (Phi-3)
    family: str = "llama"
    experts: int = 0  # routed experts per block (mixture-of-experts families; 0 otherwise)
    experts_per_token: int = 0  # top-k
    shared_intermediate: int = 0  # the shared expert's width (Qwen2-MoE)

    @property
    def d(self) -> int:
        return self.head_dim or self.hidden // self.heads

    @property
    def kind(self) -> Family:
        return FAMILIES[self.family]

    @property
    def moe(self) -> bool:
        return self.kind.moe

    def linear_shapes(self) -> dict[str, tuple[int, int]]:
        """(in_features, out_features) of each linear module in one block, fused ones as one. In a
        mixture of experts these are the attention's and the shared expert's; the routed experts are
        grouped parameters (``expert_shapes``)."""
        h, q_out, kv_out, i = self.hidden, self.heads * self.d, self.kv_heads * self.d, self.intermediate
        if self.fused:
            return {"qkv": (h, q_out + 2 * kv_out), "o": (q_out, h), "gate_up": (h, 2 * i), "down": (i, h)}
        attention = {"q": (h, q_out), "k": (h, kv_out), "v": (h, kv_out), "o": (q_out, h)}
        if self.moe:
            s = self.shared_intermediate
            return attention | ({"gate": (h, s), "up": (h, s), "down": (s, h)} if s else {})
        return attention | {"gate": (h, i), "up": (h, i), "down": (i, h)}

    def expert_shapes(self) -> dict[str, tuple[int, int]]:
        """(in, out) of one routed expert's two matrices: gate and up stacked, then down."""
        if not self.moe:
            return {}
        return {"gate_up": (self.hidden, 2 * self.intermediate), "down": (self.intermediate, self.hidden)}

    def adapted(self, module: str, targets: Collection[str]) -> bool:
        """Whether a LoRA adapter sits on ``module`` (a linear, or an expert tensor): a fused one needs
        all its projections targeted (peft adapts whole modules; ``memory.check`` refuses part of one)."""
        return all(name in targets for name in FUSED.get(module, (module,)))

    def adapted_shapes(self, targets: Collection[str]) -> dict[str, tuple[int, int]]:
        """(in, out) of each layer or expert matrix a LoRA adapter sits on, by module name (see ``rank_limit``)."""
        shapes = {n: s for n, s in self.linear_shapes().items() if self.adapted(n, targets)}
        return shapes | {n: s for n, s in self.expert_shapes().items() if all(t in targets for t in EXPERT_PARAMS[n])}

    def qk_norm_widths(self) -> tuple[int, int]:
        """Elements of the q and k norm weights (0, 0 without)."""
        kind = self.kind.qk_norm
        if kind == "head":
            return self.d, self.d
        if kind == "full":
            return self.heads * self.d, self.kv_heads * self.d
        return 0, 0

    def block_tensors(self) -> list[Tensor]:
        """The parameters of one decoder block (count 1 each)."""
        h = self.hidden
        out = [Tensor("linear:" + n, o, i, 1) for n, (i, o) in self.linear_shapes().items()]
        if self.moe:
            out += [Tensor("experts:" + n, o, i, 1, self.experts) for n, (i, o) in self.expert_shapes().items()]
            out.append(Tensor("router", self.experts, h, 1))
            if self.kind.shared_expert:
                out.append(Tensor("linear:shared_expert_gate", 1, h, 1))
        out.append(Tensor("norm", h, 1, self.kind.norms))
        out += [Tensor("norm", w, 1, 1) for w in self.qk_norm_widths() if w]
        if self.qkv_bias:
            out.append(Tensor("bias", (self.heads + 2 * self.kv_heads) * self.d, 1, 1))
        return out

    def block_params(self) -> int:
        return sum(t.total for t in self.block_tensors())

    def base_tensors(self, extra: int = 0) -> list[Tensor]:
        """Every parameter tensor of the base model; ``extra`` adds unmodelled 1-D params."""
        out = [Tensor(t.role, t.rows, t.cols, t.count * self.layers, t.group) for t in self.block_tensors()]
        out.append(Tensor("embedding", self.vocab, self.hidden, 1))
        if not self.tied:
            out.append(Tensor("lm_head", self.vocab, self.hidden, 1))
        out.append(Tensor("norm", self.hidden, 1, 1))
        if extra > 0:
            out.append(Tensor("other", extra, 1, 1))
        return out

    def derived_params(self) -> int:
        return sum(t.total for t in self.base_tensors())

    def lora_tensors(self, rank: int, targets: Collection[str]) -> list[Tensor]:
        """LoRA A (rank x in) and B (out x rank) for each targeted linear in every block.

        Hu et al. 2021, "LoRA": W x + B A x with A in R^{r x k}, B in R^{d x r}, so each
        adapted linear adds r * (in + out) trainable parameters. With GQA, k and v have
        out = kv_heads * head_dim, which makes their adapters smaller than q's. A fused module
        has one adapter: one A for the shared input, one B as wide as all its outputs. A routed
        expert tensor (peft's ``target_parameters``) has one adapter per expert, stored as one A of
        (rank * experts) x in and one B of out x (rank * experts).
        """
        out = []
        for name, (i, o) in self.linear_shapes().items():
            if self.adapted(name, targets):
                out += [Tensor("lora", rank, i, self.layers), Tensor("lora", o, rank, self.layers)]
        for name, (i, o) in self.expert_shapes().items():
            if all(t in targets for t in EXPERT_PARAMS[name]):
                out += [
                    Tensor("lora", rank * self.experts, i, self.layers),
                    Tensor("lora", o, rank * self.experts, self.layers),
                ]
        return out

    def lora_params(self, rank: int, targets: Collection[str]) -> int:
        return sum(t.total for t in self.lora_tensors(rank, targets))

    def active_params(self) -> int:
        """Parameters one token's forward pass multiplies by in the blocks: the dense block's linears,
        or the attention, the shared expert, the router and ``experts_per_token`` experts."""
        linears = sum(i * o for i, o in self.linear_shapes().values())
        if not self.moe:
            return self.layers * linears
        experts = sum(i * o for i, o in self.expert_shapes().values()) * self.experts_per_token
        return self.layers * (linears + experts + self.experts * self.hidden)
