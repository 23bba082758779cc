"""The results page, the inputs a run implies and the import panel, on valid results."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import calculators
import gpuguide.results as results
from calculators import pilot_inputs
from calculators.pilot_inputs import TENSORS_ONLY, tensor_peak
from guidekit.l10n import Localizer, Translator
from guidekit.render._figures import figure
from tests.conftest import locale_packs

from .corpus import GOOD, corpus, load_good

LOCALES = Path(__file__).resolve().parents[2] / "locales"
PACKS = locale_packs()
RUNS = [(p.name, d) for p, d in zip(GOOD, load_good())]
SAMPLE, SCALE, GPU, TRACE = (
    dict(RUNS)[name] for name in ("sample-cpu.json", "scale-gloo.json", "gpu-lora.json", "trace-llama-3.2-1b-lora.json")
)


@pytest.mark.parametrize("code", PACKS)
def test_page_lists_every_run_with_its_sections_and_charts(code):
    page = results.results_page(RUNS, PACKS[code])
    assert page == results.results_page(RUNS, PACKS[code])  # deterministic
    for name, _data in RUNS:
        assert f"<code><bdi>{name}</bdi></code>" in page
    assert page.count('<section class="guide-results__run"') == len(RUNS)
    assert page.count("guide-badge--cpu") == 2  # the CPU sample and the CPU scaling fixture, not the GPU one
    assert page.count("<svg") >= 3 * len(RUNS)
    assert "<bdi" in page or PACKS[code]["dir"] == "ltr"


def test_page_numbers_follow_the_locale():
    es = results.results_page(RUNS[:1], PACKS["es"])
    assert "0,18" in es  # 178,062,540 bytes as decimal GB with a comma
    assert "6.965.504" in es  # parameters grouped with periods


def test_page_of_no_runs_says_so():
    assert "guide-results__empty" in results.results_page([], PACKS["ja"])


def test_memory_estimate_is_the_calculator_on_the_recorded_configuration():
    # The tensor-only peak the pilot compares with (calculators.pilot_inputs), for the recorded run.
    answer = tensor_peak(SAMPLE["config"], SAMPLE["environment"]["device_type"])
    assert (
        answer["inputs"]
        == calculators.compute("memory", {**pilot_inputs.memory_inputs(SAMPLE["config"], "cpu"), **TENSORS_ONLY})[
            "inputs"
        ]
    )
    out = results.import_result("memory", json.dumps(SAMPLE), PACKS["es"])
    shown = figure(answer["estimated_bytes"], "bytes", Localizer(PACKS["es"]))
    assert out["ok"] and shown in out["summary"]


@pytest.mark.parametrize("name", ["memory", "cost"])
def test_to_inputs_gives_only_declared_inputs_the_calculator_accepts(name):
    declared = {i["name"] for i in calculators.describe(name)["inputs"]}
    for _, data in RUNS:
        inputs = results.to_inputs(data, name)
        assert set(inputs) <= declared and calculators.compute(name, inputs)["ok"]
        assert set(pilot_inputs.result_inputs(data)) <= pilot_inputs.FILLED


def test_memory_inputs_mirror_the_run_configuration():
    inputs = results.to_inputs(SAMPLE, "memory")
    train, model = SAMPLE["config"]["train"], SAMPLE["config"]["model"]
    assert inputs["model"] == "custom" and inputs["layers"] == model["layers"] and inputs["hidden"] == model["hidden"]
    assert (inputs["method"], inputs["seq_len"], inputs["micro_batch"]) == (
        train["method"],
        train["seq_len"],
        train["micro_batch"],
    )
    # The pilot's bf16 means autocast; weights and adapters keep the dtype the run used.
    assert inputs["autocast"] == ("bf16" if train["precision"] == "bf16" else "off")
    assert inputs["weights_dtype"] == model.get("dtype", "fp32") and inputs["master_weights"] is False
    assert (inputs["parallelism"], inputs["gpus"]) == ("single", 1)
    scale = results.to_inputs(SCALE, "memory")
    assert (scale["parallelism"], scale["gpus"], scale["micro_batch"]) == ("ddp", 2, 2)


def _on_gpu(data: dict, name: str = "NVIDIA H100 80GB HBM3") -> dict:
    data = json.loads(json.dumps(data))
    data["environment"].update(device_type="cuda", device_name=name)
    return data


def test_cost_takes_what_a_gpu_run_measured_for_its_own_card_only():
    gpu = results.to_inputs(GPU, "cost")
    assert gpu["gpu"] == "h200-141gb" and gpu["memory_per_gpu_gb"] == 68.5  # the whole device's peak
    assert gpu["measured_h200-141gb"] == round(GPU["timing"]["tokens_per_s"], 2)
    # The chosen card's own field: a measurement never moves to another card the reader then chooses.
    assert "throughput_per_gpu" not in gpu
    assert not {k for k, v in gpu.items() if k.startswith("measured_") and v} - {"measured_h200-141gb"}
    assert gpu["measurement_cards"] == 1  # one process's figure: the calculator scales it to other card counts
    # The interruption model takes the pilot's checkpoint write and fresh-process restore times.
    assert gpu["checkpoint_write_s"] == round(GPU["checkpoint"]["write_s"], 3)
    scale = results.to_inputs(_on_gpu(SCALE), "cost")
    assert scale["measured_h100-sxm-80gb"] == SCALE["scaling"]["baseline"]["tokens_per_s"]
    assert scale["scaling_efficiency"] == 0.8333  # DDP on 2: the most processes, best efficiency
    panel = results.import_result("cost", json.dumps(GPU), PACKS["es"])
    assert "H200 SXM 141 GB" in panel["html"] and "68,5" in panel["html"]
    assert "H200 SXM 141 GB" in panel["summary"] and "2026" in panel["summary"]


@pytest.mark.parametrize("data", [SAMPLE, SCALE, TRACE], ids=["cpu-sample", "cpu-scaling", "trace"])
def test_a_cpu_sample_or_a_trace_sets_no_gpu_figure(data):
    """What a CPU or a trace measured says nothing about a GPU: only the run's configuration is taken."""
    taken = results.to_inputs(data, "cost")
    # Every measured figure is the estimate's value (an earlier file's figure does not outlive its job).
    figures = {k: v for k, v in taken.items() if k in pilot_inputs.MEASURED or k == "throughput_per_gpu"}
    assert figures == pilot_inputs.RESET_UNMEASURED, figures
    out = results.import_result("cost", json.dumps(data), PACKS["es"])
    assert out["ok"] and "medido" not in out["summary"].lower().replace("no mide", "")


