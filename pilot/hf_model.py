"""The real stack: a transformers model (a preset or a config.json built with random weights, or a
local checkpoint), LoRA through peft, QLoRA through bitsandbytes, checkpointing through
transformers' own switch and the loss the model computes.

Memory and time do not depend on the weights' values, so a preset needs no download: the real
class is built from the configuration and initialised from the run's seed, on the device it
trains on, identically in every process (the restore check rebuilds it in a fresh one).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses

import torch
from torch import nn

from .config import ModelConfig, TrainConfig

TORCH_DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


class PilotSetupError(ValueError):
    """A model option the real stack cannot honour; the message names the option."""


# A run is compared with the calculator, so it takes the calculator's families; a trace (`gpu-pilot trace`)
# takes any causal LM transformers builds, and records the estimate as absent where the calculator has none.
_ANY_CAUSAL_LM = contextvars.ContextVar("any_causal_lm", default=False)


@contextlib.contextmanager
def any_causal_lm():
    """Within: a config.json of any model type AutoModelForCausalLM builds, its shape read by transformers."""
    token = _ANY_CAUSAL_LM.set(True)
    try:
        yield
    finally:
        _ANY_CAUSAL_LM.reset(token)


def _check_causal_lm(transformers, model_type: str, source: str) -> None:
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES as known

    if model_type not in known:
        from calculators.hf_config import MODEL_TYPES

        raise PilotSetupError(
            f"model {source}: model type {model_type!r} is not a causal language model that "
            f"transformers {transformers.__version__} builds (its AutoModelForCausalLM knows "
            f"{len(known)} types); the memory calculator models {', '.join(MODEL_TYPES)}"
        )


def _transformers():
    try:
        import transformers
    except ImportError as exc:  # the built-in model runs without it
        raise PilotSetupError(
            "model.source names a transformers model, which needs the 'transformers' package: pip install '.[pilot]'"
        ) from exc
    return transformers


def _preset(name: str) -> dict | None:
    import calculators

    return next((m for m in calculators.models()["models"] if m["id"] == name), None)


def _refused(source: str, e: dict) -> PilotSetupError:
    """One line for the first field error of the calculators' config reader (worded in `model_source`,
    which the CLI runs before importing torch)."""
    from .model_source import refused

    return PilotSetupError(str(refused(source, e)))


def hf_config(model: ModelConfig):
    """The transformers configuration the model option names (preset, config file or directory)."""
    transformers = _transformers()
    if model.config_file:
        from calculators import hf_config as reader

        # The calculators' reader, as on the page and in the CLI: size, nesting, numbers and the keys'
        # types, checked before transformers (whose own checks raise a multi-line error, or none).
        try:
            with open(model.config_file, "rb") as fh:
                data, errors = reader.parse(fh.read(reader.MAX_BYTES + 1))
        except OSError as exc:
            raise PilotSetupError(f"model.config_file {model.config_file!r} is not a readable file ({exc})") from exc
        if not errors and "model_type" not in data:
            raise PilotSetupError(f"model.config_file {model.config_file!r} has no model_type: not a config.json")
        if not errors and _ANY_CAUSAL_LM.get():
            _check_causal_lm(transformers, str(data["model_type"]), model.config_file)
        else:
            errors = errors or reader.inputs_from_config(data)[1]
        if errors:
            raise _refused(model.config_file, errors[0])
        data = {k: v for k, v in data.items() if k not in ("architectures", "transformers_version")}
        try:
            return transformers.AutoConfig.for_model(**data)
        except Exception as exc:  # transformers' own validation (a family the calculators do not read)
            why = " ".join(str(exc).split())  # its message spans lines: kept whole, on one
            raise PilotSetupError(
                f"model {model.config_file}: transformers refuses this configuration: {why}"
            ) from None
    preset = _preset(model.source)
    if preset is not None:
        from calculators.hf_config import config_keys

        return transformers.AutoConfig.for_model(
            preset["model_type"], **config_keys(preset["model_type"], preset), dtype="bfloat16"
        )
    return transformers.AutoConfig.from_pretrained(model.source)


def resolve(model: ModelConfig) -> ModelConfig:
    """The model option with the shape, vocabulary and dtype of the real model filled in, so the
    synthetic data, the estimate and the result file all describe the model that trains."""
    if not model.is_transformers:
        return dataclasses.replace(model, dtype="fp32" if model.dtype == "auto" else model.dtype)
    from calculators import hf_config as reader

    config = hf_config(model)
    inputs, errors = reader.inputs_from_config(config.to_dict())
    if errors and not _ANY_CAUSAL_LM.get():
        raise _refused(model.source if not model.config_file else model.config_file, errors[0])
    dtype = model.dtype
    if dtype == "auto":
        dtype = reader.weights_dtype(config.to_dict()) or "fp32"
        dtype = "bf16" if dtype == "fp16" else dtype  # fp16 weights cannot train without a scaler
    if errors:
        return _any_shape(model, config, dtype)
    from calculators.architecture import FAMILIES

    # Gemma 2's soft-capped attention has no SDPA path in transformers: it runs eager (or FlashAttention).
    attention = model.attention if FAMILIES[inputs["family"]].sdpa else "eager"
    return dataclasses.replace(
        model,
        layers=inputs["layers"],
        hidden=inputs["hidden"],
        heads=inputs["heads"],
        kv_heads=inputs["kv_heads"],
        head_dim=inputs["head_dim"] or inputs["hidden"] // inputs["heads"],
        intermediate=inputs["intermediate"],
        vocab=inputs["vocab"],
        tie_embeddings=inputs["tied_embeddings"],
        qkv_bias=inputs["qkv_bias"],
        fused_projections=inputs["fused_projections"],
        dtype=dtype,
        attention=attention,
        family=inputs["family"],
        experts=inputs.get("experts", 0),
        experts_per_token=inputs.get("experts_per_token", 0),
        shared_expert_intermediate=inputs.get("shared_expert_intermediate", 0),
        router_aux_loss=inputs.get("router_aux_loss", False),
    )


def _any_shape(model: ModelConfig, config, dtype: str) -> ModelConfig:
    """A model the memory calculator does not describe (traced only): its shape as transformers reads it,
    for the result file; the model itself is built from the configuration as it is."""
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    try:
        heads, hidden = text.num_attention_heads, text.hidden_size
        shape = {
            "layers": text.num_hidden_layers,
            "hidden": hidden,
            "heads": heads,
            "kv_heads": getattr(text, "num_key_value_heads", None) or heads,
            "head_dim": getattr(text, "head_dim", None) or hidden // heads,
            "intermediate": getattr(text, "intermediate_size", None) or getattr(text, "n_inner", None) or 4 * hidden,
            "vocab": text.vocab_size,
        }
    except AttributeError as exc:
        raise PilotSetupError(
            f"model {model.config_file or model.source}: transformers' configuration does not "
            f"say the model's shape ({exc})"
        ) from exc
    return dataclasses.replace(
        model,
        **shape,
        tie_embeddings=bool(getattr(text, "tie_word_embeddings", False)),
        qkv_bias=False,
        fused_projections=False,
        dtype=dtype,
        family=config.model_type,
        experts=0,
        experts_per_token=0,
        shared_expert_intermediate=0,
        router_aux_loss=False,
    )


class HFCausalLM(nn.Module):
    """A transformers causal LM with the built-in model's call: tokens in, mean next-token loss out.

    The model's own loss runs (``shift_labels`` tells it the targets are already shifted); its
    logits are dropped before the backward pass, as the Trainer does.
    """

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, tokens):
        inputs, targets = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()
        return self.inner(input_ids=inputs, labels=inputs, shift_labels=targets, use_cache=False).loss

    def decoder_layers(self) -> list[nn.Module]:
        """The decoder blocks (FSDP wraps each), found by the class names transformers keeps whole."""
        names = set(getattr(self._base(), "_no_split_modules", None) or ())
        return [m for m in self.inner.modules() if type(m).__name__ in names]

    def _base(self) -> nn.Module:
        inner = self.inner
        return inner.get_base_model() if hasattr(inner, "get_base_model") else inner


def _quantize(model: nn.Module, train: TrainConfig, compute_dtype: torch.dtype, device: torch.device) -> None:
    """Replace the decoder's linear layers by bitsandbytes NF4 layers (QLoRA; the LM head stays)."""
    try:
        import bitsandbytes as bnb
    except ImportError as exc:
        raise PilotSetupError("train.method 'qlora' needs the 'bitsandbytes' package on a CUDA device") from exc
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, nn.Linear) and name != "lm_head":
                q = bnb.nn.Linear4bit(
                    child.in_features,
                    child.out_features,
                    bias=child.bias is not None,
                    compute_dtype=compute_dtype,
                    compress_statistics=True,
                    quant_type="nf4",
                )
                q.weight = bnb.nn.Params4bit(
                    child.weight.data.cpu(), requires_grad=False, quant_type="nf4", compress_statistics=True
                )
                if child.bias is not None:
                    q.bias = nn.Parameter(child.bias.data, requires_grad=False)
                setattr(parent, name, q.to(device))


