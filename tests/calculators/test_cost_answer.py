"""The cost answer's first sentence, and no headline price for a configuration that does not fit."""

import pytest

from calculators import compute


def answer(**inputs):
    response = compute("cost", inputs)
    assert response["ok"], response.get("errors")
    return response["result"]


def tiles(r) -> dict:
    block = next(b for b in r["display"] if b["kind"] == "metrics")
    return {m["label"]: m for m in block["items"]}


def test_the_answer_opens_with_the_cheapest_configuration_and_the_choice_beside_it():
    r = answer(model="mistral-7b-v0.3", method="lora", gpu="h200-141gb")
    first = r["display"][0]
    assert first["kind"] == "verdict"
    best = r["best_by_gpu"][0]
    assert first["params"]["config"]["params"]["gpu"] == best["name"]
    assert first["params"]["price"] == {"value": best["usd_per_output"], "unit": "usd"}
    assert ("stays the cheapest" in first["params"]["range"]["msg"]) == r["ranking_holds"]
    assert (first["status"] == "ok") == r["ranking_holds"]
    if (best["gpu"], best["cards"]) != (r["gpu"], r["cards"]):  # the selected card beside the cheapest
        assert first["params"]["chosen"]["params"]["gpu"] == "H200 SXM 141 GB"
        assert first["params"]["chosen_price"]["value"] == r["usd_per_output"]
    # The tiles say which configuration they describe.
    assert tiles(r)["Configuration priced"]["value"] == "1 × H200 SXM 141 GB"


@pytest.mark.parametrize(
    "inputs, change, cards, micro_batch",
    [
        # The case: 70B QLoRA at micro-batch 4 on one H100 fits at micro-batch 2.
        ({"model": "llama-3.1-70b", "method": "qlora", "micro_batch": 4, "gpu": "h100-sxm-80gb"}, "micro_batch", 1, 2),
        # Micro-batch 1 already: more cards of the same GPU, sharded.
        (
            {
                "model": "llama-3.1-70b",
                "method": "lora",
                "parallelism": "fsdp",
                "micro_batch": 1,
                "gpu": "h100-sxm-80gb",
            },
            "cards",
            4,
            1,
        ),
    ],
)
def test_a_configuration_that_does_not_fit_has_no_headline_price_but_the_nearest_that_fits(
    inputs, change, cards, micro_batch
):
    r = answer(**inputs)
    assert not r["fits_memory"]
    near = r["nearest_fit"]
    assert near["fits_memory"] and near["change"] == change and near["gpu"] == inputs["gpu"]
    assert near["cards"] == cards and near["micro_batch"] == micro_batch
    head = tiles(r)
    assert head["Nearest configuration that fits"]["status"] == "warn"
    assert head["Cost per successful output"]["value"] == near["usd_per_output"] != r["usd_per_output"]
    verdict = r["display"][0]
    assert "does not fit in memory" in verdict["msg"] and verdict["status"] == "warn"
    assert verdict["params"]["nearest_price"]["value"] == near["usd_per_output"]
    # Right under the sentence, as a fix with the inputs that apply it.
    assert r["display"][1]["kind"] == "notes"
    (fix,) = r["display"][1]["items"]
    assert fix["msg"].startswith("The figures above price the nearest configuration that fits") and fix["apply"]


def test_a_gpu_that_never_fits_gives_way_to_the_cheapest_that_does():
    r = answer(gpu="h100-sxm-80gb", memory_per_gpu_gb=100)  # measured: no batch or card count changes it
    assert r["nearest_fit"]["change"] == "gpu" and r["nearest_fit"]["gpu"] == r["ranking"][0]


def test_nothing_fits_no_price_at_all():
    r = answer(model="llama-3.1-70b", method="full", gpu="h100-sxm-80gb")  # one GPU's DDP: no card count fits
    assert not r["ranking"] and r["nearest_fit"] is None
    assert r["display"][0]["status"] == "bad"
    assert not {"Cost per successful output", "Plan price"} & set(tiles(r))


def test_frequent_failures_warn_that_the_interval_is_longer_than_the_mean_time_between_them():
    r = answer(gpu="h100-sxm-80gb", cards=64, failures_per_100h=1, checkpoint_interval_hours=4, memory_per_gpu_gb=40)
    notes = [i for i in r["display"][-1]["items"] if "mean time between failures" in i["msg"]]
    assert notes and notes[0]["params"]["mtbf"]["value"] == pytest.approx(100 / 64)
    calm = answer(gpu="h100-sxm-80gb", cards=8, memory_per_gpu_gb=40)
    assert not [i for i in calm["display"][-1]["items"] if "mean time between failures" in i["msg"]]


def test_the_booking_note_says_what_happens_at_the_low_end():
    r = answer(gpu="h100-sxm-80gb", memory_per_gpu_gb=40, booking="expected", tokens=1.1e8)
    note = next(i for i in r["display"][-1]["items"] if i["msg"].startswith("At the low end"))
    assert r["spare_at_low_hours"] < 0  # booked for the expected hours: short at the low end
    assert "falls {hours} short" in note["msg"] and note["params"]["usd"]["value"] == r["topup_at_low_usd"] > 0
    low = answer(gpu="h100-sxm-80gb", memory_per_gpu_gb=40, tokens=1.1e8)
    note = next(i for i in low["display"][-1]["items"] if i["msg"].startswith("At the low end"))
    assert "to spare" in note["msg"] and low["spare_at_low_hours"] >= 0


