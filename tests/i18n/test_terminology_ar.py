"""The Arabic terminology file catches the slips reviewers found, and leaves the legitimate look-alikes alone.

Matching is by substring, so each rejected variant must be narrow: معامل is a coefficient (CV is معامل
الاختلاف) and only some phrases with it mean a parameter; تتسع لها الخطة ("the plan has room for them") is
correct Arabic. A too-broad entry would flag good text, and a preferred form inside a rejected one would
hide the slip (the percent entry cannot prefer a bare "%").
"""

from __future__ import annotations

import pytest

from guidekit.i18n import terminology

from .conftest import ROOT

TERMS = terminology.load(ROOT / "locales" / "ar" / terminology.FILE_NAME)


def flagged(text: str) -> list[str]:
    return [problem.message for problem in terminology.page_problems("ar", "page.md", text, TERMS)]


@pytest.mark.parametrize(
    "slip",
    [
        "قِس تجربة تجريبية على GPU واحدة",
        "يتوقف على حجم الدفعة الفعلي نفسه",
        "لا تُدرَّب إلا محوّلات LoRA",
        "هذا هو الرقم الذي يُدخَل في حاسبة التكلفة",
        "تتطابق معاملات النموذج بتًا ببت",
        "إذا تجاوز CV نسبة 10 %",
        'كفاءة <span class="guide-num">85 %</span>',
        "نسبة 10٪",
        "تباين زمن الخطوة",
        "ذروة ذاكرة الموتّرات",
        "خطوة كاملة للمحسِّن",
        "أي دفعة صغرى تتسع",
    ],
)
def test_a_reviewed_slip_is_flagged(slip):
    assert flagged(slip), slip


@pytest.mark.parametrize(
    "good",
    [
        "قِس تشغيلًا تجريبيًا على GPU واحدة، ثم اقرأ صفحة التشغيل التجريبي",
        "مع حجم الدفعة الفعّال نفسه، وذاكرة الجهاز الفعلية",
        "ولا يضيف المُهايئ إلا القليل؛ وتبقى معمارية Transformer باسمها",
        "الكلفة لكل نتيجة ناجحة",
        "معاملًا بصيغة fp32 لكل رمز، و`CV` هو معامل الاختلاف، وعدد المعلمات",
        'إذا زاد `CV` على 10% أو كانت الكفاءة <span class="guide-num">30–40%</span>',
        "النتائج التي تتسع لها الخطة",
        "حالة المُحسِّن، ونسخة محسّنة من النواة",
    ],
)
def test_legitimate_text_is_not_flagged(good):
    assert flagged(good) == [], good
