//! Lists that may be cut: a `<details>` table whose rows share the summary's byte budget.

/// Splits `available` bytes between lists needing `needs` bytes: each gets what it needs when
/// that is below an equal share, the rest split what is left.
pub(super) fn share(needs: &[usize], available: usize) -> Vec<usize> {
    let mut out = vec![0; needs.len()];
    let mut open: Vec<usize> = (0..needs.len()).collect();
    let mut left = available;
    while !open.is_empty() {
        let fair = left / open.len();
        let (small, big): (Vec<usize>, Vec<usize>) = open.iter().partition(|&&i| needs[i] <= fair);
        if small.is_empty() {
            for &i in &open {
                out[i] = fair;
            }
            break;
        }
        for &i in &small {
            out[i] = needs[i];
            left -= needs[i];
        }
        open = big;
    }
    out
}

/// A `<details>` section with a table whose rows may be cut.
pub(super) struct List {
    pub(super) summary: String,
    pub(super) open: bool,
    pub(super) header: &'static str,
    pub(super) rows: Vec<String>,
}

impl List {
    pub(super) fn bytes(&self) -> usize {
        self.rows.iter().map(String::len).sum()
    }

    pub(super) fn render_into(&self, out: &mut String, allotment: usize) {
        if self.rows.is_empty() {
            return;
        }
        let open = if self.open { " open" } else { "" };
        out.push_str(&format!(
            "<details{open}><summary>{}</summary>\n\n{}",
            self.summary, self.header
        ));
        let mut used = 0;
        let mut shown = 0;
        for row in &self.rows {
            if used + row.len() > allotment {
                break;
            }
            out.push_str(row);
            used += row.len();
            shown += 1;
        }
        let more = self.rows.len() - shown;
        if more > 0 {
            out.push_str(&format!("\n… {more} more (see the JSON/JUnit report)\n"));
        }
        out.push_str("\n</details>\n\n");
    }
}
