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
from ._cost_own_inputs import G_MEASURED, G_PRICES, MEASURED_INPUTS, MIN_THROUGHPUT, PRICE_INPUTS
from ._cost_plans import INCREMENTS

G_RENT, G_WORK, G_SPEED = N_("Rental"), N_("Workload"), N_("Throughput")
G_IDLE, G_MEM = N_("Hours that do not train"), N_("Memory budget")
# Where in its throughput range each estimated card is priced (a measured card is priced at its measurement).
LOW, EXPECTED, HIGH = "low", "expected", "high"
BEST = "best"  # the term input's value for "the cheapest plan"
MARGIN = "margin"
RESERVED, ON_SPOT = "reserved", "spot"  # the capacity input's values
CATALOG = "catalog"  # the billing input's value for "as the catalog bills each card"
# Below this, no reader means the value, and the answer's hours grow past what a plan can price.
MIN_INTERVAL = 0.01  # hours between checkpoints (36 s)
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


def _terabytes(name: str, default: float, label: str) -> Input:
    """A quantity an option may be billed by (per TB per day, or once): see `QUANTITIES`."""
    return Input(name, "float", default, label, unit="tb", min=0, max=10000, step=0.1, group=G_RENT, advanced=True)


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
        "capacity",
        "choice",
        RESERVED,
        N_("Capacity"),
        N_(
            "Spot (preemptible) capacity is cheaper but can be taken back at any time: where a card has a spot "
            "price (the catalog's or yours), it is priced by the hour at that price, and each preemption "
            "interrupts the run like a failure."
        ),
        choices=(
            Choice(RESERVED, N_("Terms and on-demand hours")),
            Choice(ON_SPOT, N_("Spot where it is priced")),
        ),
        group=G_RENT,
    ),
    Input(
        "billing",
        "choice",
        CATALOG,
        N_("Hourly billing increment"),
        N_(
            "How on-demand and spot time is billed: every started hour, minute or second. The catalog says it per card."
        ),
        choices=(
            Choice(CATALOG, N_("As the catalog bills each card")),
            *(
                Choice(k, label)
                for k, label in zip(
                    INCREMENTS, (N_("Every started hour"), N_("Every started minute"), N_("Every second"))
                )
            ),
        ),
        group=G_RENT,
        advanced=True,
    ),
    Input(
        "deadline_hours",
        "float",
        0.0,
        N_("Deadline"),
        N_(
            "Wall-clock hours from the start to the last output, at the hours booked. Only configurations that "
            "finish in time are ranked. 0: no deadline."
        ),
        unit="hours",
        min=0,
        max=1e6,
        step=1,
        group=G_RENT,
        optional=True,
        floor=MIN_INTERVAL,
    ),
    _terabytes("storage_tb", 1.0, N_("Checkpoint storage")),
    _terabytes("scratch_tb", 2.0, N_("Extra scratch")),
    _terabytes("egress_tb", 0.5, N_("Data moved out")),
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
        "parallel_runs",
        "bool",
        True,
        N_("Train outputs side by side"),
        N_(
            "With several outputs, the cards may be split into groups that each train one output at a time, "
            "when each group fits in memory and the outputs finish sooner that way. Off: one output after "
            "another on all the cards."
        ),
        group=G_WORK,
        advanced=True,
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
        N_("Share of peak matrix rate"),
        N_(
            "The share of the dense bf16 peak that the matrix multiplications reach, on every card. 0 uses each "
            "card's share fitted to published measurements."
        ),
        advanced=False,
        optional=True,
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
    Input(
        "preemptions_per_100h",
        "float",
        1.0,
        N_("Spot preemptions per 100 card-hours"),
        N_(
            "An assumption: providers do not publish it, and it varies by region and hour. Added to the "
            "interruptions of a card rented on spot."
        ),
        unit="number",
        min=0,
        max=100,
        step=0.01,
        group=G_IDLE,
        only_when=("capacity", (ON_SPOT,)),
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
) + MEASURED_INPUTS
# What a catalog option may be billed by per TB (per day, or once): one of these inputs (`_prices` checks the
# catalog against them).
QUANTITIES = tuple(i.name for i in OWN_INPUTS if i.unit == "tb")
MEMORY_INPUTS = tuple(
    dataclasses.replace(i, advanced=i.advanced or i.name not in _MEMORY_SHOWN)
    for i in memory.INPUTS
    if i.name not in ("gpus", "gpu")
)  # cost has its own card choice
# The form's fieldsets in the order a reader decides (issue 33 item 7): what is trained and how, the run,
# the rental and the reader's own prices for it (beside the card and term they price, issue 51 item 7),
# then what refines the estimate. Within a group, declaration order.
GROUP_ORDER = (
    memory.G_MODEL,
    memory.G_METHOD,
    G_WORK,
    memory.G_RUN,
    memory.G_PAR,
    G_RENT,
    G_PRICES,
    G_SPEED,
    G_IDLE,
    G_MEM,
    G_MEASURED,
)
INPUTS = tuple(sorted(OWN_INPUTS + MEMORY_INPUTS + PRICE_INPUTS, key=lambda i: GROUP_ORDER.index(i.group)))
