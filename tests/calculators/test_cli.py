"""The command line: inputs from flags, files and stdin; tables, JSON, exit codes."""

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from calculators._cli import fmt, main

ROOT = Path(__file__).resolve().parents[2]


def run_main(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_memory_table(capsys):
    code, out, err = run_main(capsys, "memory", "--set", "method=qlora", "--set", "micro_batch=2")
    assert code == 0 and not err
    assert "== Memory per GPU by component ==" in out and "H200 141 GB" in out
    assert "Smallest setup that fits" in out


def test_the_verdict_comes_first_with_its_figures(capsys):
    """The answer in one sentence before any table; a run that does not fit lists what does, and the
    levers below carry the figure each gives."""
    code, out, _ = run_main(capsys, "memory", "--set", "seq_len=8192")
    first = out.splitlines()[0]
    assert code == 0
    assert first.startswith("Does not fit on 1 × H100 SXM 80 GB: 84.74 GB needed per GPU, 72.00 GB usable")
    assert first.endswith(
        "what fits: 1 × H200 SXM 141 GB, 1 × MI300X 192 GB (the cheapest per hour), the same card with the "
        "fused loss, the same card with a micro-batch of 2 or 8 × H100 SXM 80 GB with FSDP."
    )
    assert "- Fused linear cross-entropy loss (Loss implementation): 40.64 GB per GPU (fits)." in out
    code, out, _ = run_main(capsys, "memory")
    assert out.splitlines()[0] == "Fits on 1 × H100 SXM 80 GB: 35.60 GB needed per GPU, 44.40 GB left free."


def test_json_output_is_the_boundary(capsys):
    code, out, _ = run_main(capsys, "cost", "--json", "-s", "cards=2", "-s", "term=1m")
    answer = json.loads(out)
    assert code == 0 and answer["ok"] and answer["inputs"]["cards"] == 2 and answer["inputs"]["term"] == "1m"


def test_input_file_and_set_override(tmp_path, capsys):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"model": "llama-3.1-70b", "method": "full", "parallelism": "fsdp", "gpus": 4}))
    code, out, _ = run_main(capsys, "memory", "--input", str(path), "--set", "gpus=8", "--json")
    answer = json.loads(out)
    assert code == 0 and answer["inputs"]["gpus"] == 8 and answer["inputs"]["model"] == "llama-3.1-70b"


def test_an_input_file_overrides_only_the_keys_it_names_over_a_model_config(tmp_path, capsys):
    """Layers, later wins per key: --model-config, then --input, then --set."""
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"vocab": 900, "seq_len": 256}))
    config = ROOT / "tests" / "fixtures" / "hf-configs" / "mistral-tiny.json"
    code, out, _ = run_main(
        capsys, "memory", "--model-config", str(config), "--input", str(path), "--set", "seq_len=128", "--json"
    )
    inputs = json.loads(out)["inputs"]
    assert code == 0
    assert (inputs["kv_heads"], inputs["layers"], inputs["hidden"]) == (1, 2, 64)  # the config's, kept
    assert inputs["vocab"] == 900 and inputs["seq_len"] == 128


def test_the_help_lists_every_model_type_the_config_reader_takes(capsys):
    from calculators import hf_config

    with pytest.raises(SystemExit):
        main(["--help"])
    words = set(re.findall(r"[\w-]+", capsys.readouterr().out))
    assert set(hf_config.MODEL_TYPES) <= words and "phi3" in words


def test_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"seq_len": 512}'))
    code, out, _ = run_main(capsys, "memory", "--input", "-", "--json")
    assert code == 0 and json.loads(out)["inputs"]["seq_len"] == 512


@pytest.mark.parametrize(
    "argv, message",
    [
        (["memory", "--set", "seq_len=0"], "seq_len: out_of_range (Enter a value from 1 to 1048576.)"),
        (["memory", "--set", "method=x"], "method: unknown_choice (Choose one of: full, lora, qlora.)"),
        (["memory", "--set", "colour=red"], "colour: unknown_field"),
        (["memory", "--set", "seq_len"], "--set expects key=value"),
        (["nope"], "calculator: unknown_calculator"),
        (["describe", "nope"], "calculator: unknown_calculator"),
    ],
)
def test_field_errors_exit_2(capsys, argv, message):
    code, _, err = run_main(capsys, *argv)
    assert code == 2 and message in err


