"""Every field error of the calculators, as a reader sees it in each locale: one whole sentence per code.

Reviewed sentences (issue 35): a new code needs its sample in error_samples.py and its sentence here in every
locale; a changed translation shows up as a difference to review. The English is what the CLI prints."""

import pytest

from calculators import ERROR_CODES
from guidekit.l10n import Localizer
from guidekit.render._render import error_message
from tests.conftest import locale_packs

from .error_samples import SAMPLES

REVIEWED = {
    "en": {
        "required": "This field is required.",
        "not_a_number": "Enter a number.",
        "not_an_integer": "Enter a whole number.",
        "not_a_boolean": "Enter yes or no.",
        "not_an_object": "The inputs must be an object of field names and values.",
        "out_of_range": "Enter a value from 0 to 0.9.",
        "unknown_choice": "Choose one of: bf16, fp16, or fp32.",
        "unknown_field": "This field is not an input of this calculator.",
        "unknown_calculator": "There is no calculator with this name; known: cost or memory.",
        "heads_not_divisible": "The hidden size must be divisible by the number of attention heads.",
        "kv_heads_not_divisor": "The number of KV heads must divide the number of attention heads.",
        "single_gpu_only": "A single-GPU run uses exactly one GPU.",
        "offload_needs_fsdp": "Offloading the parameters needs FSDP / ZeRO-3 parallelism.",
        "fused_target_partial": "This model fuses gate_up_proj and down_proj into one layer: choose all of them or none.",
        "lora_rank_too_high": "The LoRA rank can be at most 512 here, the smaller side of k_proj, the smallest adapted layer: a higher rank adds parameters without adding rank.",
        "experts_per_token_too_many": "A token cannot be routed to more experts than the 8 there are.",
        "expert_lora_dropout": "peft cannot apply LoRA dropout to the routed experts: set the dropout to 0, or leave gate, up and down out of the targets.",
        "gpu_not_offered": "At your prices, H100 SXM 80 GB is not offered on any term or by the hour: give one of its prices, or choose another GPU.",
        "term_not_offered": "At your prices, H100 SXM 80 GB is not offered for this term: give its price, or choose another term.",
        "config_not_json": "This is not a config.json: the file is not a JSON object.",
        "config_too_large": "The file is larger than a config.json can be (1,048,576 bytes at most).",
        "config_missing_key": "The config.json has no valid hidden_size.",
        "config_not_count": "In the config.json, num_key_value_heads must be a whole number of 1 or more, not 0.",
        "config_not_boolean": 'In the config.json, tie_word_embeddings must be true or false, not "no".',
        "config_huge_number": "In the config.json, vocab_size holds a number too large to read: 1e400.",
        "config_too_deep": "The file nests deeper than a config.json can (32 levels at most).",
        "config_unsupported_value": 'In the config.json, hidden_act is "relu2": a layout the memory model does not describe.',
        "unsupported_model_type": "Model type mamba is not supported; supported: Llama (llama), Qwen3 (qwen3), Gemma 3 (gemma3_text), or Mixtral (mixtral). To size it anyway, trace one training step of this config.json on your own computer, without a GPU: gpu-pilot trace --model-config config.json.",
    },
    "es": {
        "required": "Este campo es obligatorio.",
        "not_a_number": "Introduce un número.",
        "not_an_integer": "Introduce un número entero.",
        "not_a_boolean": "Indica sí o no.",
        "not_an_object": "Las entradas deben ser un objeto con nombres de campo y sus valores.",
        "out_of_range": "Introduce un valor entre 0 y 0,9.",
        "unknown_choice": "Elige una de estas opciones: bf16, fp16 o fp32.",
        "unknown_field": "Este campo no es una entrada de esta calculadora.",
        "unknown_calculator": "No hay ninguna calculadora con ese nombre; las disponibles son: cost o memory.",
        "heads_not_divisible": "La dimensión oculta debe ser divisible entre el número de cabezas de atención.",
        "kv_heads_not_divisor": "El número de cabezas de atención debe ser divisible entre el de cabezas KV.",
        "single_gpu_only": "Una ejecución en una sola GPU usa exactamente una GPU.",
        "offload_needs_fsdp": "Descargar los parámetros exige el paralelismo FSDP / ZeRO-3.",
        "fused_target_partial": "Este modelo junta gate_up_proj y down_proj en una sola capa: elige todos esos módulos o ninguno.",
        "lora_rank_too_high": "Aquí el rango LoRA puede ser como mucho 512, el lado menor de k_proj, la capa adaptada más pequeña: un rango mayor añade parámetros sin añadir rango.",
        "experts_per_token_too_many": "Un token no puede enrutarse a más expertos de los 8 que hay.",
        "expert_lora_dropout": "peft no puede aplicar el dropout de LoRA a los expertos enrutados: pon el dropout a 0 o quita gate, up y down de los módulos objetivo.",
        "gpu_not_offered": "Con tus precios, H100 SXM 80 GB no se ofrece en ningún plazo ni por horas: indica alguno de sus precios o elige otra GPU.",
        "term_not_offered": "Con tus precios, H100 SXM 80 GB no se ofrece en este plazo: indica su precio o elige otro plazo.",
        "config_not_json": "Esto no es un config.json: el archivo no es un objeto JSON.",
        "config_too_large": "El archivo es más grande de lo que puede ser un config.json (1.048.576 bytes como máximo).",
        "config_missing_key": "El config.json no tiene un hidden_size válido.",
        "config_not_count": "En el config.json, num_key_value_heads debe ser un número entero mayor o igual que 1, no 0.",
        "config_not_boolean": 'En el config.json, tie_word_embeddings debe ser true o false, no "no".',
        "config_huge_number": "En el config.json, vocab_size tiene un número demasiado grande para leerlo: 1e400.",
        "config_too_deep": "El archivo anida más niveles de los que puede tener un config.json (32 como máximo).",
        "config_unsupported_value": 'En el config.json, hidden_act vale "relu2": una disposición que el modelo de memoria no describe.',
        "unsupported_model_type": "El tipo de modelo mamba no es compatible; se admiten: Llama (llama), Qwen3 (qwen3), Gemma 3 (gemma3_text) o Mixtral (mixtral). Para dimensionarlo de todos modos, traza un paso de entrenamiento de este config.json en tu propio ordenador, sin GPU: gpu-pilot trace --model-config config.json.",
    },
    "ja": {
        "required": "この項目は必須です。",
        "not_a_number": "数値を入力してください。",
        "not_an_integer": "整数を入力してください。",
        "not_a_boolean": "「はい」か「いいえ」を入力してください。",
        "not_an_object": "入力は、フィールド名と値からなるオブジェクトである必要があります。",
        "out_of_range": "0〜0.9 の値を入力してください。",
        "unknown_choice": "次のいずれかを選んでください：bf16、fp16、または fp32。",
        "unknown_field": "この項目はこの計算機の入力ではありません。",
        "unknown_calculator": "この名前の計算機はありません。利用できるもの：cost または memory。",
        "heads_not_divisible": "隠れ次元はアテンションヘッド数で割り切れる必要があります。",
        "kv_heads_not_divisor": "アテンションヘッド数は KV ヘッド数で割り切れる必要があります。",
        "single_gpu_only": "並列化で「1 GPU」を選んだ場合は、GPU 枚数を 1 にしてください。",
        "offload_needs_fsdp": "パラメータをオフロードするには、FSDP／ZeRO-3 による並列化が必要です。",
        "fused_target_partial": "このモデルは gate_up_proj、down_proj を 1 つの層にまとめています。すべて選ぶか、どれも選ばないでください。",
        "lora_rank_too_high": "ここでの LoRA のランクは最大 512 です。これはアダプタを適用する層のうち最小の k_proj の短い辺の長さで、これより大きいランクはランクを増やさずにパラメータだけを増やします。",
        "experts_per_token_too_many": "1 つのトークンを、存在する 8 個より多くのエキスパートに割り当てることはできません。",
        "expert_lora_dropout": "peft はルーティングされるエキスパートに LoRA のドロップアウトを適用できません。ドロップアウトを 0 にするか、gate、up、down を対象モジュールから外してください。",
        "gpu_not_offered": "入力した価格では、H100 SXM 80 GB はどの期間でも時間課金でも借りられません。いずれかの価格を入力するか、別の GPU を選んでください。",
        "term_not_offered": "入力した価格では、H100 SXM 80 GB はこの期間では借りられません。この期間の価格を入力するか、別の期間を選んでください。",
        "config_not_json": "config.json ではありません。ファイルが JSON オブジェクトになっていません。",
        "config_too_large": "config.json としては大きすぎるファイルです（上限は 1,048,576 バイト）。",
        "config_missing_key": "config.json に有効な hidden_size がありません。",
        "config_not_count": "config.json の num_key_value_heads は 1 以上の整数でなければなりません（0 は使えません）。",
        "config_not_boolean": 'config.json の tie_word_embeddings は true か false でなければなりません（"no" は使えません）。',
        "config_huge_number": "config.json の vocab_size の数値が大きすぎて読み取れません：1e400。",
        "config_too_deep": "config.json としては入れ子が深すぎるファイルです（上限は 32 段）。",
        "config_unsupported_value": 'config.json の hidden_act が "relu2" になっています。メモリモデルが扱っていない構成です。',
        "unsupported_model_type": "モデルの種類 mamba には対応していません。対応している種類：Llama (llama)、Qwen3 (qwen3)、Gemma 3 (gemma3_text)、または Mixtral (mixtral)。それでもメモリを見積もるには、この config.json の学習ステップ 1 回を、GPU なしで手元のコンピュータ上でトレースしてください：gpu-pilot trace --model-config config.json",
    },
    "ar": {
        "required": "هذا الحقل مطلوب.",
        "not_a_number": "أدخل عددًا.",
        "not_an_integer": "أدخل عددًا صحيحًا.",
        "not_a_boolean": "أدخل «نعم» أو «لا».",
        "not_an_object": "يجب أن تكون المدخلات كائنًا من أسماء الحقول وقيمها.",
        "out_of_range": "أدخل قيمة من 0 إلى 0.9.",
        "unknown_choice": "اختر واحدًا مما يلي: bf16 أو fp16 أو fp32.",
        "unknown_field": "هذا الحقل ليس من مدخلات هذه الحاسبة.",
        "unknown_calculator": "لا توجد حاسبة بهذا الاسم؛ المتاح منها: cost أو memory.",
        "heads_not_divisible": "يجب أن يقبل البعد المخفي القسمة على عدد رؤوس الانتباه.",
        "kv_heads_not_divisor": "يجب أن يقبل عدد رؤوس الانتباه القسمة على عدد رؤوس KV.",
        "single_gpu_only": "التشغيل على وحدة GPU واحدة يستخدم وحدة GPU واحدة بالضبط.",
        "offload_needs_fsdp": "يتطلب تفريغ المعلمات توازي FSDP / ZeRO-3.",
        "fused_target_partial": "يجمع هذا النموذج gate_up_proj وdown_proj في طبقة واحدة: اختر جميعها أو لا تختر أيًّا منها.",
        "lora_rank_too_high": "لا يمكن أن تتجاوز رتبة LoRA هنا 512، وهو البُعد الأصغر للطبقة k_proj، أصغر الطبقات المزوّدة بمُهايئ: الرتبة الأعلى تضيف معلمات دون أن تزيد الرتبة.",
        "experts_per_token_too_many": "لا يمكن توجيه الرمز إلى خبراء أكثر من الموجودين، وعددهم 8.",
        "expert_lora_dropout": "لا يستطيع peft تطبيق dropout في LoRA على الخبراء الموجَّهين: اجعل dropout يساوي 0، أو أخرِج gate وup وdown من الوحدات المستهدفة.",
        "gpu_not_offered": "وفق أسعارك، لا تُؤجَّر H100 SXM 80 GB لأي مدة ولا بالساعة: أدخِل أحد أسعارها أو اختر وحدة GPU أخرى.",
        "term_not_offered": "وفق أسعارك، لا تُؤجَّر H100 SXM 80 GB لهذه المدة: أدخِل سعرها أو اختر مدة أخرى.",
        "config_not_json": "هذا ليس ملف config.json: الملف ليس كائن JSON.",
        "config_too_large": "الملف أكبر مما يمكن أن يكون عليه ملف config.json (الحد الأقصى 1,048,576 من البايتات).",
        "config_missing_key": "لا يحتوي ملف config.json على قيمة صالحة لـ hidden_size.",
        "config_not_count": "في ملف config.json، يجب أن يكون num_key_value_heads عددًا صحيحًا لا يقل عن 1، وليس 0.",
        "config_not_boolean": 'في ملف config.json، يجب أن تكون قيمة tie_word_embeddings إما true أو false، وليس "no".',
        "config_huge_number": "في ملف config.json، يحمل vocab_size عددًا أكبر من أن يُقرأ: 1e400.",
        "config_too_deep": "تداخل الملف أعمق مما يمكن أن يكون عليه ملف config.json (الحد الأقصى 32 من مستويات التداخل).",
        "config_unsupported_value": 'في ملف config.json، قيمة hidden_act هي "relu2": وهذا تركيب لا يصفه نموذج الذاكرة.',
        "unsupported_model_type": "نوع النموذج mamba غير مدعوم؛ الأنواع المدعومة: Llama (llama) أو Qwen3 (qwen3) أو Gemma 3 (gemma3_text) أو Mixtral (mixtral). ولتقدير ذاكرته رغم ذلك، تتبّع خطوة تدريب واحدة لملف config.json هذا على حاسوبك، من دون GPU: \u200fgpu-pilot trace --model-config config.json.",
    },
}


def test_every_code_has_a_sample_and_a_reviewed_sentence_in_every_locale():
    assert set(SAMPLES) == set(ERROR_CODES)
    assert all(set(sentences) == set(ERROR_CODES) for sentences in REVIEWED.values())


@pytest.mark.parametrize("locale", sorted(REVIEWED))
def test_every_code_renders_the_reviewed_sentence(locale):
    if locale == "en":
        loc = Localizer.english()
    else:
        pack = locale_packs()[locale]
        loc = Localizer(pack)
    shown = {code: error_message({**error, "code": code}, loc) for code, error in SAMPLES.items()}
    assert shown == REVIEWED[locale]
