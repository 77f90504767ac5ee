//! Making program output fit for a report: raw bytes → short, visible, valid text.

/// What a report says for the first line of a program that printed nothing at all (not an
/// empty line, which is something).
pub const NOTHING_PRINTED: &str = "(nothing was printed)";

/// How many characters of a first line a report shows.
const FIRST_LINE_CHARS: usize = 160;

/// Shows a line's bytes as a markdown code span, with the whitespace that matters made visible
/// (`␠` for a trailing space, `→` for a tab, `␍` for a carriage return), invalid UTF-8 and control
/// bytes escaped as `\xNN`, and long lines shortened with a count of what was left out.
pub fn visible_line(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "(an empty line)".to_string();
    }
    let text = escape_bytes(bytes);
    let trimmed_len = text.trim_end_matches(' ').len();
    let mut shown = String::new();
    for (count, (index, c)) in text.char_indices().enumerate() {
        if count == FIRST_LINE_CHARS {
            let rest = text[index..].chars().count();
            shown.push_str(&format!("… ({rest} more characters)"));
            break;
        }
        match c {
            ' ' if index >= trimmed_len => shown.push('␠'),
            '\t' => shown.push('→'),
            '\r' => shown.push('␍'),
            '`' => shown.push('\''),
            other => shown.push(other),
        }
    }
    format!("`{shown}`")
}

/// Text for a report: valid UTF-8 kept, anything else (and control bytes but tab, CR and LF)
/// escaped as `\xNN`.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() && !matches!(c, '\t' | '\r' | '\n') {
                out.push_str(&format!("\\x{:02x}", c as u32));
            } else {
                out.push(c);
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

/// The last `max_lines` lines (at most `max_bytes` bytes) of some output, escaped.
pub fn tail(bytes: &[u8], max_lines: usize, max_bytes: usize) -> String {
    let start = bytes.len().saturating_sub(max_bytes);
    let text = escape_bytes(&bytes[start..]);
    let lines: Vec<&str> = text.lines().collect();
    let keep = &lines[lines.len().saturating_sub(max_lines)..];
    let mut out = keep.join("\n");
    if keep.len() < lines.len() || start > 0 {
        out.insert_str(0, "…\n");
    }
    // A fence inside the tail would end the report's code block early.
    out.replace("```", "'''")
}

/// Shortens a file's text to its first `max_lines` lines and `max_chars` characters, saying how
/// much was left out (a puzzle is shown whole when small, its start when large).
pub fn shorten_lines(text: &str, max_lines: usize, max_chars: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let kept = lines[..lines.len().min(max_lines)].join("\n");
    let shown = shorten(&kept, max_chars);
    match lines.len().saturating_sub(max_lines) {
        0 => shown,
        more => format!("{shown}\n… ({})", count(more, "more line")),
    }
}

/// A count and its noun, singular or plural as the count says: `1 submission`, `2 jobs`.
pub fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{n} {noun}s"),
    }
}

/// Shortens text to `max_chars` characters, saying how much was left out.
pub fn shorten(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        return text.to_string();
    }
    let head: String = text.chars().take(max_chars).collect();
    format!("{head}… ({} more characters)", count - max_chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_whitespace_and_bad_bytes_are_visible() {
        assert_eq!(visible_line(b"true "), "`true␠`");
        assert_eq!(visible_line(b"1 2\t3\r"), "`1 2→3␍`");
        assert_eq!(visible_line(b"a\xffb\0"), "`a\\xffb\\x00`");
        assert_eq!(visible_line(b""), "(an empty line)");
    }

    #[test]
    fn long_lines_are_shortened() {
        let line = vec![b'7'; 1000];
        let shown = visible_line(&line);
        assert!(shown.ends_with("… (840 more characters)`"), "{shown}");
    }

    #[test]
    fn files_are_shortened_by_lines() {
        assert_eq!(shorten_lines("1\n2\n3\n", 2, 100), "1\n2\n… (1 more line)");
        assert_eq!(shorten_lines("1 2 3\n", 5, 100), "1 2 3");
    }

    #[test]
    fn tails_keep_the_end() {
        assert_eq!(tail(b"a\nb\nc\n", 2, 100), "…\nb\nc");
        assert_eq!(tail(b"a\nb", 5, 100), "a\nb");
    }
}
