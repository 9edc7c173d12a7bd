//! A small box-drawing table for the console report: columns sized to their content, wrapped to
//! a total width, optional ANSI colour per cell. Cell text must already be cleaned
//! ([`super::escape::clean`]); tabs are shown as spaces.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// ANSI styles the console uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Paint {
    /// Green (PASS).
    Green,
    /// Red (FAIL).
    Red,
    /// Bold red (ERROR, FAILED).
    RedBold,
    /// Yellow (WARN).
    Yellow,
    /// Dimmed (SKIP).
    Dim,
    /// Bold (headers).
    Bold,
    /// Bold green (PASSED).
    GreenBold,
}

impl Paint {
    fn code(self) -> &'static str {
        match self {
            Paint::Green => "\x1b[32m",
            Paint::Red => "\x1b[31m",
            Paint::RedBold => "\x1b[1;31m",
            Paint::Yellow => "\x1b[33m",
            Paint::Dim => "\x1b[2m",
            Paint::Bold => "\x1b[1m",
            Paint::GreenBold => "\x1b[1;32m",
        }
    }

    /// `text` wrapped in this style when `color`, else unchanged.
    pub(super) fn paint(self, text: &str, color: bool) -> String {
        if color && !text.is_empty() {
            format!("{}{text}\x1b[0m", self.code())
        } else {
            text.to_string()
        }
    }
}

/// One cell: text and an optional style.
#[derive(Debug, Clone)]
pub(super) struct Cell {
    text: String,
    paint: Option<Paint>,
}

impl Cell {
    /// A plain cell.
    pub(super) fn new(text: impl Into<String>) -> Self {
        Cell {
            text: text.into().replace('\t', "    "),
            paint: None,
        }
    }

    /// A styled cell.
    pub(super) fn painted(text: impl Into<String>, paint: Paint) -> Self {
        Cell {
            paint: Some(paint),
            ..Cell::new(text)
        }
    }
}

/// Column options.
#[derive(Debug, Clone, Copy)]
pub(super) struct Column {
    header: &'static str,
    right: bool,
    wrap: bool,
}

impl Column {
    /// A left-aligned column that wraps.
    pub(super) fn text(header: &'static str) -> Self {
        Column {
            header,
            right: false,
            wrap: true,
        }
    }

    /// A right-aligned column kept at its natural width.
    pub(super) fn fixed_right(header: &'static str) -> Self {
        Column {
            header,
            right: true,
            wrap: false,
        }
    }

    /// A left-aligned column kept at its natural width.
    pub(super) fn fixed(header: &'static str) -> Self {
        Column {
            header,
            right: false,
            wrap: false,
        }
    }
}

/// A table under construction.
#[derive(Debug, Clone)]
pub(super) struct Table {
    columns: Vec<Column>,
    rows: Vec<Vec<Cell>>,
}

impl Table {
    /// An empty table with these columns.
    pub(super) fn new(columns: Vec<Column>) -> Self {
        Table {
            columns,
            rows: Vec::new(),
        }
    }

    /// Adds a row (missing cells are empty, extra cells dropped).
    pub(super) fn row(&mut self, mut cells: Vec<Cell>) {
        cells.resize_with(self.columns.len(), || Cell::new(""));
        self.rows.push(cells);
    }

    /// Draws the table at most `width` columns wide (unless even one character per column does
    /// not fit), each line ending with `\n`.
    pub(super) fn render(&self, width: usize, color: bool) -> String {
        let widths = self.widths(width);
        let mut out = String::new();
        border(&mut out, &widths, '┌', '┬', '┐');
        let header: Vec<Cell> = self
            .columns
            .iter()
            .map(|c| Cell {
                text: c.header.to_string(),
                paint: Some(Paint::Bold),
            })
            .collect();
        self.draw_row(&mut out, &header, &widths, color);
        border(&mut out, &widths, '├', '┼', '┤');
        for row in &self.rows {
            self.draw_row(&mut out, row, &widths, color);
        }
        border(&mut out, &widths, '└', '┴', '┘');
        out
    }

