//! Python's `repr` of a float, which `json.dumps` writes: the shortest digits that read back
//! as the same float, ties to even, in Python's choice of fixed or exponent notation.

use std::fmt::Write as _;

/// Python's `json.dumps` of a float: `repr(f)`, with `Infinity`, `-Infinity` and `NaN` for
/// the values JSON has no word for.
pub(crate) fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let (digits, exp) = shortest_digits(f.abs());
    let mut out = String::from(if f.is_sign_negative() { "-" } else { "" });
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = usize::try_from(exp).unwrap_or(0) + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        } else {
            out.push_str("0.");
            let zeros = usize::try_from(-exp - 1).unwrap_or(0);
            out.extend(std::iter::repeat_n('0', zeros));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(
            out,
            "e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.unsigned_abs()
        );
    }
    out
}

/// The shortest digits that read back as `f` (finite, not negative) and the decimal exponent
/// of the first one, chosen as Python chooses: nearest to the exact value, and on an exact tie
/// between two candidates the one with the even last digit. Rust's shortest formatting
/// breaks such ties upwards (`138885500658438.125` → `…13`, where Python writes `…12`).
fn shortest_digits(f: f64) -> (String, i32) {
    let (digits, exp) = split_sci(&format!("{f:e}"));
    let Some(last) = digits.bytes().last().map(|b| b - b'0') else {
        return (digits, exp);
    };
    if last % 2 == 0 {
        return (digits, exp);
    }
    // The candidate one unit lower in the last place (an odd digit never borrows).
    let mut lower = digits.clone();
    lower.pop();
    lower.push(char::from(b'0' + last - 1));
    let point = |d: &str| match d.len() {
        1 => format!("{d}e{exp}"),
        _ => format!("{}.{}e{exp}", &d[..1], &d[1..]),
    };
    if point(&lower).parse::<f64>() != Ok(f) {
        return (digits, exp);
    }
    // Both read back as `f`: it is a tie only when `f` is exactly halfway, i.e. its exact
    // decimal expansion (at most 767 significant digits) is `lower` followed by a 5.
    let exact = format!("{f:.800e}");
    let (exact_digits, exact_exp) = split_sci(&exact);
    let mut half = lower.clone();
    half.push('5');
    let is_tie = exact_exp == exp
        && exact_digits.starts_with(&half)
        && exact_digits[half.len()..].bytes().all(|b| b == b'0');
    if is_tie { (lower, exp) } else { (digits, exp) }
}

/// `d.ddde±x` (no sign) → (`dddd`, x).
fn split_sci(sci: &str) -> (String, i32) {
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let digits = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}