def test_a_card_the_catalog_does_not_list_gives_no_speed():
    taken = results.to_inputs(_on_gpu(GPU, "NVIDIA L4"), "cost")
    assert not any(v for k, v in taken.items() if k.startswith("measured_")) and "gpu" not in taken
    assert taken["memory_per_gpu_gb"] == 68.5  # a GPU run's memory is still the job's


def test_a_file_keeps_its_models_name_and_parameter_count():
    trace = json.loads((Path(__file__).resolve().parents[2] / "results" / "trace-llama-3.1-8b-full.json").read_text())
    assert results.to_inputs(trace, "cost")["model"] == "llama-3.1-8b"
    assert results.to_inputs(TRACE, "memory")["model"] == "llama-3.2-1b"
    sample = results.to_inputs(SAMPLE, "memory")  # built from its own config: custom, with its count
    assert (sample["model"], sample["params"]) == ("custom", SAMPLE["model"]["parameters"])
    # A file named after a preset whose dimensions it does not have is not that preset.
    odd = json.loads(json.dumps(TRACE))
    odd["config"]["model"]["layers"] += 1
    assert results.to_inputs(odd, "memory")["model"] == "custom"


def test_the_panel_lists_what_the_file_would_change_and_nothing_else():
    job = {"model": "qwen3-8b", "method": "lora", "seq_len": "8192", "micro_batch": "2"}
    out = results.import_result("cost", json.dumps(SAMPLE), PACKS["es"], job)
    assert {"model", "method", "seq_len", "micro_batch"} <= set(out["changes"])
    assert "tokens" not in out["changes"] and "guide-import__apply" in out["html"]
    t = Translator(PACKS["es"])
    full = t(results.choice_label("cost", "method", "full"))
    assert "Qwen3 8B" in out["html"] and full in out["html"] and full != "Full fine-tune"
    # The same job as the file's: nothing to ask.
    same = results.import_result("cost", json.dumps(SAMPLE), PACKS["es"], out["inputs"])
    assert same["changes"] == [] and "guide-import__apply" not in same["html"]
    # Without the form (a caller that has none) nothing is asked either.
    assert results.import_result("cost", json.dumps(SAMPLE), PACKS["es"])["changes"] == []