def _fused_loss(config, train: TrainConfig, device: torch.device) -> None:
    """Patch the model class with Liger Kernel's fused linear cross-entropy (Triton, CUDA only)."""
    try:
        from liger_kernel.transformers import _apply_liger_kernel
    except ImportError as exc:
        raise PilotSetupError("train.loss 'fused' needs the 'liger-kernel' package") from exc
    # Only the loss: the memory model keeps transformers' RMSNorm, RoPE and MLP.
    _apply_liger_kernel(
        config.model_type,
        fused_linear_cross_entropy=True,
        cross_entropy=False,
        rms_norm=False,
        rope=False,
        swiglu=False,
    )


def lora_modules(targets, fused: bool, moe: bool = False) -> list[str]:
    """The module names peft adapts for the calculator's target names (q, k, v, o, gate, up, down).

    The supported families name their projections alike; Phi-3 fuses q, k and v into
    ``qkv_proj`` and gate and up into ``gate_up_proj``, which take an adapter only as a whole. In a
    mixture of experts gate, up and down name the shared expert's linears, where there is one
    (``expert_parameters`` names the routed experts' tensors), and gate and up go together.
    """
    from calculators.architecture import FUSED, partly_targeted

    names = set(targets)
    partial = partly_targeted(names, fused, moe)
    if partial:
        module, parts = next(iter(partial.items()))
        raise PilotSetupError(
            f"train.lora_targets: this model fuses {', '.join(parts)} into {module}_proj; "
            f"target all of them or none (got {', '.join(sorted(names & set(parts)))})"
        )
    if not fused:
        return sorted(f"{n}_proj" for n in names)
    for module, parts in FUSED.items():
        if names & set(parts):
            names = (names - set(parts)) | {module}
    return sorted(f"{n}_proj" for n in names)


