"""`python -m guidekit.i18n`: the same commands as `guide-i18n`."""

import sys

from .cli import main

sys.exit(main())
