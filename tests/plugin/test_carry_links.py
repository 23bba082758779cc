"""Issue 51 item 2: one job across both calculators. A `Carry` link under one calculator's answer leads to the
page that places the other, and tells the page's script which inputs to carry under which names, against the
target's defaults (the browser half: test_browser_reader_tasks' reader task 1)."""

from __future__ import annotations

from types import SimpleNamespace

import calculators
from guidekit.calc import Carry
from guidekit.site.markers.calculator_embed import carry_links, form_value, placed


def test_the_memory_answer_carries_its_job_to_the_cost_page_under_the_cost_pages_names():
    (link,) = carry_links(calculators.describe("memory"), {"cost": "../cost/"})
    assert link["label"] == "Cost this job" and link["href"] == "../cost/"
    fields, defaults = link["carry"]["fields"], link["carry"]["defaults"]
    assert fields["gpus"] == "cards" and fields["gpu"] == "gpu" and fields["seq_len"] == "seq_len"
    cost = {i["name"]: i for i in calculators.describe("cost")["inputs"]}
    # Every memory input lands on a cost input, compared with the cost page's own default.
    assert set(fields) == {i["name"] for i in calculators.describe("memory")["inputs"]}
    assert defaults == {name: form_value(cost[name]) for name in fields.values()}
    assert defaults["cards"] == "1" and defaults["gradient_checkpointing"] in ("true", "false")


def test_the_cost_answer_carries_only_what_the_memory_page_has():
    (link,) = carry_links(calculators.describe("cost"), {"memory": "../memory/"})
    fields = link["carry"]["fields"]
    assert fields["cards"] == "gpus" and "tokens" not in fields and "price_h100-sxm-80gb_1m" not in fields


def test_no_link_where_no_page_places_the_target():
    assert carry_links(calculators.describe("memory"), {}) == []
    assert Carry("cost", "Cost this job", (("gpus", "cards"),)).describe()["rename"] == {"gpus": "cards"}


def test_the_page_that_places_a_calculator_is_found_in_the_markdown():
    pages = [
        SimpleNamespace(url="index.html", content_string="# Guide\n\nNo form here.\n"),
        SimpleNamespace(url="memory/", content_string="Intro\n\n<!-- calculator: memory -->\n"),
        SimpleNamespace(url="cost/", content_string="<!-- calculator: cost -->\n"),
        SimpleNamespace(url="again/", content_string="<!-- calculator: cost -->\n"),
    ]
    assert placed(pages) == {"memory": "memory/", "cost": "cost/"}  # the first page that places it


def test_a_form_value_is_what_the_page_reads_from_the_field():
    assert form_value({"kind": "bool", "default": True}) == "true"
    assert form_value({"kind": "multichoice", "default": ("q", "k")}) == ["q", "k"]
    assert form_value({"kind": "float", "default": None}) == ""
    assert form_value({"kind": "int", "default": 8}) == "8"