# 30 hours on one H100 at a measured 1,000 tokens/s, with nothing else billed: a job whose plan only the
# prices move.
PRICED_JOB = {
    "gpu": "h100-sxm-80gb",
    "memory_per_gpu_gb": 40,
    "throughput_per_gpu": 1000,
    "tokens": 30 * 3600 * 1000,
    "epochs": 1,
    "options": [],
    "load_hours": 0,
    "validation_hours": 0,
    "checkpoint_hours": 0,
    "export_hours": 0,
    "failures_per_100h": 0,
    "checkpoint_write_s": 0,
    "booking": "expected",
}


def test_the_readers_prices_replace_the_catalogs_per_card_and_term():
    base = PRICED_JOB
    r = answer(**base, **{"price_h100-sxm-80gb_1d": 1.0, "price_h100-sxm-80gb_hourly": 9.0})
    # 30 h: a day at $1.00 per card-hour and 6 hours on demand at $9.00 beat two days ($48)? 24 + 54 = 78 > 48.
    assert r["plan"] == [["1d", 2]] and r["total_usd"] == pytest.approx(48.0)
    assert r["hourly_usd"] == pytest.approx(30 * 9.0) and r["prices_edited"] == ["h100-sxm-80gb"]
    notes = [i for i in r["display"][-1]["items"] if "Your own prices" in i["msg"]]
    assert notes and notes[0]["params"]["gpus"] == "H100 SXM 80 GB"
    cheap_hour = answer(**base, **{"price_h100-sxm-80gb_hourly": 0.5})
    assert cheap_hour["plan"] == [["hourly", 30]] and cheap_hour["total_usd"] == pytest.approx(15.0)
    # Another card's price moves that card only.
    other = answer(**base, **{"price_mi300x-192gb_1d": 0.01})
    assert other["total_usd"] == answer(**base)["total_usd"] and other["best_by_gpu"][0]["gpu"] == "mi300x-192gb"


def test_a_price_of_0_is_a_term_not_offered_and_an_empty_one_the_catalogs():
    """Issue 51 item 7: the reader can say that their provider does not sell a term (0), which the catalog's
    price (an empty field) cannot; a card with no price left leaves the ranking, and the chosen card or a
    pinned term without one is refused on the field that chose it."""
    base = PRICED_JOB
    h100 = lambda **terms: {f"price_h100-sxm-80gb_{t}": v for t, v in terms.items()}  # noqa: E731
    catalog = answer(**base)
    assert answer(**base, **h100(**{"1d": "", "hourly": None})) == catalog  # empty: the catalog's price
    # Only on demand at $9 and the catalog's month: 30 hours by the hour, never a day or a week.
    r = answer(**base, **h100(**{"1d": 0, "1w": 0, "3m": 0, "spot": 0, "hourly": 9}))
    assert r["plan"] == [["hourly", 30]] and r["total_usd"] == pytest.approx(270.0)
    # Only the week: one week, though a day and on-demand hours would cost less.
    only_week = answer(**base, **h100(**{"1d": 0, "1m": 0, "3m": 0, "hourly": 0}))
    assert only_week["plan"] == [["1w", 1]] and only_week["hourly_usd"] is None
    assert catalog["plan"] != only_week["plan"]
    # Another card offered nowhere leaves the ranking; the reader's card keeps its answer.
    none = {f"price_mi300x-192gb_{t}": 0 for t in ("hourly", "spot", "1d", "1w", "1m", "3m")}
    gone = answer(**base, **none)
    assert "mi300x-192gb" in catalog["ranking"] and "mi300x-192gb" not in gone["ranking"]
    assert gone["total_usd"] == catalog["total_usd"] and "mi300x-192gb" in gone["prices_edited"]
    # The chosen card offered nowhere, or not on the term the reader pinned: refused where it was chosen.
    refused = compute("cost", {**base, "gpu": "mi300x-192gb", **none})
    assert [(e["field"], e["code"]) for e in refused["errors"]] == [("gpu", "gpu_not_offered")]
    pinned = compute("cost", {**base, "term": "1w", **h100(**{"1w": 0})})
    assert [(e["field"], e["code"]) for e in pinned["errors"]] == [("term", "term_not_offered")]


def test_bad_prices_are_refused_on_their_own_field():
    response = compute("cost", {"price_h100-sxm-80gb_1w": -1, "price_mi300x-192gb_hourly": "cheap"})
    assert {(e["field"], e["code"]) for e in response["errors"]} == {
        ("price_h100-sxm-80gb_1w", "out_of_range"),
        ("price_mi300x-192gb_hourly", "not_a_number"),
    }


def test_a_configuration_that_does_not_fit_has_no_price_of_its_own():
    """Issue 49: the record of the reader's configuration carries no cost when it cannot run; the nearest one
    that fits is priced instead, and it is that price the headline shows."""
    r = answer(model="llama-3.1-8b", method="full", gpu="rtx-4090-24gb", cards=1)
    assert not r["fits_memory"] and r["nearest_fit"]["fits_memory"]
    assert all(r[k] is None for k in ("usd_per_output", "total_usd", "hourly_usd", "best_usd_per_output"))
    assert tiles(r)["Cost per successful output"]["value"] == r["nearest_fit"]["usd_per_output"] > 0
