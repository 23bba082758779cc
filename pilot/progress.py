"""A progress bar: tqdm when installed, otherwise one self-rewriting line on stderr."""

from __future__ import annotations

import sys


class Progress:
    """`total` None: a phase whose length is not known in advance (the batch search) counts up."""

    def __init__(self, total: int | None, desc: str, enabled: bool = True, unit: str = "step"):
        self.total, self.desc, self.enabled, self.n = total, desc, enabled, 0
        self._bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=total, desc=desc, unit=unit, leave=True, file=sys.stderr)
            except ImportError:
                pass

    def update(self, **postfix) -> None:
        self.n += 1
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix(postfix, refresh=False)
            self._bar.update(1)
            return
        extra = " ".join(f"{k}={v}" for k, v in postfix.items())
        count = f"{self.n}/{self.total}" if self.total is not None else str(self.n)
        sys.stderr.write(f"\r{self.desc}: {count} {extra}   ")
        sys.stderr.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.enabled:
            sys.stderr.write("\n")
