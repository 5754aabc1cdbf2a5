//! A small unified diff (longest common subsequence, 3 lines of context),
//! used for "what changed since the last chapter" and `just diff`.

/// `None` when equal; otherwise a unified diff with `---`/`+++` headers.
pub fn unified(old_name: &str, new_name: &str, old: &str, new: &str) -> Option<String> {
    if old == new {
        return None;
    }
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = edit_script(&a, &b);
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    const CONTEXT: usize = 3;
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| !matches!(op, Op::Same(..)))
        .map(|(i, _)| i)
        .collect();
    let mut index = 0;
    while index < changed.len() {
        // Grow a hunk while the next change is within 2 × CONTEXT lines.
        let start = changed[index].saturating_sub(CONTEXT);
        let mut last = changed[index];
        while index + 1 < changed.len() && changed[index + 1] <= last + 2 * CONTEXT {
            index += 1;
            last = changed[index];
        }
        let end = (last + CONTEXT + 1).min(ops.len());
        let (old_start, new_start) = position(&ops[..start]);
        let (old_len, new_len) = position(&ops[start..end]);
        out += &format!(
            "@@ -{},{old_len} +{},{new_len} @@\n",
            old_start + 1,
            new_start + 1
        );
        for op in &ops[start..end] {
            out += &match op {
                Op::Same(line) => format!(" {line}\n"),
                Op::Removed(line) => format!("-{line}\n"),
                Op::Added(line) => format!("+{line}\n"),
            };
        }
        index += 1;
    }
    Some(out)
}

enum Op<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// How many old and new lines a run of operations covers.
fn position(ops: &[Op<'_>]) -> (usize, usize) {
    ops.iter().fold((0, 0), |(old, new), op| match op {
        Op::Same(_) => (old + 1, new + 1),
        Op::Removed(_) => (old + 1, new),
        Op::Added(_) => (old, new + 1),
    })
}

fn edit_script<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Op<'a>> {
    // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::new();
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push(Op::Same(a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(Op::Removed(a[i])); // Removals first, as `diff -u` shows them.
            i += 1;
        } else {
            ops.push(Op::Added(b[j]));
            j += 1;
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::unified;

    #[test]
    fn shows_a_change_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(
            unified("old", "new", old, new).unwrap(),
            "--- old\n+++ new\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
        assert_eq!(unified("old", "new", old, old), None);
    }
}
