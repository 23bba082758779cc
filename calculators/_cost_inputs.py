"""The cost calculator's inputs: the rental, the workload, the throughput, the hours that do not
train, the reader's measurements and prices, and the memory calculator's own inputs (declared once,
in ``memory.INPUTS``, reused here for the memory budget), in the order the form shows them.

Apart from the calculator (``cost``), so that the quoting engine (``_cost_quote``), which keys what
it keeps across answers by these inputs, can read them without importing the calculator that runs it.
"""

from __future__ import annotations

import dataclasses

from guidekit.calc import Choice, Input
from guidekit.l10n import N_

from . import _data, memory, throughput
from ._cost_plans import HOURLY

G_RENT, G_WORK, G_SPEED = N_("Rental"), N_("Workload"), N_("Throughput")
G_IDLE, G_MEM = N_("Hours that do not train"), N_("Memory budget")
G_MEASURED = N_("Measured throughput per card")
# Where in its throughput range each estimated card is priced (a measured card is priced at its measurement).
LOW, EXPECTED, HIGH = "low", "expected", "high"
BEST = "best"  # the term input's value for "the cheapest plan"
MARGIN = "margin"
# A plan entry of on-demand hours, labelled like a term ("3 × 1 hour on demand").
HOURLY_LABEL = N_("1 hour on demand")
# The rest of the memory inputs start collapsed.
_MEMORY_SHOWN = {"model", "method", "seq_len", "micro_batch", "parallelism"}
_PRICING = _data.catalog()["pricing"]


def _hours(
    name: str, default: float, label: str, help_: str = "", advanced: bool = False, floor: float | None = None
) -> Input:
    return Input(
        name,
        "float",
        default,
        label,
        help_,
        unit="hours",
        min=0,
        max=100000,
        step=0.1,
        group=G_IDLE,
        advanced=advanced,
        floor=floor,
    )


# Below these, no reader means the value, and the answer's hours grow past what a plan can price.
MIN_THROUGHPUT = 0.01  # tokens per second per card
MIN_PRICE = 0.01  # US$ per card-hour
MIN_INTERVAL = 0.01  # hours between checkpoints (36 s)


def measured_field(gpu_id: str) -> str:
    """The input that holds a throughput measured on one catalog GPU (a pilot result fills its card's)."""
    return f"measured_{gpu_id}"


def _share(
    name: str,
    default: float,
    label: str,
    help_: str,
    group: str = G_SPEED,
    advanced: bool = True,
    optional: bool = False,
) -> Input:
    # An optional share's 0 means "fitted" or "modelled"; any other value is at least 1 %, as the others are.
    return Input(
        name,
        "float",
        default,
        label,
        help_,
        unit="percent",
        min=0 if optional else 0.01,
        max=1,
        step=0.01,
        group=group,
        advanced=advanced,
        optional=optional,
        floor=0.01 if optional else None,
    )


# The workload is given one way or the other (see Input.only_when).
BY_TOKENS = ("workload", ("tokens",))
BY_STEPS = ("workload", ("steps",))