def test_values_the_calculator_refuses_are_left_out_and_named():
    data = json.loads(json.dumps(SAMPLE))
    data["config"]["train"]["micro_batch"] = 65536  # the schema allows it; the calculator stops at 4096
    inputs = results.to_inputs(data, "memory")
    assert "micro_batch" not in inputs and inputs["layers"] == 4
    out = results.import_result("memory", json.dumps(data), PACKS["es"])
    # Named by the label the form shows, not by its key.
    assert out["ok"] and "campos fuera del rango de la calculadora: Tamaño del micro-lote</p>" in out["html"]
    assert "micro_batch" not in out["html"]


def test_import_panels_per_calculator():
    memory = results.import_result("memory", json.dumps(SAMPLE), PACKS["ar"])
    assert memory["ok"] and "guide-badge--cpu" in memory["html"] and "<svg" in memory["html"]
    cost = results.import_result("cost", json.dumps(_on_gpu(SCALE)).encode(), PACKS["ja"])
    assert cost["ok"] and cost["inputs"]["scaling_efficiency"] == 0.8333 and "1,024" in cost["summary"]
    unknown = results.import_result("nope", json.dumps(SAMPLE), PACKS["es"])
    assert not unknown["ok"] and unknown["errors"]
    assert results.importable("memory") and results.importable("cost") and not results.importable("nope")


def test_each_calculator_declares_its_import_panel(monkeypatch):
    """The panel follows the calculator's IMPORT_PANEL, not its name."""
    import types

    from calculators import memory
    from gpuguide.results._compare import panel_for
    from guidekit.calc import _registry

    twin = types.SimpleNamespace(
        NAME="memory-twin",
        TITLE=memory.TITLE,
        INPUTS=memory.INPUTS,
        run=memory.run,
        IMPORT_PANEL="estimate_vs_measured",
    )
    monkeypatch.setitem(_registry._CALCULATORS, "memory-twin", twin)
    ours = results.import_result("memory", json.dumps(SAMPLE), PACKS["es"])
    out = results.import_result("memory-twin", json.dumps(SAMPLE), PACKS["es"])
    assert out["ok"] and "<svg" in out["html"] and out["summary"] == ours["summary"]
    twin.IMPORT_PANEL = "measured_inputs"
    assert "guide-metrics" in results.import_result("memory-twin", json.dumps(SAMPLE), PACKS["es"])["html"]
    twin.IMPORT_PANEL = "chart"
    with pytest.raises(ValueError, match="IMPORT_PANEL must be one of measured_inputs, estimate_vs_measured"):
        panel_for("memory-twin")


def test_filled_inputs_are_exactly_what_the_committed_results_fill():
    """FILLED is derived from the mapping and the measured-input table: no more, no less than real files give."""
    # The committed scaling run is on CPUs (gloo), which gives no GPU figure: its GPU twin gives the rest.
    filled = set().union(*(pilot_inputs.result_inputs(data) for data in [*dict(RUNS).values(), _on_gpu(SCALE)]))
    # A result fills the measured throughput of its own card only: the committed files cover one GPU.
    per_card = set(calculators.cost.MEASURED_FIELDS.values())
    assert filled & per_card and filled - per_card == pilot_inputs.FILLED - per_card


def test_import_never_raises_and_always_crosses_the_worker_boundary():
    rng = random.Random(7)
    inputs = [json.dumps(d, allow_nan=True) for d in corpus(150, seed=99)]
    inputs += [bytes(rng.randrange(256) for _ in range(rng.randrange(200))) for _ in range(30)]
    inputs += [None, 12, ["x"], "{" * 40, '{"schema_version": "1"}', "\ud800"]
    fallback = Translator(PACKS["es"])("The file could not be read.")
    for text in inputs:
        out = results.import_result(rng.choice(["memory", "cost"]), text, PACKS["es"])
        assert set(out) >= {"ok", "errors", "inputs", "html", "summary"}
        assert out["ok"] == (not out["errors"])
        assert out["errors"] != [fallback], text[:200]  # the catch-all is a last resort, not a path
        json.dumps(out)


