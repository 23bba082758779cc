"""Check result files against the result contract (`pilot.result`), worded as the site words them
(`gpuguide.results.english`), so the rented machine and the build agree on what is valid and why."""

from __future__ import annotations

import errno
import stat
from pathlib import Path

from .result import MAX_BYTES, parse, problem


def problems(path: Path) -> list[str]:
    """Readable problems of one result file (size, encoding, JSON, schema); [] when it is valid. Only a
    regular file is read, and no more of it than the contract's size limit (`/dev/zero` or a FIFO would
    never end); the lines carry no control character of the file's, for the terminal's sake."""
    from gpuguide.results import english  # the wording layer; the contract itself is the leaf above

    info = path.stat()  # a missing file: FileNotFoundError, "No such file or directory"
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file")
    size = info.st_size
    if size > MAX_BYTES:
        found = [problem("", "too_large", limit=MAX_BYTES, found=size)]
    else:
        with open(path, "rb") as f:
            _, found = parse(f.read(MAX_BYTES + 1))  # bounded even if the file grows meanwhile
    return [printable(english(p)) for p in found]


def printable(text: str) -> str:
    """`text` with every character a terminal would act on (escape sequences, bidi controls) as \\xNN or
    \\uNNNN."""
    return "".join(c if c.isprintable() or c == " " else _escaped(c) for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}"