OWN_INPUTS = (
    Input(
        "gpu",
        "choice",
        "h200-141gb",
        N_("GPU"),
        choices=tuple(Choice(g["id"], g["name"]) for g in _data.gpus()),
        group=G_RENT,
    ),
    Input("cards", "int", 1, N_("Cards"), unit="count", min=1, max=1024, group=G_RENT),
    Input(
        "any_count",
        "bool",
        False,
        N_("Allow any card count"),
        N_(
            "Off: only the shapes the catalog rents (cards per node, then whole nodes). On: 1 to 8, 16, 32 and 64 cards."
        ),
        group=G_RENT,
        advanced=True,
    ),
    Input(
        "term",
        "choice",
        BEST,
        N_("Term"),
        N_("The cheapest plan combines the catalog's terms; pinning one term books only copies of it."),
        choices=(Choice(BEST, N_("Cheapest plan")),) + tuple(Choice(t["id"], t["label"]) for t in _data.terms()),
        group=G_RENT,
    ),
    Input(
        "booking",
        "choice",
        LOW,
        N_("Book for"),
        N_(
            "The hours the plan covers: those of the throughput range's low end (the booking survives the "
            "estimate's error), the expected ones, or the expected ones plus a margin."
        ),
        choices=(
            Choice(LOW, N_("The low end of the throughput range")),
            Choice(EXPECTED, N_("The expected hours")),
            Choice(MARGIN, N_("The expected hours plus a margin")),
        ),
        group=G_RENT,
    ),
    Input(
        "booking_margin",
        "float",
        0.2,
        N_("Margin on the expected hours"),
        unit="percent",
        min=0,
        max=10,
        step=0.05,
        group=G_RENT,
        only_when=("booking", (MARGIN,)),
    ),
    Input(
        "options",
        "multichoice",
        ["checkpoint_storage"],
        N_("Options"),
        choices=tuple(Choice(o["id"], o["label"]) for o in _PRICING["options"]),
        group=G_RENT,
    ),
    Input(
        "storage_tb",
        "float",
        1.0,
        N_("Checkpoint storage"),
        unit="tb",
        min=0,
        max=10000,
        step=0.1,
        group=G_RENT,
        advanced=True,
    ),
    Input(
        "scratch_tb",
        "float",
        2.0,
        N_("Extra scratch"),
        unit="tb",
        min=0,
        max=10000,
        step=0.1,
        group=G_RENT,
        advanced=True,
    ),
    Input(
        "egress_tb",
        "float",
        0.5,
        N_("Data moved out"),
        unit="tb",
        min=0,
        max=10000,
        step=0.1,
        group=G_RENT,
        advanced=True,
    ),
    Input(
        "workload",
        "choice",
        "tokens",
        N_("One output is"),
        choices=(Choice("tokens", N_("Tokens × epochs")), Choice("steps", N_("Steps × tokens per step"))),
        group=G_WORK,
    ),
    Input(
        "tokens",
        "float",
        2e8,
        N_("Training tokens per epoch"),
        unit="tokens",
        min=1,
        max=1e15,
        group=G_WORK,
        only_when=BY_TOKENS,
    ),
    Input(
        "epochs",
        "float",
        3.0,
        N_("Epochs"),
        unit="number",
        min=0.01,
        max=1000,
        step=0.1,
        group=G_WORK,
        only_when=BY_TOKENS,
    ),
    Input(
        "global_batch",
        "int",
        32,
        N_("Global batch, in sequences"),
        N_(
            "Sequences per optimizer step across all cards, reached by accumulating micro-batches: the "
            "optimizer step and the gradient exchange happen once per global batch."
        ),
        unit="count",
        min=1,
        max=10**7,
        group=G_WORK,
        only_when=BY_TOKENS,
    ),
    Input(
        "steps", "int", 1000, N_("Optimizer steps"), unit="count", min=1, max=10**9, group=G_WORK, only_when=BY_STEPS
    ),
    Input(
        "tokens_per_step",
        "int",
        65536,
        N_("Tokens per step (global batch)"),
        unit="tokens",
        min=1,
        max=10**10,
        group=G_WORK,
        only_when=BY_STEPS,
    ),
    Input(
        "runs",
        "int",
        1,
        N_("Successful outputs wanted"),
        N_("For example 6 for a sweep of six runs; each output trains the whole workload."),
        unit="count",
        min=1,
        max=1000,
        group=G_WORK,
    ),
    Input(
        "stack",
        "choice",
        throughput.HF,
        N_("Training software"),
        N_(
            "Speeds are fitted per software: on the same card, the Hugging Face stack (Trainer or TRL, with "
            "PEFT) measured slower than the tuned frameworks (NeMo/Megatron, torchtitan, llm-foundry), and more "
            "so with short sequences."
        ),
        choices=(
            # Short: a phone's select shows about 35 characters. The help and the page say which tools each is.
            Choice(throughput.HF, N_("Hugging Face with PEFT")),
            Choice(throughput.TUNED, N_("Tuned framework (NeMo, torchtitan…)")),
        ),
        group=G_SPEED,
    ),
    Input(
        "precision",
        "choice",
        "bf16",
        N_("Precision of the matrix multiplications"),
        N_(
            "FP8 runs the linear layers faster on the cards that have it (H100, H200, MI300X), by the speed-up "
            "fitted to published FP8/bf16 pairs; the other cards are priced in bf16. The memory budget stays "
            "that of bf16."
        ),
        choices=(Choice("bf16", N_("bf16")), Choice("fp8", N_("FP8 where the card has it"))),
        group=G_SPEED,
    ),
    Input(
        "throughput_per_gpu",
        "float",
        0.0,
        N_("Measured throughput per GPU"),
        N_(
            "Measured on the GPU chosen above (the pilot's figure), as the run's tokens per second divided by "
            "its cards. 0 estimates it; the fields under “Measured throughput per card” set any card."
        ),
        unit="tokens_per_s",
        min=0,
        max=1e9,
        group=G_SPEED,
        optional=True,
        floor=MIN_THROUGHPUT,
    ),
    Input(
        "measurement_cards",
        "int",
        1,
        N_("Cards of the measured run"),
        N_(
            "How many cards the measured throughput was taken on. A figure from an 8-card run already "
            "includes its scaling loss: it is not scaled again on 8 cards."
        ),
        unit="count",
        min=1,
        max=1024,
        group=G_SPEED,
        advanced=True,
    ),
    _share(
        "utilization",
        0.0,
        N_("Share of peak matrix rate, data-centre cards"),
        N_(
            "The share of the dense bf16 peak that the matrix multiplications reach. 0 uses each card's share "
            "fitted to published measurements."
        ),
        advanced=False,
        optional=True,
    ),
    _share(
        "desktop_utilization",
        0.3,
        N_("Share of peak matrix rate, workstation and consumer cards"),
        N_(
            "An assumption: no published measurement of these cards calibrates it. Lower than the data-centre "
            "cards': they hold their boost clock for less time within a smaller power limit."
        ),
    ),
    _share(
        "bandwidth_share",
        throughput.BANDWIDTH_SHARE,
        N_("Share of peak bandwidth achieved"),
        N_("For memory-bound kernels and for the link between cards."),
    ),
    _share(
        "scaling_efficiency",
        0.0,
        N_("Measured scaling efficiency"),
        N_("Throughput of N cards divided by N times one card, on the GPU chosen above. 0 models it from the link."),
        advanced=False,
        optional=True,
    ),
    _share(
        "internode_efficiency",
        throughput.INTERNODE_EFFICIENCY,
        N_("Efficiency across nodes"),
        N_("Applied on top for more than 8 cards, which span several nodes."),
    ),
    _hours("load_hours", 0.5, N_("Loading per output"), N_("Environment, data and model loading.")),
    _hours("validation_hours", 0.5, N_("Validation per output")),
    _hours("checkpoint_hours", 0.5, N_("Checkpoint upload per output")),
    _hours("export_hours", 0.5, N_("Export per output")),
    Input(
        "failures_per_100h",
        "float",
        0.01,
        N_("Interruptions per 100 card-hours"),
        N_("Expected failures that stop the run; any card's failure stops every card."),
        unit="number",
        min=0,
        max=100,
        step=0.01,
        group=G_IDLE,
    ),
    _hours(
        "checkpoint_interval_hours",
        1.0,
        N_("Checkpoint interval"),
        N_("An interruption loses the work done since the last checkpoint."),
        floor=MIN_INTERVAL,
    ),
    _hours(
        "restart_hours", 0.5, N_("Restart per interruption"), N_("Noticing the failure and relaunching."), advanced=True
    ),
    Input(
        "checkpoint_write_s",
        "float",
        30.0,
        N_("Checkpoint write"),
        N_("Training pauses this long per checkpoint."),
        unit="seconds",
        min=0,
        max=1e6,
        group=G_IDLE,
        advanced=True,
    ),
    Input(
        "restore_s",
        "float",
        120.0,
        N_("Checkpoint restore"),
        N_("Loading the last checkpoint after a restart."),
        unit="seconds",
        min=0,
        max=1e6,
        group=G_IDLE,
        advanced=True,
    ),
    Input(
        "memory_per_gpu_gb",
        "float",
        0.0,
        N_("Measured memory per GPU"),
        N_("0 estimates it from the memory inputs for each card count."),
        unit="gb",
        min=0,
        max=100000,
        group=G_MEM,
        optional=True,
    ),
) + tuple(
    # One per catalog GPU, labelled with its name (a proper noun): a measurement stays with its card
    # whichever GPU the form has chosen.
    Input(
        measured_field(g["id"]),
        "float",
        0.0,
        g["name"],
        N_("Tokens per second per card, measured on this GPU (the pilot's figure); 0 keeps the estimate."),
        unit="tokens_per_s",
        min=0,
        max=1e9,
        group=G_MEASURED,
        advanced=True,
        optional=True,
        floor=MIN_THROUGHPUT,
    )
    for g in _data.gpus()
)
MEASURED_FIELDS = {g["id"]: measured_field(g["id"]) for g in _data.gpus()}


