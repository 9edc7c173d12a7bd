"""Writes src/pycompat/fixtures/re_search.txt: `re.search(pattern, text) is not None` as the
reference's Python computes it, for every pattern below against every text below.

    /tmp/reftp/bin/python scripts/gen/python_re_search.py

Each line: `match` or `nomatch`, then the pattern and the text as JSON strings, tab-separated.
"""

import json
import re
import warnings

warnings.simplefilter("ignore", FutureWarning)

PATTERNS = [
    r"^\d+$", r"^\d{3}$", r"\D", r"^\w+$", r"\W", r"^\s+$", r"\S", r"(?a)^\w+$", r"(?a)^\d+$",
    r"(?a)\s", r"\bcat\b", r"\Bcat", r"\B", r"\b", r"cat\B", r"(?a)\bcaf\b",
    r"end$", r"^end$", r"end\Z", r"end\Z|x", r"(?m)^end$", r"(?m)end$", r"a.b", r"(?s)a.b",
    r"foo(?=bar)", r"foo(?!bar)", r"(?<=\$)\d+", r"(?<!-)\b\d+", r"(\w)\1", r"(?P<q>['\"]).*(?P=q)",
    r"(?P<word>\w+) (?P=word)", r"^(a)?(?(1)b|c)$", r"^(?P<x>a)?(?(x)b|c)$", r"(?i)straße", r"(?i)STRASSE",
    r"(?i)^[a-z]+$", r"(?i:AB)c", r"a(?i:b)C", r"(?x) a b  c # comment", r"(?x)[ ]x", r"(?x)a\ b",
    r"a{,2}b", r"^a{,2}$", r"x{}", r"a{2,}", r"a{1,3}?", r"^a++b", r"^(?>a+)b", r"^a*+a",
    r"\x41", r"\u00e9", r"\U0001F600", r"\101", r"\0", r"[\0-\x1f]", r"[\d-]", r"[]a]", r"[^]a]",
    r"[a-]", r"[\w.-]+@[\w-]+\.\w+", r"[[a]", r"[a&&b]", r"[\b]", r"\t", r"[\s]",
    r"(?#comment)abc", r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10", r"(a)\1{2}", r"^$", r"^\n?$", r"\A\Z",
    r"^[A-Z][a-z]+(?: [A-Z][a-z]+)*$", r"^[\u0400-\u04FF]+$", r"^\.\*$", r"^-?\d+(\.\d+)?$",
    r"^\d{4}-\d{2}-\d{2}$", r"(?i)ǅ", r"(?i)[^k]", r"(?i)k", r"é", r"^.$", r"^..$", r"^[^\n]*$",
    r"(?u)\w", r"\$\d", r"a|b|", r"(?m)^b", r"^\W+$", r"[\W\d]", r"[^\W\d]+$",
    r"(?i)(a)\1", r"(?i)^(ab)\1$", r"[^\W\d_]+", r"(?a)\bcaf", r"(?x)a # c\n b", r"(?s:a.)b",
    r"^a{2}+", r"(?i)a(?-i:b)", r"(?m)b$", r"(?m)^$", r"\x5c", r"[\x5d]", r"[\]]", r"(?i)[à-ÿ]",
    r"(?i)ß", r"(?i)ſ", r"(?i)ǆ", r"\d\b", r"\B\d", r"(?a)[\w]+$", r"(?a:\w)\w", r"(?i:[a-c])x",
    r"^(?:a|ab)(?:c|bcd)$", r"(?<=a|b)c", r"(?<!ab)c", r"(a)|b\1?", r"(?:(a)|b)(?(1)c|d)",
    r"[-a]", r"[a\-z]", r"\s\S", r"^\S+$", r"\.\*", r"^.{3,}$", r"^.{,2}$", r"(?#x)(?x)a",
]

TEXTS = [
    "", "123", "٣٤٥", "abc", "abc123", "straße", "STRASSE", "Straße", "café", "naïve", "日本語",
    "hello world", "cat", "concat", "cat\n", "end", "end\n", "end\n\n", "the end\nnext", "a\nb",
    "a b", "foobar", "foobaz", "$42", "-42", " 42", "aa", "abba", "'quoted'", "\"mixed'",
    "hello hello", "ab", "c", "b", "abc ", "ABc", "aBC", "abC", "x y", " x", "a b\tc", "aab",
    "aaab", "aaaa", "A", "é", "😀", "\x00", "\x1f", "\x08", "\t", "\u2003", "\x1c", "\u00a0",
    "abcdefghijj", "\n", "Hello World", "Привет", ".*", "3.14", "2024-01-31", "²", "½", "Ⅻ",
    "ǅ", "ǆ", "K", "\u212a", "k", "user@example.com", "ü@x.de", "a_b", "‿", "é", "-",
    "]", "[", "&", "b\n", "x{}", "\u0301", "१२३",
]


def main():
    seen = set()
    rows = []
    for p in PATTERNS:
        rx = re.compile(p)
        for t in TEXTS:
            if (p, t) in seen:
                continue
            seen.add((p, t))
            verdict = "match" if rx.search(t) is not None else "nomatch"
            rows.append(f"{verdict}\t{json.dumps(p)}\t{json.dumps(t)}")
    with open("src/pycompat/fixtures/re_search.txt", "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
