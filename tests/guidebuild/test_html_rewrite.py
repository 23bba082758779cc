"""Rewrites of each page's HTML that do not need a build."""

from __future__ import annotations

import pytest

from guidebuild.html_rewrite import focusable_code


@pytest.mark.parametrize(("html", "expected"), [
    # Pygments' highlighted block and a plain fenced block both take focus.
    ('<pre><span></span><code>x = 1</code></pre>', '<pre><span></span><code tabindex="0">x = 1</code></pre>'),
    ('<pre><code>nvidia-smi</code></pre>', '<pre><code tabindex="0">nvidia-smi</code></pre>'),
    # Inline code in prose does not scroll and stays out of the tab order.
    ('<p>run <code>make serve</code></p>', '<p>run <code>make serve</code></p>'),
])
def test_code_blocks_take_focus_inline_code_does_not(html, expected):
    assert focusable_code(html) == expected