def test_bad_json_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text("{nope")
    code, _, err = run_main(capsys, "memory", "--input", str(path))
    assert code == 2 and err.startswith("error: input:")
    path.write_text("[1, 2]")
    assert run_main(capsys, "memory", "--input", str(path))[0] == 2


def test_describe(capsys):
    code, out, _ = run_main(capsys, "describe", "cost")
    d = json.loads(out)
    assert code == 0 and d["name"] == "cost" and any(i["name"] == "term" for i in d["inputs"])


def test_module_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "calculators", "memory", "--set", "lora_rank=0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "lora_rank: out_of_range" in proc.stderr


@pytest.mark.parametrize(
    "number, unit, text",
    [
        (1.5e9, "bytes", "1.50 GB"),
        (0.25, "percent", "25.0 %"),
        (1234.5, "usd", "$1,234.50"),
        (None, "usd", "—"),
        (True, "bool", "yes"),
        (12.345, "hours", "12.35 h"),
        (41943040, "count", "41,943,040"),
    ],
)
def test_fmt(number, unit, text):
    assert fmt(number, unit) == text


def test_stale_prices_lists_old_prices_and_fails(capsys):
    code, out, _ = run_main(capsys, "stale-prices", "--max-age-days", "30", "--today", "2099-01-01")
    lines = out.splitlines()
    assert code == 1 and any(line.startswith("GPU h200-141gb: as of ") for line in lines)
    assert any(line.startswith("option egress: as of ") for line in lines)
    code, out, _ = run_main(capsys, "stale-prices", "--max-age-days", "100000", "--today", "2099-01-01")
    assert code == 0 and "every price is at most 100000 days old" in out


def test_plan_column_prints_as_terms():
    assert fmt([], "plan") == "—"
    assert fmt([[2, "1 day"], [1, "1 week"]], "plan") == "2 × 1 day + 1 week"  # a single term: its label


def test_cost_tables(capsys):
    # Labels with a context ("Loading", hours in the plan) and count strings (the note on cards that
    # span nodes) print as English text.
    code, out, err = run_main(capsys, "cost", "--set", "cards=16")
    assert code == 0 and not err
    assert "== Hours in the plan ==" in out and "\nLoading " in out
    assert "- More than 8 cards span several nodes" in out


def test_english_takes_the_form_of_the_count():
    from calculators import N_, NN_
    from calculators._cli import english
    from guidekit.l10n._markers import NP_

    msg = NN_("{count} card", "{count} cards")
    assert english(msg, {"count": {"value": 1, "unit": "count"}}) == "{count} card"
    assert english(msg, {"count": {"value": 3, "unit": "count"}}) == "{count} cards"
    assert english(msg, {"count": 1}) == "{count} card"
    assert english(NP_("hours in the plan", "Loading")) == "Loading" and english(N_("Plan")) == "Plan"


def _readme_examples():
    """(command, the output the README shows) for each `$ python -m calculators ...` line of
    calculators/README.md's example blocks."""
    text = (ROOT / "calculators" / "README.md").read_text(encoding="utf-8")
    examples = []
    for block in text.split("```")[1::2]:
        command, shown = None, []
        for line in block.strip("\n").split("\n"):
            if line.startswith("$ python -m calculators "):
                if command:
                    examples.append((command, shown))
                command, shown = line[2:], []
            elif command:
                shown.append(line)
        if command:
            examples.append((command, shown))
    return examples


@pytest.mark.parametrize("command, shown", _readme_examples(), ids=lambda v: v if isinstance(v, str) else "")
def test_the_readme_examples_are_what_the_command_prints(command, shown, capsys):
    argv, _, pipe = command.partition(" | ")
    code, out, _ = run_main(capsys, *argv.split()[3:])
    assert code == 0
    lines = out.rstrip("\n").split("\n")
    if pipe:  # only `head -N` is used
        assert pipe.startswith("head -")
        lines = lines[: int(pipe.removeprefix("head -"))]
    assert "\n".join(lines).rstrip() == "\n".join(shown).rstrip()
