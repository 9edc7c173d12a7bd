//! Tests of the workflow annotations' escaping. The annotations of the fixtures (order, limits,
//! paths) are in `src/golden/annotations.rs`.

use super::*;

#[test]
fn escaping_follows_the_toolkit() {
    assert_eq!(data("100% a\r\nb: c, d"), "100%25 a%0Ab: c, d");
    assert_eq!(property("a:b,c%\nd"), "a%3Ab%2Cc%25%0Ad");
}
