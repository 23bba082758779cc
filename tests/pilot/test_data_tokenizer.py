"""Issue 52 item 2, first half: the reader's own data on any model source, offline. A preset (or a config.json)
has no tokenizer on the rented machine, so its data file is tokenized as UTF-8 bytes unless the reader names a
local tokenizer directory; nothing is downloaded. It used to spend a minute asking the Hub for a tokenizer named
after the preset, then exit 1."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("transformers")

from pilot import hf_model  # noqa: E402
from pilot.config import DataConfig, ModelConfig, tokenizer_for  # noqa: E402
from pilot.data import file_tokens  # noqa: E402
from pilot.summary import render  # noqa: E402

TEXT = "Un corpus propio: ñandú, 日本語, العربية. " * 40


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps({"text": TEXT}) for _ in range(3)) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to fetch a tokenizer fails the test, rather than waiting on a network."""
    import transformers

    def refuse(name, *args, **kwargs):
        if not kwargs.get("local_files_only"):
            raise AssertionError(f"tried to download a tokenizer for {name!r}")
        return original(name, *args, **kwargs)

    original = transformers.AutoTokenizer.from_pretrained
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", refuse)


def test_a_preset_with_the_readers_data_is_tokenized_as_bytes_offline(corpus, no_network):
    model = hf_model.resolve(ModelConfig(source="qwen2.5-0.5b"))
    data = DataConfig(source=str(corpus))
    assert data.tokenizer == "auto" and data.tokenizer_for(model.source) == "bytes"
    tokens = file_tokens(data, model, seq_len=63)
    document = list(TEXT.encode("utf-8")) + [256]
    assert tokens.shape[1] == 64 and tokens.flatten().tolist() == (document * 3)[: tokens.numel()]


def _tokenizer_dir(tmp_path, vocab: int):
    """A small word-level tokenizer saved as transformers saves one: what a local directory holds."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = sorted(set(TEXT.split()))
    ids = {w: i for i, w in enumerate(["<unk>", "</s>", *words])}
    ids = {w: (i if i < 2 else vocab - len(ids) + i) for w, i in ids.items()}  # the words at the top of `vocab`
    core = Tokenizer(models.WordLevel(ids, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    folder = tmp_path / "tokenizer"
    PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", eos_token="</s>").save_pretrained(folder)
    return folder


def test_a_named_local_tokenizer_is_used_offline(corpus, tmp_path, no_network):
    model = hf_model.resolve(ModelConfig(source="qwen2.5-0.5b"))
    folder = _tokenizer_dir(tmp_path, vocab=1000)
    data = DataConfig(source=str(corpus), tokenizer=str(folder))
    tokens = file_tokens(data, model, seq_len=7)
    words = len(TEXT.split()) + 1  # and the end of each document
    assert tokens.numel() == (3 * words) // 8 * 8 and int(tokens.max()) < 1000


def test_a_tokenizer_beyond_the_models_vocabulary_is_refused(corpus, tmp_path, no_network):
    model = ModelConfig(source="builtin", vocab=512)
    folder = _tokenizer_dir(tmp_path, vocab=1000)
    with pytest.raises(ValueError, match=r"gives token ids up to 999, beyond the model's vocabulary of 512"):
        file_tokens(DataConfig(source=str(corpus), tokenizer=str(folder)), model, seq_len=7)


def test_a_directory_without_a_tokenizer_is_refused_in_one_line(corpus, tmp_path, no_network):
    empty = tmp_path / "empty"
    empty.mkdir()
    model = ModelConfig(source="builtin", vocab=512)
    with pytest.raises(ValueError, match=r"^data\.tokenizer '.*empty': no tokenizer loads from it offline") as refused:
        file_tokens(DataConfig(source=str(corpus), tokenizer=str(empty)), model, seq_len=7)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("value", ["meta-llama/Llama-3.1-8B", "", "/no/such/dir", 3])
def test_a_hub_name_or_a_missing_directory_is_refused_before_anything_runs(value):
    with pytest.raises(ValueError, match=r"data\.tokenizer must be 'auto', 'bytes' or a local directory"):
        DataConfig(tokenizer=value)


def test_auto_takes_a_local_model_directorys_own_tokenizer(tmp_path):
    assert tokenizer_for("auto", str(tmp_path)) == str(tmp_path)
    assert tokenizer_for("auto", "builtin") == tokenizer_for("auto", "llama-3.1-8b") == "bytes"
    assert tokenizer_for("bytes", str(tmp_path)) == "bytes"


@pytest.mark.parametrize(
    ("tokenizer", "said"),
    [("auto", "tokenized as UTF-8 bytes, offline"), ("/srv/tok", "tokenized as the tokenizer in /srv/tok")],
)
def test_the_summary_says_how_the_data_was_tokenized(tokenizer, said):
    config = {"model": {"source": "qwen2.5-0.5b"}, "data": {"source": "corpus.jsonl", "tokenizer": tokenizer}}
    assert said in _summary_data_line(config)


def _summary_data_line(config: dict) -> str:
    """The summary's data line for a result holding `config` (the rest of the result is not read for it)."""
    from types import SimpleNamespace

    env = SimpleNamespace(
        pilot_version="0", device_type="cpu", device_name="x", device_count=1, torch="2", cuda=None, hip=None
    )
    model = SimpleNamespace(family="f", parameters=1, trainable_parameters=1)
    outcome = SimpleNamespace(status="does_not_fit", error="e", partial=None)
    result = SimpleNamespace(environment=env, config=config, model=model, batch_search=None, outcome=outcome)
    return next(line for line in render(result).splitlines() if line.startswith("data: "))  # type: ignore[arg-type]
