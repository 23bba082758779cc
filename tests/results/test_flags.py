"""The pilot's flags on the results page and in the cost import, in every locale; an efficiency above
100 % is shown as not trustworthy, never clamped into the calculator."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

import gpuguide.results as results
from calculators import NP_
from gpuguide.results import _flags
from guidekit.l10n import Localizer
from guidekit.l10n._escape import escape
from tests.conftest import locale_packs

from .corpus import load_good

LOCALES = Path(__file__).resolve().parents[2] / "locales"
PACKS = locale_packs()
SAMPLE, *_ = load_good()
SCALE = next(d for d in load_good() if d["kind"] == "scale")


def _flag(code, value, limit, subject="run", trustworthy=True, budget=None):
    return {
        "code": code,
        "subject": subject,
        "value": value,
        "limit": limit,
        "trustworthy": trustworthy,
        "message": f"{code} in English",
        "budget_steps": budget,
    }


def _flagged_run():
    data = copy.deepcopy(SAMPLE)
    data["flags"] = [
        _flag("step_cv", 0.73, 0.1),
        _flag("loss_growth", 3174603.2, 10.0),
        _flag("data_wait", 0.12, 0.05),
        _flag("data_pipeline", 0.11, 1.0),
        _flag("validation_share", 0.2, 0.05, budget=500),
        _flag("checkpoint_share", 0.08, 0.05, budget=500),
        _flag("loss_plateau", 13.0, 5.0),
        _flag("grad_norm_growth", 1234.5, 100.0),
    ]
    assert results.validate(data) == []
    return data


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (
            "es",
            [
                "Avisos",
                "Qué revisar",
                "varía un 73",
                "se multiplicó por 3.174.603,2",
                "La espera de datos ocupa el 12",
                "tus datos llegan al 11",
                "del tiempo de 500 pasos de entrenamiento",
                "Una escritura del punto de control ocupa el 8",
                "La pérdida no cambió en los últimos 13 pasos",
                "La norma del gradiente se multiplicó por 1.234,5",
            ],
        ),
        (
            "ja",
            [
                "注意点",
                "確認すべき点",
                "変動係数）が 73",
                "損失が 3,174,603.2 倍",
                "データ待ちがステップ時間の 12",
                "学習が消費する速度の 11",
                "学習 500 ステップ分",
                "チェックポイント書き込みに",
                "最後の 13 ステップの間、損失がまったく変わりませんでした",
                "勾配ノルムが最初のステップの 1,234.5 倍",
            ],
        ),
        (
            "ar",
            [
                "تنبيهات",
                "ما ينبغي مراجعته",
                "يتفاوت زمن الخطوة",
                "بلغت أعلى خسارة",
                "يستغرق انتظار البيانات",
                "من معدل استهلاك التدريب لها",
                "500 خطوة تدريب",
                "كتابة نقطة الحفظ الواحدة",
                "بقيت الخسارة ثابتة في آخر 13 خطوةً",
                "بلغ معيار التدرجات",
            ],
        ),
    ],
)
def test_each_flag_is_worded_in_the_readers_language(code, words):
    page = results.results_page([("flagged.json", _flagged_run())], PACKS[code])
    assert (
        page.count('<ul class="guide-results__flags">') == 1
        and page.count("<li>", page.index("guide-results__flags")) >= 8
    )
    for word in words:
        assert word in page, word
    assert "in English" not in page, "the English message is the terminal's"


def test_a_run_without_flags_lists_none():
    quiet = {**copy.deepcopy(SAMPLE), "flags": []}
    page = results.results_page([("sample.json", quiet)], PACKS["es"])
    assert "guide-results__flags" not in page and "Avisos" in page


@pytest.mark.parametrize("code", PACKS)
def test_the_shipped_sample_shows_the_flags_it_carries(code):
    """The labelled CPU sample (a shared 2-core machine) carries the flags its run raised; before, it
    was written without them and its page showed a 36 % step-time CV unflagged."""
    assert SAMPLE["flags"], "the shipped sample's run raised flags (tests/pilot/test_shipped_sample.py)"
    pack = PACKS[code]
    loc = Localizer(pack)
    t, fmt = loc.t, loc.fmt
    page = results.results_page([("sample-cpu.json", SAMPLE)], pack)
    listed = re.search(r'<ul class="guide-results__flags">(.*?)</ul>', page).group(1)
    assert re.findall(r"<li>(.*?)</li>", listed) == [escape(_flags.sentence(f, SAMPLE, loc)) for f in SAMPLE["flags"]]
    cv = next(f for f in SAMPLE["flags"] if f["code"] == "step_cv")
    assert fmt.percent_of(cv["value"]) in listed and cv["message"] not in page  # the terminal's English
    row = re.search(
        r"<tr><th scope=\"row\">" + re.escape(t(NP_("pilot run", "Flags"))) + r"</th><td>(.*?)</td></tr>", page
    )
    assert t(_flags.LABELS["step_cv"]) in row.group(1)


def _impossible_scale(flagged: bool):
    data = copy.deepcopy(SCALE)
    data["scaling"]["runs"] = [r for r in data["scaling"]["runs"] if r["strategy"] == "ddp"]
    data["scaling"]["runs"][0]["efficiency"] = 4.44
    if flagged:
        data["flags"] = [_flag("efficiency_above_one", 4.44, 1.0, subject="ddp", trustworthy=False)]
    assert results.validate(data) == []
    return data


@pytest.mark.parametrize("flagged", [True, False], ids=["flagged by the pilot", "written before flags"])
@pytest.mark.parametrize(
    ("code", "untrusted", "kept"),
    [
        ("es", "DDP × 2: no es fiable", "no es fiable en este archivo: se conserva su valor"),
        ("ja", "DDP × 2：信頼できません", "このファイルの値は信頼できないため、入力済みの値を使用"),
        ("ar", "DDP × 2: غير موثوق", "غير موثوقة في هذا الملف: أُبقيت قيمتك"),
    ],
)
def test_an_efficiency_above_100_percent_is_flagged_not_clamped(flagged, code, untrusted, kept):
    """Before: 444 % went into the cost calculator as 100 %, silently."""
    data = _impossible_scale(flagged)
    page = results.results_page([("scale.json", data)], PACKS[code])
    assert untrusted in page and "444" in page  # the sentence says what was measured; the cell says not to use it
    assert re.search(r"<td>(?:<bdi[^>]*>)?" + re.escape(untrusted) + "(?:</bdi>)?</td>", page), (
        "the flag stands alone in the cell, not the figure"
    )
    cost = results.import_result("cost", json.dumps(data), PACKS[code])
    assert cost["ok"] and "scaling_efficiency" not in cost["inputs"]
    assert kept in cost["html"] and "guide-import__flag" in cost["html"]


def test_an_unfinished_file_says_the_run_was_killed_or_still_running():
    data = copy.deepcopy(SAMPLE)
    data["outcome"] = {
        "status": "partial",
        "error": "unfinished: written while the run was in its training stage",
        "partial": {"reason": "unfinished", "stage": "training", "steps_done": 3},
    }
    assert results.validate(data) == []
    for code, words in (("es", "la detuvieron a la fuerza"), ("ja", "強制終了された"), ("ar", "أُوقف قسرًا")):
        assert words in results.results_page([("u.json", data)], PACKS[code])
