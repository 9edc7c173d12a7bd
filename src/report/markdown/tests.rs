//! Tests of the job summary's own helpers: cell escaping and budget sharing. The renderings of
//! the fixtures are in `src/golden/markdown.rs`.

use super::*;

#[test]
fn cells_are_escaped() {
    assert_eq!(
        md("a|b\nc <x> & `y` [l](u) *s* @all \\", 100),
        "a\\|b<br>c &lt;x&gt; &amp; \\`y\\` \\[l\\](u) \\*s\\* @\u{200b}all \\\\"
    );
    assert_eq!(md("\x1b[31mred\x1b[0m", 100), "red");
    assert_eq!(md("abcdef", 4), "abc…");
    // GitHub renders text between two `$` as math.
    assert_eq!(md("$.unit and $.value", 100), "\\$.unit and \\$.value");
}

#[test]
fn sharing_gives_small_lists_what_they_need() {
    assert_eq!(share(&[10, 1000], 100), [10, 90]);
    assert_eq!(share(&[1000, 1000], 100), [50, 50]);
    assert_eq!(share(&[10, 20], 100), [10, 20]);
}
