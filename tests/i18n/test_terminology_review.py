"""The 2026-12-05 language reviews' slips, each caught by its locale's terminology file (issue 54): the
sentences the reviewers quoted come back as a problem, and the fixed wording passes."""

from __future__ import annotations

import pytest

from guidekit.i18n import terminology

from .conftest import ROOT

TERMS = {locale: terminology.load(ROOT / "locales" / locale / terminology.FILE_NAME) for locale in ("ja", "ar")}


def flagged(locale: str, text: str) -> list[str]:
    return [problem.message for problem in terminology.page_problems(locale, "page.md", text, TERMS[locale])]


SLIPS = [
    ("ja", "予備を除いて使えるのは 72 GB です。"),  # T1
    ("ja", "時間課金での成果あたりのコスト"),  # T4
    ("ja", "ライブ計算機を起動しています…"),  # U23
    ("ja", "ご自身の価格（1 カード時間あたり、US$）"),  # U24
    ("ja", "6 回の実行からなるパラメータ探索なら 6 件です。"),  # M8
    ("ja", "実寸の学習 1 ステップ"),  # U9
    ("ja", "スループットの範囲のどこに来るか"),  # T3
    ("ja", "スループットの遅い端で予約します。"),  # T3
    ("ja", "この故障率では、実行が終わる見込みはありません。"),  # T5
    ("ja", "実測（GPU あたり tokens/s）"),  # T10
    ("ja", "公開された測定に合わせた割合"),  # T17
    ("ja", "把握しているその他の一時領域は、自分で値を追加できます。"),  # T11
    ("ja", "見積もりどおりのスループットでは"),  # T2
    ("ja", "これは適応する層のうち最小の層"),  # U26
    ("ja", "3 事業者が公開している価格"),  # U27
    ("ja", "{count} × {term}"),  # U16
    ("ja", "{hours} 余ります。"),  # Y1, in a UI string
    ("ja", "オフ: 常に再計算します。"),  # Y3
    ("ja", "q・k・v の射影"),  # Y6
    ("ja", "同じ bf16 学習を測った公開の測定では"),  # T14
    ("ar", "وقد لا تطابق ما في النموذج."),  # #4
    ("ar", "حتى إن اخترت بعد ذلك GPU أخرى في النموذج"),  # #3
    ("ar", "ضمن نطاق الإنتاجية"),  # #44
    ("ar", "يُجرى إلغاء التكميم قبل كل تمرير"),  # #52
    ("ar", "مولّدات الأرقام العشوائية"),  # #46
    ("ar", "انخفاض تردد المعالج"),  # #7
    ("ar", "tokens/s لكل GPU"),  # #56
    ("ar", "ذروة bf16 الكثيفة"),  # #45
    ("ar", "الصفوف ذات الأربعة بت"),  # #62
    ("ar", "دفعة مصغّرة من 4"),  # #40
    ("ar", "أكثر من {limit} أضعاف"),  # #72's kind
]


@pytest.mark.parametrize("locale, slip", SLIPS, ids=[f"{locale}-{i}" for i, (locale, _) in enumerate(SLIPS)])
def test_each_reviewed_slip_is_caught(locale, slip):
    assert flagged(locale, slip), slip


@pytest.mark.parametrize(
    "locale, fixed",
    [
        ("ja", "余裕を除いて使えるのは 72 GB です。予備の GPU は別に用意します。"),
        ("ja", "時間課金での成果 1 件あたりのコスト、{term} × {count}、{hours}余ります。"),
        ("ja", "オフ：常に再計算します。q、k、v の射影。3 社が公開している価格。"),
        ("ja", "スループットの幅の下限で予約します。この障害率では終わりません。"),
        ("ar", "وقد لا تطابق ما في الاستمارة، ضمن مجال الإنتاجية، انخفاض تردد البطاقة."),
        ("ar", "دفعة مصغّرة حجمها 4، وتردد المعالج المركزي، و{count} مرات."),
    ],
)
def test_the_fixed_wording_passes(locale, fixed):
    assert flagged(locale, fixed) == [], fixed
