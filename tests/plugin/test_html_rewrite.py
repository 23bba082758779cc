"""Rewrites of each page's HTML that do not need a build."""

from __future__ import annotations

import pytest

from guidekit.site.html_rewrite import focusable_code


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        # Pygments' highlighted block and a plain fenced block both take focus on the <pre>, which scrolls:
        # Material's script removes a <code>'s tabindex on a phone.
        ("<pre><span></span><code>x = 1</code></pre>", '<pre tabindex="0"><span></span><code>x = 1</code></pre>'),
        ("<pre><code>nvidia-smi</code></pre>", '<pre tabindex="0"><code>nvidia-smi</code></pre>'),
        # Inline code in prose does not scroll and stays out of the tab order.
        ("<p>run <code>make serve</code></p>", "<p>run <code>make serve</code></p>"),
    ],
)
def test_code_blocks_take_focus_inline_code_does_not(html, expected):
    assert focusable_code(html) == expected