    fn widths(&self, width: usize) -> Vec<usize> {
        let n = self.columns.len();
        let natural: Vec<usize> = (0..n)
            .map(|i| {
                let cells = self.rows.iter().map(|r| text_width(&r[i].text));
                cells
                    .chain(std::iter::once(self.columns[i].header.width()))
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let available = width.saturating_sub(3 * n + 1);
        if natural.iter().sum::<usize>() <= available {
            return natural;
        }
        let mut widths = natural.clone();
        let fixed: usize = (0..n)
            .filter(|&i| !self.columns[i].wrap)
            .map(|i| natural[i])
            .sum();
        let mut left = available.saturating_sub(fixed);
        let mut open: Vec<usize> = (0..n).filter(|&i| self.columns[i].wrap).collect();
        // Columns narrower than a fair share keep their width; the rest share what is left.
        loop {
            if open.is_empty() {
                break;
            }
            let share = left / open.len();
            let (small, big): (Vec<usize>, Vec<usize>) =
                open.iter().partition(|&&i| natural[i] <= share);
            if small.is_empty() {
                let extra = left - share * open.len();
                for (k, &i) in open.iter().enumerate() {
                    widths[i] = (share + usize::from(k < extra)).max(1);
                }
                break;
            }
            for &i in &small {
                left -= natural[i];
            }
            open = big;
        }
        widths
    }

    fn draw_row(&self, out: &mut String, cells: &[Cell], widths: &[usize], color: bool) {
        let wrapped: Vec<Vec<String>> = cells
            .iter()
            .zip(widths)
            .map(|(c, &w)| wrap(&c.text, w))
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1).max(1);
        for line in 0..height {
            out.push('│');
            for (i, lines) in wrapped.iter().enumerate() {
                let text = lines.get(line).map_or("", String::as_str);
                let pad = widths[i].saturating_sub(text.width());
                out.push(' ');
                if self.columns[i].right {
                    out.extend(std::iter::repeat_n(' ', pad));
                }
                match cells[i].paint {
                    Some(p) if color => out.push_str(&p.paint(text, color)),
                    _ => out.push_str(text),
                }
                if !self.columns[i].right {
                    out.extend(std::iter::repeat_n(' ', pad));
                }
                out.push_str(" │");
            }
            out.push('\n');
        }
    }
}

fn border(out: &mut String, widths: &[usize], left: char, mid: char, right: char) {
    out.push(left);
    for (i, w) in widths.iter().enumerate() {
        if i > 0 {
            out.push(mid);
        }
        out.push_str(&"─".repeat(w + 2));
    }
    out.push(right);
    out.push('\n');
}

fn text_width(text: &str) -> usize {
    text.lines().map(UnicodeWidthStr::width).max().unwrap_or(0)
}

/// Word-wraps `text` to `width` display columns; words longer than a line are split.
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for source in text.split('\n') {
        // A line that fits is itself, less its trailing spaces (leading ones always go).
        if !source.starts_with(' ') && source.width() <= width {
            lines.push(source.trim_end().to_owned());
            continue;
        }
        let mut line = String::new();
        let mut line_w = 0;
        for word in source.split(' ') {
            let word_w = word.width();
            let sep = usize::from(!line.is_empty());
            if line_w + sep + word_w <= width {
                if sep == 1 {
                    line.push(' ');
                }
                line.push_str(word);
                line_w += sep + word_w;
                continue;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                line_w = 0;
            }
            if word_w <= width {
                line.push_str(word);
                line_w = word_w;
                continue;
            }
            for c in word.chars() {
                let cw = c.width().unwrap_or(0);
                if line_w + cw > width && !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                    line_w = 0;
                }
                line.push(c);
                line_w += cw;
            }
        }
        lines.push(line.trim_end().to_string());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_spaces_and_splits_long_words() {
        assert_eq!(wrap("aaa bbb ccc", 7), ["aaa bbb", "ccc"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a\nb", 10), ["a", "b"]);
        assert_eq!(wrap("", 3), [""]);
        // Spacing inside a line is kept, at its ends it goes, whether the line fits or not.
        assert_eq!(wrap("a  b ", 10), ["a  b"]);
        assert_eq!(wrap(" a  b ", 10), ["a  b"]);
    }

    #[test]
    fn wrap_counts_display_width() {
        assert_eq!(wrap("日本語テキスト", 6), ["日本語", "テキス", "ト"]);
    }

    #[test]
    fn table_fits_the_width() {
        let mut t = Table::new(vec![
            Column::fixed(""),
            Column::text("Name"),
            Column::text("Details"),
        ]);
        t.row(vec![
            Cell::new("PASS"),
            Cell::new("short"),
            Cell::new("a long details text that will not fit in forty columns at all"),
        ]);
        let out = t.render(40, false);
        for line in out.lines() {
            assert!(line.width() <= 40, "{line:?} is too wide");
        }
        assert!(out.contains("│ PASS │ short │"), "{out}");
    }

    #[test]
    fn natural_width_when_it_fits() {
        let mut t = Table::new(vec![Column::text("A"), Column::fixed_right("Time")]);
        t.row(vec![Cell::new("x"), Cell::new("5ms")]);
        assert_eq!(
            t.render(80, false),
            "┌───┬──────┐\n│ A │ Time │\n├───┼──────┤\n│ x │  5ms │\n└───┴──────┘\n"
        );
    }

    #[test]
    fn colour_only_when_asked() {
        let mut t = Table::new(vec![Column::fixed("")]);
        t.row(vec![Cell::painted("FAIL", Paint::Red)]);
        assert!(!t.render(80, false).contains('\x1b'));
        assert!(t.render(80, true).contains("\x1b[31mFAIL\x1b[0m"));
    }
}