def test_a_run_that_did_not_fit_renders_with_dashes():
    data = json.loads(json.dumps(SAMPLE))
    data["outcome"] = {"status": "does_not_fit", "error": "CUDA out of memory <script>"}
    for key in ("timing", "memory", "checkpoint", "restore", "estimate"):
        data[key] = None
    assert results.validate(data) == []
    page = results.results_page([("oom.json", data)], PACKS["ar"])
    assert "CUDA out of memory &lt;script&gt;" in page and "—" in page
    for name in ("memory", "cost"):
        out = results.import_result(name, json.dumps(data), PACKS["ar"])
        assert out["ok"] and "throughput_per_gpu" not in out["inputs"]


def _partial_run(reason="diverged", steps=7):
    data = json.loads(json.dumps(SAMPLE))
    data["outcome"] = {
        "status": "partial",
        "error": "the loss became nan at step 8",
        "partial": {"reason": reason, "stage": "training", "steps_done": steps},
    }
    data["restore"] = None
    data["timing"]["validation_s"] = data["timing"]["validation_loss"] = None
    return data


@pytest.mark.parametrize(
    ("code", "badge", "reason"),
    [
        ("es", "Resultado parcial", "la pérdida divergió"),
        ("ja", "部分的な結果", "損失が発散した"),
        ("ar", "نتيجة جزئية", "تباعدت الخسارة"),
    ],
)
def test_a_partial_run_is_marked_partial_in_every_locale(code, badge, reason):
    data = _partial_run()
    assert results.validate(data) == []
    page = results.results_page([("partial.json", data), RUNS[0]], PACKS[code])
    assert page.count("guide-badge--partial") == 1, "only the partial run carries the mark"
    assert badge in page and reason in page
    for name in ("memory", "cost"):
        out = results.import_result(name, json.dumps(data), PACKS[code])
        assert out["ok"] and badge in out["html"]


def test_a_partial_status_needs_its_reason_and_a_failed_checkpoint_shows():
    data = _partial_run(reason="checkpoint_failed")
    data["checkpoint"]["error"] = "no space left on the device"
    assert results.validate(data) == []
    page = results.results_page([("ck.json", data)], PACKS["es"])
    assert "no space left on the device" in page
    del data["outcome"]["partial"]
    assert [p["code"] for p in results.validate(data)] == ["required"]
    data["outcome"]["partial"] = None
    assert results.validate(data) != []


@pytest.mark.parametrize(
    ("code", "steps", "words"),
    [
        ("es", 1, "tras 1 paso:"),
        ("es", 7, "tras 7 pasos:"),
        ("ar", 1, "بعد خطوة واحدة:"),
        ("ar", 2, "بعد خطوتين:"),
        ("ar", 7, "خطوات:"),
        ("ar", 11, "خطوةً:"),
    ],
)
def test_the_steps_a_partial_run_made_read_as_a_count(code, steps, words):
    page = results.results_page([("partial.json", _partial_run(steps=steps))], PACKS[code])
    assert words in page


@pytest.mark.parametrize(
    ("code", "layers", "heads"),
    [
        ("es", "1 capa", "1 cabeza"),
        ("ar", "طبقة واحدة", "رأس واحد"),
    ],
)
def test_a_model_shape_counts_its_layers_and_heads(code, layers, heads):
    data = json.loads(json.dumps(SAMPLE))
    data["config"]["model"].update(layers=1, heads=1, kv_heads=1)
    page = results.results_page([("one.json", data)], PACKS[code])
    assert layers in page and heads in page


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ((Path(__file__).resolve().parents[2] / "package.json").read_text(), "an npm package.json"),
        (json.dumps({"tokenizer_class": "LlamaTokenizer", "model_max_length": 8192}), "a tokenizer's settings"),
        (json.dumps({"do_sample": True, "top_p": 0.9}), "a model's generation settings"),
        (
            json.dumps({"model": {}, "train": {}, "data": {}}),
            "a gpu-pilot configuration, not the result its run writes",
        ),
        ("[1, 2]", "a JSON list"),
        ("7", "a single JSON value"),
    ],
)
def test_a_file_that_is_no_result_is_named_in_one_sentence(text, what):
    """Issue 51 item 8: what the file is not and what it looks like, first; the problems folded."""
    t = Translator(PACKS["es"])
    out = results.import_result("memory", text, PACKS["es"])
    assert not out["ok"] and out["summary"] == t(
        "This file is not a pilot result or a config.json: it looks like {what}.", what=t(what)
    )
    assert out["summary"] in out["html"] and "<details" in out["html"] and out["errors"]  # the problems stay
    assert "nivel superior" not in out["html"]
    pasted = results.import_result("memory", text, PACKS["es"], pasted=True)["summary"]
    assert pasted == t("This text is not a pilot result or a config.json: it looks like {what}.", what=t(what))


