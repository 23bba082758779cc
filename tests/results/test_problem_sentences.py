"""Every problem of the result contract, as a reader sees it in each locale: one whole sentence per code.

Reviewed sentences (issue 35): a new code needs its sample in problem_samples.py and its sentence here in
every locale; a changed translation shows up as a difference to review. The English is what the pilot's
CLI prints and the build reports."""

from pathlib import Path

import pytest

from gpuguide.results import english, problem_message
from guidekit.l10n import Localizer
from guidekit.site.locale_pack import locale_pack
from pilot.result import PROBLEM_CODES

from .problem_samples import SAMPLES

LOCALES_DIR = Path(__file__).resolve().parents[2] / "locales"
REVIEWED = {
    "en": {
        "type": "/timing/steps: expected a whole number or null, found text",
        "required": "the file as a whole: expected property 'timing'",
        "additionalProperties": "/memory/extra: expected no property named 'extra'",
        "const": '/kind: expected the value "pilot"',
        "enum": "/device: expected one of: cpu, cuda, or rocm",
        "minimum": "/memory/peak_tensor_bytes: expected a number ≥ 0, found -1",
        "maximum": "/scale/efficiency: expected a number ≤ 1.5, found 2.25",
        "exclusiveMaximum": "/train/lora_dropout: expected a number < 1, found 1",
        "maxLength": "/notes: expected text of at most 2,000 characters",
        "pattern": "/config_hash: expected text matching ^[0-9a-f]{64}$",
        "format": "/started_at: expected a date and time such as 2026-01-31T12:00:00Z",
        "minItems": "/timing/step_seconds: expected at least 1 item",
        "maxItems": "/flags: expected at most 3 items",
        "uniqueItems": "/flags: expected items that are all different",
        "maxProperties": "/env: expected at most 64 properties",
        "false": "/timing: expected nothing here",
        "too_large": "the file as a whole: expected a file of at most 1,048,576 bytes, found 2,500,000",
        "empty": "the file as a whole: expected a JSON document",
        "bom": "the file as a whole: expected UTF-8 text without a byte order mark",
        "encoding": "the file as a whole: expected UTF-8 text (invalid byte at offset 17)",
        "json_syntax": "the file as a whole: expected valid JSON (error at line 3, column 14)",
        "non_finite": "/memory/peak_tensor_bytes: expected a finite number, not NaN",
        "surrogate": "/notes: expected text without a lone surrogate escape (\\ud800–\\udfff)",
        "too_deep": "the file as a whole: expected at most 64 levels of nesting",
        "schema_version": '/schema_version: expected schema version 1, found "2"',
        "too_many": "the file as a whole: expected fewer problems (12 more not listed)",
    },
    "es": {
        "type": "/timing/steps: se esperaba un número entero o null y se encontró texto",
        "required": "el archivo en conjunto: falta la propiedad «timing»",
        "additionalProperties": "/memory/extra: el esquema no admite una propiedad llamada «extra»",
        "const": '/kind: el valor debe ser "pilot"',
        "enum": "/device: el valor debe ser uno de estos: cpu, cuda o rocm",
        "minimum": "/memory/peak_tensor_bytes: se esperaba un número ≥ 0 y se encontró -1",
        "maximum": "/scale/efficiency: se esperaba un número ≤ 1,5 y se encontró 2,25",
        "exclusiveMaximum": "/train/lora_dropout: se esperaba un número menor que 1 y se encontró 1",
        "maxLength": "/notes: el texto puede tener como máximo 2.000 caracteres",
        "pattern": "/config_hash: el texto no cumple el patrón ^[0-9a-f]{64}$",
        "format": "/started_at: se esperaba una fecha y hora como 2026-01-31T12:00:00Z",
        "minItems": "/timing/step_seconds: la lista necesita al menos 1 elemento",
        "maxItems": "/flags: la lista admite como máximo 3 elementos",
        "uniqueItems": "/flags: los elementos de la lista deben ser todos distintos",
        "maxProperties": "/env: se admiten como máximo 64 propiedades",
        "false": "/timing: aquí no debería haber ningún valor",
        "too_large": "el archivo en conjunto: el archivo ocupa 2.500.000 bytes y el máximo es 1.048.576 bytes",
        "empty": "el archivo en conjunto: el archivo está vacío; se esperaba un documento JSON",
        "bom": "el archivo en conjunto: se esperaba texto UTF-8 sin marca de orden de bytes",
        "encoding": "el archivo en conjunto: el texto no es UTF-8 válido (byte no válido en la posición 17)",
        "json_syntax": "el archivo en conjunto: el JSON no es válido (error en la línea 3, columna 14)",
        "non_finite": "/memory/peak_tensor_bytes: se esperaba un número finito, no NaN",
        "surrogate": "/notes: el texto contiene un escape suplente aislado (\\ud800–\\udfff)",
        "too_deep": "el archivo en conjunto: se admiten como máximo 64 niveles de anidamiento",
        "schema_version": '/schema_version: se esperaba la versión 1 del esquema y se encontró "2"',
        "too_many": "el archivo en conjunto: hay 12 problemas más que no se listan",
    },
    "ja": {
        "type": "/timing/steps：値の型は「整数／null」である必要がありますが、「テキスト」です",
        "required": "ファイル全体：プロパティ「timing」がありません",
        "additionalProperties": "/memory/extra：「extra」というプロパティは使えません",
        "const": '/kind：値は "pilot" である必要があります',
        "enum": "/device：値は cpu、cuda、または rocm のいずれかである必要があります",
        "minimum": "/memory/peak_tensor_bytes：0 以上の数値が必要ですが、-1 です",
        "maximum": "/scale/efficiency：1.5 以下の数値が必要ですが、2.25 です",
        "exclusiveMaximum": "/train/lora_dropout：1 未満の数値が必要ですが、1 です",
        "maxLength": "/notes：テキストが長すぎます（上限は 2,000 文字）",
        "pattern": "/config_hash：テキストが ^[0-9a-f]{64}$ に一致しません",
        "format": "/started_at：2026-01-31T12:00:00Z のような日時が必要です",
        "minItems": "/timing/step_seconds：要素が足りません（1 個以上必要）",
        "maxItems": "/flags：要素が多すぎます（上限は 3 個）",
        "uniqueItems": "/flags：要素はすべて異なる必要があります",
        "maxProperties": "/env：プロパティが多すぎます（上限は 64 個）",
        "false": "/timing：ここには値を置けません",
        "too_large": "ファイル全体：ファイルが大きすぎます（2,500,000 バイト、上限は 1,048,576 バイト）",
        "empty": "ファイル全体：ファイルが空です。JSON 文書が必要です",
        "bom": "ファイル全体：バイト順マークのない UTF-8 テキストが必要です",
        "encoding": "ファイル全体：UTF-8 として読めません（オフセット 17 に不正なバイト）",
        "json_syntax": "ファイル全体：JSON として正しくありません（3 行 14 列目でエラー）",
        "non_finite": "/memory/peak_tensor_bytes：有限の数値が必要ですが、NaN です",
        "surrogate": "/notes：対になっていないサロゲートのエスケープ（\\ud800–\\udfff）が含まれています",
        "too_deep": "ファイル全体：入れ子が深すぎます（上限は 64 段）",
        "schema_version": '/schema_version：スキーマバージョン 1 が必要ですが、"2" です',
        "too_many": "ファイル全体：ほかに 12 件の問題があります（一覧には載せていません）",
    },
    "ar": {
        "type": "/timing/steps: نوع القيمة المتوقَّع عدد صحيح أو null، والموجود نص",
        "required": "الملف بأكمله: الخاصية «timing» مفقودة",
        "additionalProperties": "/memory/extra: لا يُسمح بخاصية باسم «extra»",
        "const": '/kind: يجب أن تكون القيمة "pilot"',
        "enum": "/device: يجب أن تكون القيمة واحدة مما يلي: cpu أو cuda أو rocm",
        "minimum": "/memory/peak_tensor_bytes: يجب أن يكون العدد ≥ 0، لكنه -1",
        "maximum": "/scale/efficiency: يجب أن يكون العدد ≤ 1.5، لكنه 2.25",
        "exclusiveMaximum": "/train/lora_dropout: يجب أن يكون العدد أصغر من 1، لكنه 1",
        "maxLength": "/notes: يجب ألا يتجاوز النص 2,000 حرف",
        "pattern": "/config_hash: النص لا يطابق النمط ^[0-9a-f]{64}$",
        "format": "/started_at: المتوقَّع تاريخ ووقت مثل 2026-01-31T12:00:00Z",
        "minItems": "/timing/step_seconds: يجب أن تضم القائمة عنصرًا واحدًا على الأقل",
        "maxItems": "/flags: يجب ألا تضم القائمة أكثر من 3 عناصر",
        "uniqueItems": "/flags: يجب أن تكون عناصر القائمة مختلفة كلها",
        "maxProperties": "/env: يجب ألا يضم الكائن أكثر من 64 خاصيةً",
        "false": "/timing: يجب ألا يوجد شيء هنا",
        "too_large": "الملف بأكمله: الملف أكبر من الحد (2,500,000 من البايتات، والحد الأقصى 1,048,576 بايتًا)",
        "empty": "الملف بأكمله: الملف فارغ، والمتوقَّع مستند JSON",
        "bom": "الملف بأكمله: المتوقَّع نص UTF-8 بلا علامة ترتيب البايتات",
        "encoding": "الملف بأكمله: النص ليس UTF-8 صالحًا (بايت غير صالح عند الإزاحة 17)",
        "json_syntax": "الملف بأكمله: هذا ليس JSON صالحًا (خطأ في السطر 3، العمود 14)",
        "non_finite": "/memory/peak_tensor_bytes: المتوقَّع عدد منتهٍ، لا NaN",
        "surrogate": "/notes: يحوي النص تسلسل هروب بديلًا منفردًا (\\ud800–\\udfff)",
        "too_deep": "الملف بأكمله: التداخل أعمق من الحد (64 مستوًى على الأكثر)",
        "schema_version": '/schema_version: المتوقَّع إصدار المخطط 1، والموجود "2"',
        "too_many": "الملف بأكمله: توجد 12 مشكلةً أخرى لم تُدرج",
    },
}


