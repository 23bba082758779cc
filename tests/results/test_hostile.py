"""Hostile files: each gets its precise problem; valid files carrying payloads render escaped."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

import gpuguide.results as results
from guidekit.l10n import Localizer
from pilot.result import PROBLEM_CODES
from tests.conftest import locale_packs

from . import make_bad
from .cases import BAD, CASES, HUGE, PAYLOAD_STRINGS, PAYLOADS, write_huge

LOCALES = Path(__file__).resolve().parents[2] / "locales"
PACKS = locale_packs()
ON_DISK = [c for c in CASES if c[0] != HUGE]


def test_the_hostile_files_are_committed_as_generated():
    generated = make_bad.files()
    assert sorted(generated) == sorted(p.name for p in BAD.glob("*.json"))
    for name, body in generated.items():
        assert (BAD / name).read_bytes() == body, f"{name}: rerun python -m tests.results.make_bad"


@pytest.mark.parametrize(("name", "pointer", "code"), ON_DISK, ids=[c[0] for c in ON_DISK])
def test_each_bad_file_gets_its_precise_problem(name, pointer, code):
    data, problems = results.parse((BAD / name).read_bytes())
    assert data is None and problems
    assert (problems[0]["pointer"], problems[0]["code"]) == (pointer, code), problems[:3]
    for p in problems:
        assert p["code"] in PROBLEM_CODES or p["code"] == "type"
        assert results.english(p) and json.loads(json.dumps(p)) == p  # JSON scalars only
    if code not in ("encoding", "bom"):  # the browser may hand over text instead of bytes
        _, as_text = results.parse((BAD / name).read_bytes().decode("utf-8"))
        assert as_text == problems


def test_a_50_mb_file_is_refused_by_size_before_it_is_read(tmp_path):
    path = write_huge(tmp_path / HUGE)
    raw = path.read_bytes()
    data, problems = results.parse(raw)
    out = results.import_result("memory", raw.decode("utf-8"), PACKS["es"])
    assert data is None and [(p["pointer"], p["code"]) for p in problems] == [("", "too_large")]
    assert problems[0]["params"] == {"limit": results.MAX_BYTES, "found": len(raw)}
    assert not out["ok"] and out["problems"] == problems


def test_the_problem_list_is_capped_with_a_count():
    _, problems = results.parse((BAD / "many-unknown-keys.json").read_bytes())
    assert len(problems) == 50 and problems[-1]["code"] == "too_many"
    assert problems[-1]["params"]["count"] == 5000 - 49


def test_messages_name_the_place_and_what_was_expected():
    english = Localizer.english()
    _, problems = results.parse((BAD / "negative-memory.json").read_bytes())
    assert results.problem_message(problems[0], english) == "/memory/peak_tensor_bytes: expected a number ≥ 0, found -1"
    _, problems = results.parse((BAD / "missing-timing.json").read_bytes())
    assert results.problem_message(problems[0], english) == "the file as a whole: expected property 'timing'"
    _, problems = results.parse((BAD / "truncated.json").read_bytes())
    assert results.problem_message(problems[0], english).startswith(
        "the file as a whole: expected valid JSON (error at line "
    )


def test_messages_go_through_the_catalog():
    t = Localizer(
        {
            **Localizer.english().pack,
            "locale": "xx",
            "messages": {
                "{pointer}: expected a JSON document": "«{pointer}» ⇒ un documento JSON",
                "the file as a whole": "raíz",
            },
        }
    )
    _, problems = results.parse(b"")
    assert results.problem_message(problems[0], t) == "«raíz» ⇒ un documento JSON"


class _Markup(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs = set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.extend(attrs)


def assert_inert(html: str) -> None:
    low = html.lower()
    assert "<script" not in low and "<img" not in low and 'href="javascript:' not in low
    markup = _Markup()
    markup.feed(html)
    assert not markup.tags & {"script", "img", "iframe", "object", "embed"}, markup.tags
    for name, value in markup.attrs:
        assert not name.startswith("on"), name
        if name == "href":
            assert value.startswith("#run-"), value


@pytest.mark.parametrize("code", PACKS)
@pytest.mark.parametrize("name", PAYLOADS)
def test_payloads_in_every_string_render_escaped(name, code):
    data, problems = results.parse((BAD / name).read_bytes())
    assert problems == [] and data is not None
    page = results.results_page([("<script>alert('file')</script>.json", data)], PACKS[code])
    assert_inert(page)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "javascript:alert(1)" in page
    for calculator in ("memory", "cost"):
        out = results.import_result(calculator, (BAD / name).read_text(encoding="utf-8"), PACKS[code])
        assert out["ok"], out["errors"]
        assert_inert(out["html"])
        assert not set(json.dumps(out["inputs"])) & set("<>")  # no file string reaches the form


@pytest.mark.parametrize(("name", "pointer", "code"), ON_DISK, ids=[c[0] for c in ON_DISK])
def test_every_bad_file_fails_the_import_with_escaped_lines(name, pointer, code):
    out = results.import_result("memory", (BAD / name).read_bytes(), PACKS["ar"])
    assert not out["ok"] and out["inputs"] == {} and out["errors"]
    assert out["problems"][0]["code"] == code
    assert_inert(out["html"])
    assert out["html"].count("<li>") == len(out["errors"])  # the page shows the panel, not the lines


def test_payload_strings_cover_the_brief():
    assert any("<script" in s for s in PAYLOAD_STRINGS) and any(s.startswith("javascript:") for s in PAYLOAD_STRINGS)


@pytest.mark.parametrize(
    "text",
    [
        "[" + "1.5," * 1_200_000 + "1]",  # millions of numbers where an object belongs
        '{"a":' * 900_000,  # nesting far past the limit
        '"' + '\\"' * 2_400_000 + '"',  # a string of escapes
    ],
    ids=["numbers", "nesting", "escapes"],
)
def test_files_near_the_size_limit_get_a_problem(text):
    _, problems = results.parse(text)
    assert problems


def test_a_valid_result_with_400_000_losses_is_accepted():
    data = json.loads((BAD.parent.parent.parent / "results" / "sample-cpu.json").read_text(encoding="utf-8"))
    data["losses"] = [1.0] * 400_000
    parsed, problems = results.parse(json.dumps(data))
    assert problems == [] and parsed["losses"][-1] == 1.0


@pytest.mark.parametrize(
    ("losses", "code"),
    [(["x"] * 200_000, "type"), ("[" + ",".join(["1e999"] * 200_000) + "]", "non_finite")],
)
def test_a_file_bad_in_every_item_names_the_first_and_counts_the_rest_exactly(losses, code):
    """Attack finding 5: every problem was built, encoded and sorted before the list was cut to 50 (28 s in
    Pyodide at 5 MB). Now the first ones are named, in file order, and the rest only counted."""
    head = {"schema_version": "1"}
    text = (
        json.dumps({**head, "losses": losses})
        if isinstance(losses, list)
        else (json.dumps(head)[:-1] + ', "losses": ' + losses + "}")
    )
    _, problems = results.parse(text)
    named = [p for p in problems if p["code"] == code]
    assert named and {p["pointer"] for p in named} <= {f"/losses/{i}" for i in range(50)}
    assert problems[-1]["code"] == "too_many" and len(problems) == 50
    found = 200_000 if code == "non_finite" else 200_000 + len([p for p in problems if p["code"] == "required"])
    assert problems[-1]["params"]["count"] == found - 49