def expert_parameters(targets) -> list[str]:
    """The routed experts' 3-D tensors (peft's ``target_parameters``) that the target names adapt."""
    from calculators.architecture import EXPERT_PARAMS

    return [f"mlp.experts.{name}_proj" for name, parts in EXPERT_PARAMS.items() if set(parts) <= set(targets)]


def _lora(inner: nn.Module, model: ModelConfig, train: TrainConfig) -> nn.Module:
    try:
        import peft
    except ImportError as exc:
        raise PilotSetupError("LoRA on a transformers model needs the 'peft' package: pip install '.[pilot]'") from exc
    from calculators.architecture import MLP_LINEARS

    moe = model.experts > 0
    modules = lora_modules(train.lora_targets, model.fused_projections, moe)
    present = {name.rsplit(".", 1)[-1] for name, _ in inner.named_modules()}
    parameters = expert_parameters(train.lora_targets) if moe else []
    if moe:  # the MLP targets name the routed experts; the shared expert's linears only where there is one
        mlp = {f"{n}_proj" for n in MLP_LINEARS}
        modules = [m for m in modules if m in present or m not in mlp]
        if parameters and train.lora_dropout > 0:
            raise PilotSetupError(
                "train.lora_dropout: peft cannot apply LoRA dropout to the routed experts; set it "
                "to 0 or leave gate, up and down out of train.lora_targets"
            )
    missing = [m for m in modules if m not in present]
    if missing:
        raise PilotSetupError(f"train.lora_targets: {', '.join(missing)} matches no module of this model")
    adapted = {"fp32": True, "weights": False}[train.adapter_dtype]
    config = peft.LoraConfig(
        r=train.lora_rank,
        lora_alpha=train.lora_alpha,
        lora_dropout=train.lora_dropout,
        target_modules=modules,
        target_parameters=parameters or None,
    )
    return peft.get_peft_model(inner, config, autocast_adapter_dtype=adapted)


def check_device(train: TrainConfig, device: torch.device) -> None:
    """QLoRA and the fused loss run CUDA kernels: say so before any work elsewhere."""
    if train.method == "qlora" and device.type != "cuda":
        raise PilotSetupError("train.method 'qlora' needs bitsandbytes on a CUDA device; use 'lora' here")
    if train.loss == "fused" and device.type != "cuda":
        raise PilotSetupError("train.loss 'fused' needs Liger Kernel's Triton kernels on a CUDA device")


def build(model: ModelConfig, train: TrainConfig, seed: int, device: torch.device) -> HFCausalLM:
    """The model, on ``device``, initialised from ``seed`` (or loaded from the directory)."""
    transformers = _transformers()
    check_device(train, device)
    config = hf_config(model)
    dtype = TORCH_DTYPES[model.dtype]
    if train.loss == "fused":
        _fused_loss(config, train, device)
    torch.manual_seed(seed)
    if model.config_file or _preset(model.source) is not None:
        with torch.device(device):
            inner = transformers.AutoModelForCausalLM.from_config(
                config, dtype=dtype, attn_implementation=model.attention
            )
    else:
        inner = transformers.AutoModelForCausalLM.from_pretrained(
            model.source, dtype=dtype, attn_implementation=model.attention
        ).to(device)
    if train.method == "qlora":
        _quantize(inner, train, TORCH_DTYPES["bf16"] if train.precision == "bf16" else dtype, device)
    if train.method == "full":
        inner.requires_grad_(True)
    else:
        inner = _lora(inner, model, train)
    if train.grad_checkpointing:  # transformers' own switch (renamed in 5.x; the old name still works)
        if hasattr(inner, "activation_checkpointing_enable"):
            inner.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
        else:
            inner.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    return HFCausalLM(inner)