def test_every_code_has_a_sample_and_a_reviewed_sentence_in_every_locale():
    assert set(SAMPLES) == set(PROBLEM_CODES)
    assert all(set(sentences) == set(PROBLEM_CODES) for sentences in REVIEWED.values())


@pytest.mark.parametrize("locale", sorted(REVIEWED))
def test_every_code_renders_the_reviewed_sentence(locale):
    if locale == "en":
        shown = {code: english({"pointer": p, "code": code, "params": params}) for code, (p, params) in SAMPLES.items()}
    else:
        pack = locale_pack(locale, LOCALES_DIR)
        loc = Localizer(pack)
        shown = {
            code: problem_message({"pointer": p, "code": code, "params": params}, loc)
            for code, (p, params) in SAMPLES.items()
        }
    assert shown == REVIEWED[locale]


@pytest.mark.parametrize("locale", ["es", "ja", "ar"])
def test_the_html_sentence_isolates_what_came_from_the_file(locale):
    pack = locale_pack(locale, LOCALES_DIR)
    html = problem_message(
        {"pointer": "/memory/peak_tensor_bytes", "code": "minimum", "params": {"limit": 0, "found": -1}},
        Localizer(pack),
        html=True,
    )
    assert "<bdi>/memory/peak_tensor_bytes</bdi>" in html and "<bdi>-1</bdi>" in html and "{" not in html


def test_a_code_from_a_newer_contract_is_named_not_dropped():
    assert english({"pointer": "/x", "code": "maxContains", "params": {"limit": 2}}) == "/x: problem maxContains"
