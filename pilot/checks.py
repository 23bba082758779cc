"""Checks of the options against the model once it is built; generic over the built-in decoder and
transformers/peft models, since they look only at the adapted nn.Linear layers and the parameters."""

from __future__ import annotations

from torch import nn

from .config import PilotConfig


def adapted_linears(module: nn.Module) -> list[tuple[str, nn.Linear]]:
    """The frozen base layers that carry a LoRA adapter: the built-in `LoRALinear.base`, peft's `base_layer`."""
    found = []
    for name, m in module.named_modules():
        base = getattr(m, "base_layer", None) or getattr(m, "base", None)
        has_adapter = any(n.lower().startswith("lora_a") for n, _ in m.named_parameters(recurse=True))
        if isinstance(base, nn.Linear) and has_adapter:
            found.append((name, base))
    return found


def check_lora_rank(cfg: PilotConfig, module: nn.Module) -> None:
    """A rank above a layer's smaller side adds parameters without adding rank."""
    if cfg.train.method == "full":
        return
    layers = adapted_linears(module)
    if not layers:
        raise ValueError(f"train.lora_targets {','.join(cfg.train.lora_targets)} matched no linear layer of the model")
    from calculators.architecture import rank_limit  # the calculator refuses a rank by the same rule

    bases = dict(layers)
    limit, name = rank_limit({n: (m.in_features, m.out_features) for n, m in layers})
    small = bases[name]
    if cfg.train.lora_rank > limit:
        raise ValueError(
            f"train.lora_rank must be <= {limit}, the smallest adapted dimension "
            f"({name}: {small.in_features} -> {small.out_features}) (got {cfg.train.lora_rank})"
        )


def weight_bytes(module: nn.Module) -> int:
    unique = {id(p): p for p in module.parameters()}.values()
    return sum(p.numel() * p.element_size() for p in unique)


def check_memory_limit(cfg: PilotConfig, module: nn.Module) -> None:
    """A cap below the weights alone cannot be a does-not-fit result: nothing would be measured."""
    limit = int(cfg.memory_limit_gb * 1e9)
    weights = weight_bytes(module)
    if limit and limit < weights:
        raise ValueError(
            f"run.memory_limit_gb must hold at least the model's weights, {weights / 1e9:.4g} GB "
            f"(got {cfg.memory_limit_gb:g})"
        )


def check_model(cfg: PilotConfig, module: nn.Module) -> None:
    check_lora_rank(cfg, module)
    check_memory_limit(cfg, module)
