"""The reader's own figures per catalog card, in the cost calculator's form: a throughput measured on each
GPU (a pilot result fills its card's) and a price per card-hour for each GPU and term, on demand and spot
included. A throughput of 0 keeps the estimate; an empty price keeps the catalog's, and a price of 0 is a
term the reader's provider does not offer. One input per GPU and figure, so that a
figure stays with its card whichever GPU the form has chosen."""

from __future__ import annotations

from guidekit.calc import Input, TableGroup
from guidekit.l10n import N_

from . import _data
from ._cost_plans import HOURLY, SPOT

G_MEASURED = N_("Measured throughput per card")
# A plan entry of on-demand hours, labelled like a term ("3 × 1 hour on demand").
HOURLY_LABEL = N_("1 hour on demand")
SPOT_LABEL = N_("1 hour on spot")  # the label of a spot price field
# Below these, no reader means the value, and the answer's hours grow past what a plan can price.
MIN_THROUGHPUT = 0.01  # tokens per second per card
MIN_PRICE = 0.01  # US$ per card-hour


def measured_field(gpu_id: str) -> str:
    """The input that holds a throughput measured on one catalog GPU (a pilot result fills its card's)."""
    return f"measured_{gpu_id}"


MEASURED_INPUTS = tuple(
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


# The reader's prices, per GPU and term, on demand and spot included. Empty keeps the site owner's catalog
# price (shown beside the field); 0 says the reader's provider does not offer that term, which no catalog
# price can say. Each GPU's own fieldset, titled as prices with their currency and the GPU's name (a proper
# noun), laid out as a table (`TABLES`): the term, the catalog's price, the reader's.
G_PRICES = N_("Your prices per card-hour, US$ — {gpu}")
TABLES = {
    G_PRICES: TableGroup(label=N_("Term"), reference=N_("Catalog"), field=N_("Your price"), absent=N_("not offered"))
}
_BY_THE_HOUR = [{"id": HOURLY, "label": HOURLY_LABEL}, {"id": SPOT, "label": SPOT_LABEL}]
_PRICING = _data.catalog()["pricing"]


def catalog_rate(gpu_id: str, term_id: str) -> float | None:
    """The catalog's price per card-hour of one GPU for one term; None where it lists none (on demand, spot)."""
    rate: float | None
    if term_id in (HOURLY, SPOT):
        by_the_hour = "on_demand_usd_per_card_hour" if term_id == HOURLY else "spot_usd_per_card_hour"
        rate = _PRICING.get(by_the_hour, {}).get(gpu_id)
    else:
        rate = _PRICING["usd_per_card_hour"][gpu_id][term_id]
    return rate


PRICE_FIELDS = {
    (g["id"], t["id"]): price_field(g["id"], t["id"]) for g in _data.gpus() for t in [*_BY_THE_HOUR, *_data.terms()]
}
PRICE_INPUTS = tuple(
    Input(
        PRICE_FIELDS[g["id"], t["id"]],
        "float",
        None,
        t["label"],
        N_("Empty: the catalog's price. 0: your provider does not offer this term."),
        unit="usd_per_hour",
        min=0,
        max=10000,
        step=0.01,
        group=G_PRICES,
        group_params=(("gpu", g["name"]),),
        advanced=True,
        optional=True,
        floor=MIN_PRICE,
        reference=catalog_rate(g["id"], t["id"]),
    )
    for g in _data.gpus()
    for t in [*_BY_THE_HOUR, *_data.terms()]
)