def price_field(gpu_id: str, term_id: str) -> str:
    """The input that holds the reader's own price of one GPU for one term (`HOURLY`: on demand)."""
    return f"price_{gpu_id}_{term_id}"


# The reader's prices, per GPU and term, on demand included: 0 keeps the site owner's catalog price. Each
# GPU's own fieldset, titled as prices with their currency and the GPU's name (a proper noun), its fields
# labelled with the terms.
G_PRICES = N_("Your prices per card-hour, US$ — {gpu}")
PRICE_FIELDS = {
    (g["id"], t["id"]): price_field(g["id"], t["id"]) for g in _data.gpus() for t in [*_data.terms(), {"id": HOURLY}]
}
PRICE_INPUTS = tuple(
    Input(
        PRICE_FIELDS[g["id"], t["id"]],
        "float",
        0.0,
        t["label"],
        N_("Your price per card-hour for this GPU and term; 0 keeps the site owner's catalog price."),
        unit="usd_per_hour",
        min=0,
        max=10000,
        step=0.01,
        group=G_PRICES,
        group_params=(("gpu", g["name"]),),
        advanced=True,
        optional=True,
        floor=MIN_PRICE,
    )
    for g in _data.gpus()
    for t in [*_data.terms(), {"id": HOURLY, "label": HOURLY_LABEL}]
)
# What a catalog option may be billed by per TB (per day, or once): one of these inputs (`_prices` checks the
# catalog against them).
QUANTITIES = tuple(i.name for i in OWN_INPUTS if i.unit == "tb")
MEMORY_INPUTS = tuple(
    dataclasses.replace(i, advanced=i.advanced or i.name not in _MEMORY_SHOWN)
    for i in memory.INPUTS
    if i.name not in ("gpus", "gpu")
)  # cost has its own card choice
# The form's fieldsets in the order a reader decides (issue 33 item 7): what is trained and how, the run,
# the rental, then what refines the estimate; the reader's own prices last. Within a group, declaration order.
GROUP_ORDER = (
    memory.G_MODEL,
    memory.G_METHOD,
    G_WORK,
    memory.G_RUN,
    memory.G_PAR,
    G_RENT,
    G_SPEED,
    G_IDLE,
    G_MEM,
    G_MEASURED,
)
INPUTS = tuple(sorted(OWN_INPUTS + MEMORY_INPUTS, key=lambda i: GROUP_ORDER.index(i.group))) + PRICE_INPUTS
