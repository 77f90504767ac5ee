//! Making program output fit for a report: raw bytes → short, visible, valid text; and any text
//! a report does not write itself → markdown that stays inert where it lands (see [`fence`],
//! [`code_span`], [`table_cell`], [`prose`], [`percent_encode`]).

/// What a report says for the first line of a program that printed nothing at all (not an
/// empty line, which is something).
pub const NOTHING_PRINTED: &str = "(nothing was printed)";

/// How many characters of a first line a report shows.
const FIRST_LINE_CHARS: usize = 160;

/// Shows a line's bytes as a markdown code span, with the whitespace that matters made visible
/// (`␠` for a trailing space, `→` for a tab, `␍` for a carriage return), invalid UTF-8 and control
/// bytes escaped as `\xNN`, and long lines shortened with a count of what was left out. Backticks
/// are kept: the span's own backtick run is chosen longer than any inside ([`code_span`]).
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
            other => shown.push(other),
        }
    }
    code_span(&shown)
}

/// Text for a report: valid UTF-8 kept, anything else (and control bytes but tab, CR and LF)
/// escaped as `\xNN`.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            push_inert(&mut out, c, &['\t', '\r', '\n']);
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

/// How many characters of one message [`terminal`] lets through.
const TERMINAL_CHARS: usize = 2000;

/// Text for the marker's terminal, where some of it came from students (names, file names,
/// build output quoted in an error): every control character but newline and tab escaped as
/// `\xNN` (an escape sequence could retitle the window, write the clipboard or rewrite what
/// was printed; a carriage return could hide a line), direction overrides shown as `\u{…}`,
/// and at most 2,000 characters.
pub fn terminal(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(TERMINAL_CHARS + 32));
    for (count, c) in text.chars().enumerate() {
        if count == TERMINAL_CHARS {
            let rest = text.chars().count() - count;
            out.push_str(&format!("… ({rest} more characters)"));
            break;
        }
        push_inert(&mut out, c, &['\n', '\t']);
    }
    out
}

/// Push `c`, or, for a control character not in `kept`, `\xNN`, and for a direction mark or
/// override `\u{…}` (invisible, and they reorder the text around them on a terminal or a page).
fn push_inert(out: &mut String, c: char, kept: &[char]) {
    if c.is_control() && !kept.contains(&c) {
        out.push_str(&format!("\\x{:02x}", c as u32));
    } else if is_format_control(c) {
        out.push_str(&format!("\\u{{{:04x}}}", c as u32));
    } else {
        out.push(c);
    }
}

/// The invisible characters that change what a reader sees: the marks, embeddings, overrides
/// and isolates of text direction (`U+202E` shows what follows backwards), and the zero-width
/// characters that can hide text between others (zero-width space, word joiner, invisible
/// operators, byte order mark). The joiners (`U+200C`, `U+200D`) are kept: scripts and emoji
/// need them, and they hide nothing.
fn is_format_control(c: char) -> bool {
    matches!(
        c,
        '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{061c}' | '\u{200b}'
            | '\u{2060}'..='\u{2064}' | '\u{feff}'
    )
}

