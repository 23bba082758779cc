"""Line breaks an editor left inside a Japanese or Chinese sentence are joined in the page's HTML
(issue 54 item 2): a browser draws a soft break as a space, which these languages never put between
words."""

import pytest

from guidekit.site.cjk_lines import join_lines, joins_lines


@pytest.mark.parametrize(
    ("html", "joined"),
    [
        ("<p>実行\nします。</p>", "<p>実行します。</p>"),
        ("<p>実行\n  します</p>", "<p>実行します</p>"),  # the wrapped line's indent goes too
        ("<p>次の\n<a href='#x'>リンク</a>\nを見る</p>", "<p>次の<a href='#x'>リンク</a>を見る</p>"),
        ("<p>あ\nい\nう</p>", "<p>あいう</p>"),  # each break, with the character between them shared
        ("<p>强调\n中文</p>", "<p>强调中文</p>"),
        ("<p>GPU\nを使う</p>", "<p>GPU\nを使う</p>"),  # Latin on one side: a space may be meant
        ("<p>English\nwords</p>", "<p>English\nwords</p>"),
        ("<pre><code>コード\nです</code></pre>", "<pre><code>コード\nです</code></pre>"),  # a line is the text
        ("<p>表\n</p>\n<p>次</p>", "<p>表\n</p>\n<p>次</p>"),  # across blocks nothing is joined
        ("<td>カード</td>\n<td>区分</td>", "<td>カード</td>\n<td>区分</td>"),  # nor across table cells
    ],
)
def test_a_break_between_two_cjk_characters_is_joined(html, joined):
    assert join_lines(html) == joined


def test_only_the_languages_written_without_spaces_join():
    assert joins_lines("ja") and joins_lines("zh") and joins_lines("zh-Hant") and joins_lines("zh_TW")
    assert not any(joins_lines(code) for code in ("es", "ar", "ko", "en", "he"))
