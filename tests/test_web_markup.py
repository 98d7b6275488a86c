"""The phone view's own ``escape`` writes what ``html.escape`` writes (issue 19: the page
no longer imports ``html``, whose entity tables it never needs)."""
import html

from hypothesis import given, strategies as st

from companion.outputs.web.markup import escape


@given(st.text(alphabet=st.sampled_from("&<>\"'a é한;#x27"), max_size=40), st.booleans())
def test_escape_is_html_escape(text, quote):
    assert escape(text, quote) == html.escape(text, quote)


def test_a_name_with_markup_shows_as_text():
    assert escape('<b>Ana & "Ben"</b>') == "&lt;b&gt;Ana &amp; &quot;Ben&quot;&lt;/b&gt;"
