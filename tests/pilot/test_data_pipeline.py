"""Issue 52 item 2, second half: the data wait cannot see a slow pipeline, because the pilot tokenizes the
reader's file before the timed steps. So the pipeline is timed apart: one process reads, tokenizes, packs and
stacks the file into micro-batches as a loader that tokenizes while it trains would, and the result compares
that rate with what the steps consumed; a pipeline slower than training is flagged."""

from __future__ import annotations

import json
import time

import pytest

from pilot import data as pilot_data, runner
from pilot.config import DataConfig, ModelConfig
from pilot.flags import PIPELINE_LIMIT
from pilot.summary import render
from tests.pilot.conftest import TINY_MODEL, tiny

TEXT = "Un corpus propio: ñandú, 日本語, العربية. " * 20


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps({"text": TEXT}) for _ in range(40)) + "\n", encoding="utf-8")
    return path


def test_the_pipeline_delivers_whole_micro_batches_and_synthetic_data_has_none(corpus):
    model = ModelConfig(**TINY_MODEL)
    rate = pilot_data.pipeline_rate(DataConfig(source=str(corpus)), model, seq_len=15, micro_batch=2)
    document = len(TEXT.encode("utf-8")) + 1
    assert rate is not None and rate.tokens % (2 * 16) == 0
    assert rate.tokens == (40 * document // 16) // 2 * 2 * 16  # the whole file, in whole micro-batches
    assert rate.tokens_per_s == pytest.approx(rate.tokens / rate.seconds)
    assert pilot_data.pipeline_rate(DataConfig(), model, seq_len=15, micro_batch=2) is None


def _slow_pipeline(monkeypatch, seconds_per_document: float, budget_s: float):
    """The pipeline's timing with a reader as slow as a network file system or a heavy tokenizer (each
    document takes this long); the training data itself is read at full speed before the steps."""
    real_ids, real_rate = pilot_data._token_ids, pilot_data.pipeline_rate

    def slow_ids(data, model):
        for document in real_ids(data, model):
            time.sleep(seconds_per_document)
            yield document

    def timed(*args, **kwargs):
        with monkeypatch.context() as patch:
            patch.setattr(pilot_data, "_token_ids", slow_ids)
            return real_rate(*args, **kwargs, budget_s=budget_s)

    monkeypatch.setattr(runner, "pipeline_rate", timed)


@pytest.mark.slow  # 6 s: two seconds of a slow reader, and a pilot run
def test_a_slow_reader_is_seen_and_flagged_though_the_steps_never_wait(corpus, monkeypatch, validate):
    # One document of ~1,100 tokens per second, timed for 2 s: about a tenth of what the tiny model trains on
    # two cores (some 10,000 tokens/s), and still below it on a machine four times as loaded.
    _slow_pipeline(monkeypatch, 1.0, budget_s=2.0)
    cfg = tiny(data=DataConfig(source=str(corpus)), restore_check=False)
    result = runner.run(cfg, show_progress=False)
    t = result.timing
    # The steps' own data wait does not see the slow reader: the file was tokenized before them (a loaded machine
    # may still make a few micro-seconds of waiting a visible share of the tiny model's steps).
    assert t.data_wait_fraction < 0.5
    pipe = t.data_pipeline
    assert pipe is not None and pipe.tokens_per_s < 2_500
    assert pipe.share_of_training == pytest.approx(pipe.tokens_per_s / t.tokens_per_s)
    flag = next(f for f in result.flags if f.code == "data_pipeline")
    assert flag.value == pytest.approx(pipe.share_of_training) and flag.limit == PIPELINE_LIMIT < 1 + 1e-9
    assert "data pipeline" in render(result)
    validate(result)  # the site reads the new field and flag


def test_a_pipeline_faster_than_training_is_not_flagged(corpus, validate):
    result = runner.run(tiny(data=DataConfig(source=str(corpus)), restore_check=False), show_progress=False)
    pipe = result.timing.data_pipeline
    if pipe.share_of_training >= PIPELINE_LIMIT:  # bytes are read at millions of tokens/s; the tiny model trains slower
        assert not [f for f in result.flags if f.code == "data_pipeline"]
    validate(result)
