"""Which heat pump for a home: the design heat load a heat pump must cover, and the electricity it uses
in a year. A guide's own calculator, written as any author writes one: the standard library and
guidekit's framework only, so it runs in the build and in the reader's browser alike.

The method is the degree-day one (the method page explains it):
- heat loss coefficient H (W/K) = floor area x specific loss of the insulation level, per m² and kelvin;
- design heat load (kW) = H x (indoor - design outdoor temperature) / 1000: the capacity to buy;
- heat for a year (kWh) = H x heating degree days x 24 / 1000, plus hot water per person;
- electricity (kWh) = that heat / the seasonal coefficient of performance (SCOP).
"""

import sys

from guidekit.calc import Choice, Input, Unit, error, register, register_error_codes, register_unit
from guidekit.calc.display import bars, metric, metrics, notes, value, verdict
from guidekit.l10n import N_

# Specific heat loss per square metre of floor and kelvin, by insulation level: the typical range of
# houses of each kind (an energy survey or an EN 12831 room-by-room calculation replaces it).
INSULATION = {"poor": 2.2, "average": 1.5, "good": 0.9, "passive": 0.5}
HOT_WATER_KWH_PER_PERSON_DAY = 1.6  # 40 litres a day heated from 10 to 45 °C
LARGE_KW = 16  # beyond it, a single domestic unit is rare: the load deserves a room-by-room check


def _number(digits: int):
    return lambda v, loc: loc.fmt.number(v, max_frac=digits)


# Units of this guide: each is named beside a form input, written after a number in English, and
# formatted in the reader's locale (the renderer isolates the run in a right-to-left page).
register_unit(
    "m2", Unit("m²", " m²", format=lambda v, loc: loc.t(N_("{value} m²"), value=loc.fmt.number(v, max_frac=0)))
)
register_unit(
    "celsius", Unit("°C", " °C", format=lambda v, loc: loc.t(N_("{value} °C"), value=loc.fmt.number(v, max_frac=1)))
)
register_unit(
    "kelvin_days",
    Unit("K·d", " K·d", format=lambda v, loc: loc.t(N_("{value} K·d"), value=loc.fmt.number(v, max_frac=0))),
)
register_unit(
    "kw", Unit("kW", " kW", format=lambda v, loc: loc.t(N_("{value} kW"), value=loc.fmt.number(v, max_frac=1)))
)
register_unit(
    "kwh", Unit("kWh", " kWh", format=lambda v, loc: loc.t(N_("{value} kWh"), value=loc.fmt.number(v, max_frac=0)))
)
register_unit(
    "w_per_k", Unit("W/K", " W/K", format=lambda v, loc: loc.t(N_("{value} W/K"), value=loc.fmt.number(v, max_frac=0)))
)

register_error_codes({"indoor_not_warmer": N_("The indoor temperature must be above the design outdoor temperature.")})

NAME = "heat-pump"
TITLE = N_("Heat pump size and yearly electricity")
FOOTNOTE = N_("Estimates for planning: an installer's heat-loss calculation decides the final size.")
INPUTS = (
    Input("area", "float", 140, N_("Heated floor area"), unit="m2", min=20, max=2000, group=N_("Home")),
    Input(
        "insulation",
        "choice",
        "average",
        N_("Insulation"),
        group=N_("Home"),
        choices=(
            Choice("poor", N_("Poor (uninsulated, before about 1980)")),
            Choice("average", N_("Average (partly renovated)")),
            Choice("good", N_("Good (recent building code)")),
            Choice("passive", N_("Very good (passive house)")),
        ),
    ),
    Input("people", "int", 3, N_("People (hot water)"), min=0, max=20, group=N_("Home")),
    Input("indoor", "float", 20, N_("Indoor temperature"), unit="celsius", min=10, max=26, group=N_("Climate")),
    Input(
        "design_outdoor",
        "float",
        -10,
        N_("Design outdoor temperature"),
        help=N_("The coldest temperature the heating must still cover; your installer or local standard gives it."),
        unit="celsius",
        min=-40,
        max=15,
        group=N_("Climate"),
    ),
    Input(
        "degree_days",
        "float",
        3200,
        N_("Heating degree days in a year"),
        unit="kelvin_days",
        min=100,
        max=9000,
        group=N_("Climate"),
    ),
    Input(
        "scop",
        "float",
        3.5,
        N_("Seasonal coefficient of performance (SCOP)"),
        min=1.5,
        max=7,
        step=0.1,
        group=N_("Heat pump"),
        advanced=True,
    ),
)


def check(values: dict) -> list:
    if values["indoor"] <= values["design_outdoor"]:
        return [error("indoor", "indoor_not_warmer")]
    return []


def run(values: dict) -> dict:
    coefficient = values["area"] * INSULATION[values["insulation"]]  # W/K
    load_kw = coefficient * (values["indoor"] - values["design_outdoor"]) / 1000
    space_kwh = coefficient * values["degree_days"] * 24 / 1000
    water_kwh = values["people"] * HOT_WATER_KWH_PER_PERSON_DAY * 365
    heat_kwh = space_kwh + water_kwh
    electricity_kwh = heat_kwh / values["scop"]
    large = load_kw > LARGE_KW
    advice = [
        (
            N_("A direct electric heater would use {direct} for the same heat: the heat pump saves {saved} a year."),
            {"direct": value(heat_kwh, "kwh"), "saved": value(heat_kwh - electricity_kwh, "kwh")},
        )
    ]
    if large:
        advice.append(
            (
                N_("Above {limit} a single home unit is rare: have the heat loss calculated room by room first."),
                {"limit": value(LARGE_KW, "kw")},
            )
        )
    return {
        "design_load_kw": load_kw,
        "heat_loss_w_per_k": coefficient,
        "heat_kwh": heat_kwh,
        "electricity_kwh": electricity_kwh,
        "display": [
            verdict(
                N_("Choose a heat pump of about {load}: it keeps the home at {indoor} down to {outdoor} outside."),
                {
                    "load": value(load_kw, "kw"),
                    "indoor": value(values["indoor"], "celsius"),
                    "outdoor": value(values["design_outdoor"], "celsius"),
                },
                "warn" if large else "ok",
            ),
            metrics(
                N_("In a year"),
                [
                    metric(N_("Design heat load"), load_kw, "kw", "warn" if large else None),
                    metric(N_("Heat loss coefficient"), coefficient, "w_per_k"),
                    metric(N_("Heat for heating and hot water"), heat_kwh, "kwh"),
                    metric(N_("Electricity for the heat pump"), electricity_kwh, "kwh"),
                ],
            ),
            bars(
                N_("Electricity in a year"),
                "kwh",
                [(N_("Heat pump"), electricity_kwh), (N_("Direct electric heating"), heat_kwh)],
            ),
            notes(advice),
        ],
    }


register(sys.modules[__name__])