/// `text` with every format control (see `is_format_control`) shown as `\u{…}` (for plain-text
/// outputs, such as a CSV field, that are otherwise written as they are).
pub fn format_controls_shown(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_format_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match is_format_control(c) {
            true => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            false => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The last `max_lines` lines (at most `max_bytes` bytes) of some output, escaped. A line that
/// is a code fence is kept as printed: a report shows the tail in a [`fence`] it cannot close.
pub fn tail(bytes: &[u8], max_lines: usize, max_bytes: usize) -> String {
    let start = bytes.len().saturating_sub(max_bytes);
    let text = escape_bytes(&bytes[start..]);
    let lines: Vec<&str> = text.lines().collect();
    let keep = &lines[lines.len().saturating_sub(max_lines)..];
    let mut out = keep.join("\n");
    if keep.len() < lines.len() || start > 0 {
        out.insert_str(0, "…\n");
    }
    out
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

/// A count and its noun, singular or plural as the count says: `1 submission`, `2 jobs` (the
/// reference's own rule, so that reports and explanations count alike).
pub use bhref::referee::count;

/// Shortens text to `max_chars` characters, saying how much was left out.
pub fn shorten(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        return text.to_string();
    }
    let head: String = text.chars().take(max_chars).collect();
    format!("{head}… ({} more characters)", count - max_chars)
}

// Markdown for text a report does not control (a student's output, build log, file and folder
// names, and, as cheap insurance, a suite's texts). Each building block below is inert in the
// place it is made for: nothing in the text can end the construct early, start a heading, a
// list, a table row or cell, a link, emphasis or raw HTML, or reach a terminal as a control
// sequence. The student's characters are kept and shown, never dropped or swapped for others,
// except where markdown cannot hold them at all: a line break inside inline text shows as `↵`,
// a carriage return as `␍`, other control characters as `\xNN` (as [`escape_bytes`] does).

/// How a line break shows where markdown cannot hold one (a table row is one line; a line
/// break in a paragraph could start a heading or a list on the next line).
const LINE_BREAK: char = '↵';

/// Pushes one character of inline text, with what markdown or a terminal cannot take as it is
/// made visible.
fn push_visible(out: &mut String, c: char) {
    match c {
        '\n' => out.push(LINE_BREAK),
        '\r' => out.push('␍'),
        '\t' => out.push('\t'),
        c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
        c if is_format_control(c) => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
        c => out.push(c),
    }
}

/// The longest run of backticks in `text`.
fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `text` as a markdown code span, outside a table (see [`table_code_span`] for inside one).
///
/// CommonMark ends a span at the first backtick run exactly as long as the one that opened it,
/// so the span's run is one longer than the longest inside; a text that starts or ends with a
/// backtick, or with a space at both ends, gets one space of padding on each side, which
/// CommonMark strips again. Inside a span nothing else is live (no escapes, no HTML). An
/// empty text is shown as a span of one space, so the place it would be stays visible.
pub fn code_span(text: &str) -> String {
    span(text, false)
}

/// `text` as a code span inside a GFM table cell. GitHub (cmark-gfm) and pulldown-cmark split
/// a row on every `|` not preceded by a backslash before they look for code spans, and then
/// drop the backslash of each `\|`, code spans included: so every `|` becomes `\|` here (and
/// shows as `|`), where a plain [`code_span`] would show the backslash.
pub fn table_code_span(text: &str) -> String {
    span(text, true)
}

fn span(text: &str, in_table: bool) -> String {
    let mut body = String::with_capacity(text.len() + 2);
    for c in text.chars() {
        match c {
            '|' if in_table => body.push_str("\\|"),
            c => push_visible(&mut body, c),
        }
    }
    if body.is_empty() {
        body.push(' ');
    }
    let ticks = "`".repeat(longest_backtick_run(&body) + 1);
    let not_all_spaces = body.bytes().any(|b| b != b' ');
    let pad = body.starts_with('`')
        || body.ends_with('`')
        || (body.starts_with(' ') && body.ends_with(' ') && not_all_spaces);
    let space = if pad { " " } else { "" };
    format!("{ticks}{space}{body}{space}{ticks}")
}

/// `text` as a fenced code block with info string `info`, shown line for line as printed.
///
/// Only a line of backticks at least as long as the opening fence closes it, so the fence is
/// one longer than the longest backtick run anywhere in the text (and at least three); a line
/// of tildes never closes a backtick fence. Carriage returns and control characters are made
/// visible as in inline text: a terminal showing the report must not act on them. No newline
/// is added at the end of the block.
pub fn fence(text: &str, info: &str) -> String {
    let mut body = String::with_capacity(text.len() + 1);
    for c in text.chars() {
        match c {
            '\n' => body.push('\n'),
            c => push_visible(&mut body, c),
        }
    }
    if !body.is_empty() && !body.ends_with('\n') {
        body.push('\n');
    }
    let ticks = "`".repeat((longest_backtick_run(&body) + 1).max(3));
    // An info string of a backtick fence may not hold a backtick; it is ours anyway.
    let info: String = info.chars().filter(|&c| c != '`' && !c.is_control()).collect();
    format!("{ticks}{info}\n{body}{ticks}")
}

/// `text` as plain text in a GFM table cell, and so anywhere else inline (a table cell is the
/// strictest inline place: its row must stay one line, and every `|` splits it).
///
/// Backslash escapes, not HTML entities, so that the text reads as itself in a terminal too:
/// `|` `` ` `` `*` `[` `]` `<` `#` `~` always (`\|` is also GFM's way to keep a pipe in a
/// cell, in any inline markup); `_` unless between two letters or digits, where it cannot
/// start emphasis; `&` before what could be an entity; `\` before punctuation or at the end,
/// where it would escape what follows; and at the start, `-` `+` `=` `>` and `1.`/`1)`, which
/// would start a list, heading or quote where the text starts a list item. Line breaks and
/// control characters are shown as in `push_visible`.
pub fn table_cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    push_text(&mut out, text, true);
    out
}

/// Pushes `text` escaped as [`table_cell`] says; `at_start` says whether it begins the cell or
/// line (a piece of [`prose`] after a code span does not).
fn push_text(out: &mut String, text: &str, at_start: bool) {
    let chars: Vec<char> = text.chars().collect();
    let first = chars.iter().position(|c| !matches!(c, ' ' | '\t')).unwrap_or(chars.len());
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let escape = match c {
            // A control character after it shows as `\xNN`: punctuation too.
            '\\' => {
                next.is_none_or(|n| n.is_ascii_punctuation() || (n.is_control() && !matches!(n, '\n' | '\r' | '\t')))
            }
            '|' | '`' | '*' | '[' | ']' | '<' | '#' | '~' => true,
            '_' => !(prev.is_some_and(char::is_alphanumeric) && next.is_some_and(char::is_alphanumeric)),
            '&' => next.is_some_and(|n| n.is_ascii_alphanumeric() || n == '#'),
            '-' | '+' | '=' | '>' => at_start && i == first,
            '.' | ')' => at_start && i > first && chars[first..i].iter().all(char::is_ascii_digit),
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        push_visible(out, c);
    }
}

/// A report's own sentence quoting student text in code spans (an explanation, a first line of
/// output), made inert: it is cut into code spans and text as CommonMark would cut it, and each
/// piece is made again, spans by [`code_span`] and text by [`table_cell`]'s rules, with an
/// unmatched backtick run shown as literal backticks. A student's backticks inside a quote can
/// make the cut differ from what the sentence meant, but every piece comes out inert either way.
pub fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    let mut at_start = true;
    while let Some(open) = rest.find('`') {
        push_text(&mut out, &rest[..open], at_start);
        at_start = false;
        let run = rest[open..].bytes().take_while(|&b| b == b'`').count();
        let after = &rest[open + run..];
        match find_backtick_run(after, run) {
            Some(close) => {
                out.push_str(&code_span(strip_span_padding(&after[..close])));
                rest = &after[close + run..];
            }
            None => {
                out.push_str(&"\\`".repeat(run));
                rest = after;
            }
        }
    }
    push_text(&mut out, rest, at_start);
    out
}

/// Where in `text` a backtick run of exactly `len` backticks starts.
fn find_backtick_run(text: &str, len: usize) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find('`') {
        let start = from + found;
        let run = text[start..].bytes().take_while(|&b| b == b'`').count();
        if run == len {
            return Some(start);
        }
        from = start + run;
    }
    None
}

/// A code span's content as CommonMark shows it: one space off each end when both have one and
/// the content is not all spaces.
fn strip_span_padding(content: &str) -> &str {
    match content.strip_prefix(' ').and_then(|c| c.strip_suffix(' ')) {
        Some(inner) if content.bytes().any(|b| b != b' ') => inner,
        _ => content,
    }
}

/// A part of a relative link (a file name, or with `/` in `keep` a path): every byte but letters,
/// digits, `-._~` (RFC 3986's unreserved ones) and `keep` percent-encoded, so that spaces,
/// parentheses, `<`, `>`, `#`, `?` and `%` in a student's name neither end the link nor change
/// where it points; readers decode it back to the file's name.
pub fn percent_encode(text: &str, keep: &[u8]) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) || keep.contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests;
