//! Tests of the HTML report's escaping helpers. The renderings of the fixtures (snapshots,
//! ordering, the evals section) are in `src/golden/html.rs`.

use std::borrow::Cow;

use super::text::last_chars;
use super::*;

#[test]
fn escaping_covers_text_and_attributes() {
    assert_eq!(
        esc("<a href=\"x\" onload='y'>&</a>"),
        "&lt;a href=&quot;x&quot; onload=&#39;y&#39;&gt;&amp;&lt;/a&gt;"
    );
    assert!(matches!(esc("plain"), Cow::Borrowed(_)));
    assert_eq!(
        text("\x1b[31m<b>red</b>\x1b[0m\u{7}", 100),
        "&lt;b&gt;red&lt;/b&gt;␇"
    );
    assert_eq!(text("abcdef", 4), "abc…");
    assert_eq!(one_line("a\nb\tc", 10), "a b c");
    assert_eq!(last_chars("héllo wörld", 5), "…örld");
    assert_eq!(last_chars("short", 5), "short");
}