def test_other_json_names_its_first_keys_and_text_that_is_not_json_says_so():
    out = results.import_result("memory", json.dumps({"alpha": 1, "beta": 2, "gamma": 3, "delta": 4}), PACKS["ja"])
    assert "alpha" in out["summary"] and "gamma" in out["summary"] and "delta" not in out["summary"]
    t = Translator(PACKS["ar"])
    for text in ("hello", b"\xff\xfe", ""):
        summary = results.import_result("cost", text, PACKS["ar"])["summary"]
        assert summary == t("This file is not JSON, so it is neither a pilot result nor a config.json."), text


def test_a_result_with_problems_keeps_its_list_in_view():
    """A pilot result that breaks the contract is the reader's own file: its problems are not folded."""
    broken = json.loads(json.dumps(SAMPLE))
    del broken["timing"]
    out = results.import_result("memory", json.dumps(broken), PACKS["es"])
    assert not out["ok"] and "<details" not in out["html"] and "timing" in out["html"]
    assert out["summary"] == Translator(PACKS["es"])("This file is a pilot result this site cannot use:")


@pytest.mark.parametrize(
    ("code", "sharded", "words"),
    [
        ("es", True, "repartido entre 2 procesos"),
        ("es", False, "replicado en 2 procesos"),
        ("ja", True, "2 プロセスでシャーディング"),
        ("ar", True, "مجزَّأة بين عمليتين"),
    ],
)
def test_a_scaling_checkpoint_names_its_processes_and_layout(code, sharded, words):
    """Before: the checkpoint row showed one process's torch.save alone, for a run and a scaling file alike."""
    import copy

    data = copy.deepcopy(SCALE)
    for run in data["scaling"]["runs"]:
        run["checkpoint"] = {
            "write_s": 0.05,
            "load_s": 0.06,
            "size_bytes": 741095,
            "processes": run["world_size"],
            "sharded": sharded,
            "restored": True,
            "error": None,
        }
    assert results.validate(data) == []
    assert words in results.results_page([("s.json", data)], PACKS[code])


def test_a_sharded_baseline_and_strategies_that_did_not_fit_are_shown():
    """Before: the file said why its baseline was FSDP × 2 and which strategies ran out of memory, and the
    page showed neither (the efficiencies read as if measured against one process)."""
    import copy

    data = copy.deepcopy(SCALE)
    page = results.results_page([("s.json", data)], PACKS["es"])
    assert "Referencia del escalado" in page and "Un proceso" in page and "no cupo" not in page
    scaling = data["scaling"]
    baseline = next(r for r in scaling["runs"] if r["strategy"] == "fsdp")
    scaling["baseline"] = {**baseline, "efficiency": 1.0}
    scaling["runs"] = [{**baseline, "efficiency": 1.0}]  # fsdp at the full count: the baseline itself
    scaling["baseline_reason"] = (
        "one process ran out of memory (CUDA out of memory); fsdp on 2 processes is the smallest"
    )
    scaling["did_not_fit"] = [{"strategy": "ddp", "world_size": 2, "message": "CUDA out of memory. Tried to allocate"}]
    assert results.validate(data) == [], results.validate(data)
    page = results.results_page([("s.json", data)], PACKS["es"])
    assert "FSDP × 2, la configuración repartida más pequeña que cupo" in page
    assert "DDP × 2: no cupo en memoria" in page
    for code in ("ja", "ar"):  # translated: neither the English msgid nor the Spanish
        other = results.results_page([("s.json", data)], PACKS[code])
        assert not any(words in other for words in ("no cupo", "repartida", "smallest sharded", ": out of memory"))


@pytest.mark.parametrize(("code", "words"), [("es", "en 2 lotes de validación"), ("ar", "على دفعتَي تحقق")])
def test_validation_time_names_its_batches(code, words):
    import copy

    data = copy.deepcopy(SAMPLE)
    del data["timing"]["validation_batches"], data["timing"]["validation_tokens"]
    assert words not in results.results_page([("r.json", data)], PACKS[code])  # an older file: the time alone
    data["timing"].update(validation_batches=2, validation_tokens=128)
    assert results.validate(data) == []
    assert words in results.results_page([("r.json", data)], PACKS[code])
    assert "en un solo proceso" in results.results_page([("r.json", data)], PACKS["es"])
