"""This guide's own field-error codes: the memory model's rules across fields and a config.json's
problems, declared with the framework (`guidekit.calc.register_error_codes`) when this module is imported."""

from guidekit.calc import register_error_codes
from guidekit.l10n import N_

register_error_codes(
    {
        "heads_not_divisible": N_("The hidden size must be divisible by the number of attention heads."),
        "kv_heads_not_divisor": N_("The number of KV heads must divide the number of attention heads."),
        "single_gpu_only": N_("A single-GPU run uses exactly one GPU."),
        "offload_needs_fsdp": N_("Offloading the parameters needs FSDP / ZeRO-3 parallelism."),
        "fused_target_partial": N_("This model fuses {modules} into one layer: choose all of them or none."),
        "lora_rank_too_high": N_(
            "The LoRA rank can be at most {limit} here, the smaller side of {module}, the "
            "smallest adapted layer: a higher rank adds parameters without adding rank."
        ),
        "experts_per_token_too_many": N_("A token cannot be routed to more experts than the {experts} there are."),
        "expert_lora_dropout": N_(
            "peft cannot apply LoRA dropout to the routed experts: set the dropout to 0, or "
            "leave gate, up and down out of the targets."
        ),
        # The reader's own prices (0: not offered) can leave the chosen card or term without a price.
        "gpu_not_offered": N_(
            "At your prices, {gpu} is not offered on any term or by the hour: give one of its prices, or "
            "choose another GPU."
        ),
        "term_not_offered": N_(
            "At your prices, {gpu} is not offered for this term: give its price, or choose another term."
        ),
        "config_not_json": N_("This is not a config.json: the file is not a JSON object."),
        "config_too_large": N_("The file is larger than a config.json can be ({limit} bytes at most)."),
        "config_missing_key": N_("The config.json has no valid {key}."),
        "config_not_count": N_("In the config.json, {key} must be a whole number of 1 or more, not {got}."),
        "config_not_boolean": N_("In the config.json, {key} must be true or false, not {got}."),
        "config_huge_number": N_("In the config.json, {key} holds a number too large to read: {got}."),
        "config_too_deep": N_("The file nests deeper than a config.json can ({limit} levels at most)."),
        "config_unsupported_value": N_(
            "In the config.json, {key} is {got}: a layout the memory model does not describe."
        ),
        # The pilot traces any causal LM transformers builds: the way to an answer for a family the model lacks.
        "unsupported_model_type": N_(
            "Model type {got} is not supported; supported: {choices}. To size it anyway, trace "
            "one training step of this config.json on your own computer, without a GPU: "
            "gpu-pilot trace --model-config config.json."
        ),
    }
)
