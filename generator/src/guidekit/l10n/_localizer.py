"""`Localizer`: the one object every renderer takes to localize, made from a locale pack."""

from __future__ import annotations

from typing import ClassVar

from ._numbers import NumberFormat
from ._pack import ENGLISH_PACK, LocalePack
from ._text import Translator


class Localizer:
    """A pack's translator (`t`) and number formatter (`fmt`), made together and passed as one.
    `memo`: the formatter remembers each figure's text (a long-lived one, like the browser worker's)."""

    __slots__ = ("pack", "t", "fmt", "dir", "locale")
    _english: ClassVar[Localizer | None] = None

    def __init__(self, pack: LocalePack, memo: bool = False):
        self.pack = pack
        self.t = Translator(pack)
        self.fmt = NumberFormat(pack, memo=memo)
        self.dir: str = self.t.dir
        self.locale: str = self.t.locale

    @classmethod
    def english(cls) -> Localizer:
        """English, made once: what the pilot's CLI prints and the build reports."""
        if cls._english is None:
            cls._english = cls(ENGLISH_PACK)
        return cls._english
