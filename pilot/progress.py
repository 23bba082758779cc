"""A progress bar: tqdm when installed, otherwise one self-rewriting line on stderr."""
from __future__ import annotations

import sys


class Progress:
    def __init__(self, total: int, desc: str, enabled: bool = True):
        self.total, self.desc, self.enabled, self.n = total, desc, enabled, 0
        self._bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=total, desc=desc, unit="step", leave=True, file=sys.stderr)
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
        sys.stderr.write(f"\r{self.desc}: {self.n}/{self.total} {extra}   ")
        sys.stderr.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.enabled:
            sys.stderr.write("\n")
