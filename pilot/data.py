"""Training data and a batch source whose position can be saved and restored exactly.

The order of each epoch derives from (seed, epoch) alone, so the position (epoch, batch) is all a
fresh process needs to continue with the very next batch; restoring a loader's generator state
would not be enough. Every sequence is packed to the full length, so the timed steps always run
on the longest batches.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import torch

from .config import DataConfig, ModelConfig


def synthetic_tokens(data: DataConfig, vocab: int, seq_len: int, seed: int) -> torch.Tensor:
    # A private generator: building the data must not move the global RNG.
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (data.synthetic_sequences, seq_len + 1), generator=gen)


def _texts(path: Path, text_field: str) -> Iterator[str]:
    if path.suffix == ".jsonl":
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}: line {number} is not JSON: {exc.msg} (column {exc.colno})") from exc
                if not isinstance(record, dict) or text_field not in record:
                    raise ValueError(f"data.text_field {text_field!r} missing on line {number} of {path}")
                yield str(record[text_field])
    else:
        yield path.read_text(encoding="utf-8")


def _token_ids(data: DataConfig, model: ModelConfig) -> Iterator[list[int]]:
    """Each document of the file as token ids, its end marked: as UTF-8 bytes (ids 0-255, 256 ends a
    document), or with a local tokenizer (`DataConfig.tokenizer_for`). Nothing is downloaded: a preset has
    no tokenizer on the machine, and bytes make the same tokens per step, so the speed per token is the
    model's either way. The one tokenizing loop, for the tokens trained on and for `pipeline_rate`."""
    path = Path(data.source)
    tokenizer = data.tokenizer_for(model.source)
    if tokenizer == "bytes":
        if model.vocab < 257:
            raise ValueError(f"model.vocab must be >= 257 to train on text bytes (got {model.vocab})")
        for text in _texts(path, data.text_field):
            yield [*text.encode("utf-8"), 256]  # 256: end-of-document
        return
    from transformers import AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(tokenizer, local_files_only=True)
    except (OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"data.tokenizer {tokenizer!r}: no tokenizer loads from it offline ({first})") from None
    for text in _texts(path, data.text_field):
        ids = tok(text)["input_ids"]
        if ids and max(ids) >= model.vocab:
            raise ValueError(
                f"data.tokenizer {tokenizer!r} gives token ids up to {max(ids)}, beyond the model's vocabulary "
                f"of {model.vocab}: use the model's own tokenizer, or 'bytes'"
            )
        yield ids if tok.eos_token_id is None else [*ids, tok.eos_token_id]


def file_tokens(data: DataConfig, model: ModelConfig, seq_len: int) -> torch.Tensor:
    """Tokenise a local file (`_token_ids`) and pack it into rows of seq_len + 1 tokens."""
    ids: list[int] = []
    for document in _token_ids(data, model):
        ids.extend(document)
    rows = len(ids) // (seq_len + 1)
    if rows == 0:
        raise ValueError(
            f"data.source {str(Path(data.source))!r} holds {len(ids)} tokens, fewer than one sequence of {seq_len + 1}"
        )
    return torch.tensor(ids[: rows * (seq_len + 1)], dtype=torch.long).view(rows, seq_len + 1)


@dataclass
class PipelineRate:
    """How fast one process turns the reader's file into micro-batches: read, tokenized, packed and stacked,
    as a loader that tokenizes while it trains would. The steps' data wait cannot see this: the pilot
    tokenizes the file before the timed steps."""

    tokens: int  # tokens delivered in whole micro-batches
    seconds: float
    tokens_per_s: float


def pipeline_rate(
    data: DataConfig, model: ModelConfig, seq_len: int, micro_batch: int, budget_s: float = 5.0
) -> PipelineRate | None:
    """Time the reader's data pipeline alone, from the file to stacked micro-batches, for up to `budget_s`
    seconds or the whole file; None for synthetic data (there is no pipeline to measure)."""
    if data.source == "synthetic":
        return None
    row, rows, delivered = seq_len + 1, [], 0
    pending: list[int] = []
    start = time.perf_counter()
    for document in _token_ids(data, model):
        pending.extend(document)
        at = 0
        while len(pending) - at >= row:
            rows.append(torch.tensor(pending[at : at + row], dtype=torch.long))
            at += row
            if len(rows) == micro_batch:  # collated as the loader does (`torch.stack`)
                delivered += torch.stack(rows).numel()
                rows = []
            if time.perf_counter() - start >= budget_s:
                break
        pending = pending[at:]
        if time.perf_counter() - start >= budget_s:
            break
    seconds = time.perf_counter() - start
    if delivered == 0 or seconds <= 0:
        return None
    return PipelineRate(delivered, seconds, delivered / seconds)


def load_tokens(data: DataConfig, model: ModelConfig, seq_len: int, seed: int) -> torch.Tensor:
    if data.source == "synthetic":
        return synthetic_tokens(data, model.vocab, seq_len, seed)
    return file_tokens(data, model, seq_len)


def tokens_hash(tokens: torch.Tensor) -> str:
    return hashlib.sha256(tokens.contiguous().numpy().tobytes()).hexdigest()


@dataclass
class DataPosition:
    epoch: int = 0
    batch: int = 0


class BatchSource:
    """Yields micro-batches for one rank; `position` is the next batch to be consumed."""

    def __init__(
        self,
        tokens: torch.Tensor,
        micro_batch: int,
        seed: int,
        position: DataPosition | None = None,
        rank: int = 0,
        world: int = 1,
        num_workers: int = 0,
        pin_memory: bool = False,
    ):
        self.tokens, self.micro_batch, self.seed = tokens, micro_batch, seed
        self.rank, self.world = rank, world
        self.per_epoch = len(tokens) // (micro_batch * world)
        if self.per_epoch == 0:
            raise ValueError(
                f"the data holds {len(tokens)} sequences, fewer than one global batch of "
                f"{micro_batch * world}; lower train.micro_batch or add data"
            )
        self.position = position or DataPosition()
        self._iter = self._loader(num_workers, pin_memory)

    def _indices(self, epoch: int, batch: int) -> list[int]:
        order = torch.randperm(len(self.tokens), generator=torch.Generator().manual_seed(self.seed + epoch))
        start = (batch * self.world + self.rank) * self.micro_batch
        return order[start : start + self.micro_batch].tolist()

    def _index_stream(self) -> Iterator[list[int]]:
        epoch, batch = self.position.epoch, self.position.batch
        while True:
            yield self._indices(epoch, batch)
            batch += 1
            if batch == self.per_epoch:
                epoch, batch = epoch + 1, 0

    def _loader(self, num_workers: int, pin_memory: bool) -> Iterator[torch.Tensor]:
        if num_workers == 0:
            return (self.tokens[idx] for idx in self._index_stream())
        # Worker seeds come from this private generator, never from the global torch RNG.
        return iter(
            torch.utils.data.DataLoader(
                self.tokens,
                batch_sampler=_Stream(self._index_stream()),
                num_workers=num_workers,
                collate_fn=torch.stack,
                pin_memory=pin_memory,
                generator=torch.Generator().manual_seed(self.seed),
            )
        )

    def next(self) -> torch.Tensor:
        batch = next(self._iter)
        self.position.batch += 1
        if self.position.batch == self.per_epoch:
            self.position = DataPosition(self.position.epoch + 1, 0)
        return batch


class _Stream:
    """Wraps an index generator so DataLoader accepts it as a batch sampler."""

    def __init__(self, stream: Iterator[list[int]]):
        self.stream = stream

    def __iter__(self):
        return self.stream
