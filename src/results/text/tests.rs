//! The text building blocks' tests: what a terminal, markdown and CSV are shown.

use super::*;

#[test]
fn terminal_text_keeps_lines_and_escapes_what_a_terminal_obeys() {
    assert_eq!(terminal("a\tb\nc"), "a\tb\nc");
    assert_eq!(terminal("\x1b]0;owned\x07x\ry"), "\\x1b]0;owned\\x07x\\x0dy");
    assert_eq!(terminal("\u{202e}txt"), "\\u{202e}txt");
    let long = terminal(&"é".repeat(2500));
    assert!(long.ends_with("… (500 more characters)"), "{long}");
}

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

#[test]
fn direction_overrides_are_shown_not_obeyed() {
    assert_eq!(escape_bytes("abc\u{202e}fed".as_bytes()), "abc\\u{202e}fed");
    assert_eq!(escape_bytes("\u{2066}x\u{2069}".as_bytes()), "\\u{2066}x\\u{2069}");
    assert_eq!(escape_bytes("é → ✓".as_bytes()), "é → ✓");
    assert_eq!(terminal("a\u{200b}b\u{feff}"), "a\\u{200b}b\\u{feff}");
    assert_eq!(prose("evil\u{202e}txt.exe"), "evil\\u{202e}txt.exe");
    assert_eq!(table_cell("x\u{2066}y"), "x\\u{2066}y");
    assert_eq!(format_controls_shown("Zoë \u{202e}1.00"), "Zoë \\u{202e}1.00");
    // Joiners are kept: scripts and emoji need them.
    assert_eq!(terminal("क्\u{200d}ष"), "क्\u{200d}ष");
}

#[test]
fn tails_keep_a_printed_fence_as_printed() {
    assert_eq!(tail(b"```\n# x\n", 5, 100), "```\n# x");
}

#[test]
fn code_spans_outrun_the_backticks_inside() {
    assert_eq!(code_span("true"), "`true`");
    assert_eq!(code_span("a`b"), "``a`b``");
    assert_eq!(code_span("``` x"), "```` ``` x ````");
    assert_eq!(code_span("x`"), "`` x` ``");
    assert_eq!(code_span(" a "), "`  a  `");
    assert_eq!(code_span("  "), "`  `");
    assert_eq!(code_span(""), "` `");
    assert_eq!(code_span("a\nb\r\x1b"), "`a↵b␍\\x1b`");
    assert_eq!(code_span("a|b"), "`a|b`");
    assert_eq!(table_code_span("a|b"), "`a\\|b`");
    assert_eq!(visible_line(b"a`b "), "``a`b␠``");
}

#[test]
fn fences_outrun_the_backticks_inside() {
    assert_eq!(fence("a\nb", "text"), "```text\na\nb\n```");
    assert_eq!(fence("```\n# x\n", "text"), "````text\n```\n# x\n````");
    assert_eq!(fence("", "sh"), "```sh\n```");
    assert_eq!(fence("\x1b[2J\r", "`x"), "```x\n\\x1b[2J␍\n```");
}

#[test]
fn table_cells_escape_what_would_be_live() {
    assert_eq!(table_cell("a | b"), "a \\| b");
    assert_eq!(table_cell("<script>alert(1)</script>"), "\\<script>alert(1)\\</script>");
    assert_eq!(table_cell("# h"), "\\# h");
    assert_eq!(table_cell("- x"), "\\- x");
    assert_eq!(table_cell(" 12) x"), " 12\\) x");
    assert_eq!(table_cell("x - 1. y"), "x - 1. y");
    assert_eq!(table_cell("[x](y)"), "\\[x\\](y)");
    assert_eq!(table_cell("snake_case *bold* _it_"), "snake_case \\*bold\\* \\_it\\_");
    assert_eq!(table_cell("a\\b a\\* a\\"), "a\\b a\\\\\\* a\\\\");
    assert_eq!(table_cell("&amp; & ~~s~~"), "\\&amp; & \\~\\~s\\~\\~");
    assert_eq!(table_cell("a\r\nb\x1b[31m"), "a␍↵b\\x1b\\[31m");
    assert_eq!(table_cell("\\\x1b"), "\\\\\\x1b");
    assert_eq!(table_cell("Part 1 - Checking Solutions: build.sh (x)"), "Part 1 - Checking Solutions: build.sh (x)");
}

#[test]
fn prose_keeps_its_code_spans_and_escapes_the_rest() {
    let plain = "the first line must be exactly `true` or `false`, but it is `TRUE`";
    assert_eq!(prose(plain), plain);
    assert_eq!(prose("it is `a`b`<i>"), "it is `a`b\\`\\<i>");
    assert_eq!(prose("it is `` a`b ``"), "it is ``a`b``");
    assert_eq!(prose("`` x"), "\\`\\` x");
    assert_eq!(prose("# `x` | y"), "\\# `x` \\| y");
    assert_eq!(prose(NOTHING_PRINTED), NOTHING_PRINTED);
    assert_eq!(prose(&visible_line(b"``` # <b> `")), visible_line(b"``` # <b> `"));
}

#[test]
fn link_targets_percent_encode_all_but_plain_characters() {
    assert_eq!(percent_encode("students/a-b_c.1~.md", b"/"), "students/a-b_c.1~.md");
    assert_eq!(percent_encode("students/a b(c)<d>%E9.md", b"/"), "students/a%20b%28c%29%3Cd%3E%25E9.md");
    assert_eq!(percent_encode("é", b"/"), "%C3%A9");
    assert_eq!(percent_encode("a b#c?d%é/.md", b""), "a%20b%23c%3Fd%25%C3%A9%2F.md");
}

mod parsed {
    //! The building blocks through a real CommonMark parser (GFM tables and strikethrough
    //! on), over texts made of what markdown gives meaning to.
    use super::super::*;
    use proptest::prelude::*;
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

    fn events(markdown: &str) -> Vec<Event<'_>> {
        Parser::new_ext(markdown, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH).collect()
    }

    /// The text as inline markdown shows it: line breaks and control characters visible.
    fn visible(text: &str) -> String {
        let mut out = String::new();
        text.chars().for_each(|c| push_visible(&mut out, c));
        out
    }

    /// What the events between the first `start` and its end say, and whether any of them
    /// is something other than text or code.
    fn inside<'a>(events: &'a [Event<'a>], start: &Tag, end: TagEnd) -> (String, Vec<&'a Event<'a>>) {
        let from = events.iter().position(|e| e == &Event::Start(start.clone())).expect("the construct") + 1;
        let to = from + events[from..].iter().position(|e| e == &Event::End(end)).expect("its end");
        let mut text = String::new();
        let mut other = Vec::new();
        for event in &events[from..to] {
            match event {
                Event::Text(t) | Event::Code(t) => text.push_str(t),
                other_event => other.push(other_event),
            }
        }
        (text, other)
    }

    /// What a table shows of `cell` as the first cell of its one body row.
    struct TableCell {
        markdown: String,
        /// The cell's text and code.
        shown: String,
        /// Any other event inside the cell.
        other: Vec<String>,
        /// Cells in the body row: 2, unless the text split its cell.
        cells_in_row: usize,
        /// Rows in the table's body: 1, unless the text broke its row.
        body_rows: usize,
    }

    fn in_table(cell: &str) -> TableCell {
        let markdown = format!("| h | i |\n|---|---|\n| {cell} | z |\n");
        let events = events(&markdown);
        let (_, row) = inside(&events, &Tag::TableRow, TagEnd::TableRow);
        let body = events.iter().position(|e| e == &Event::Start(Tag::TableRow)).expect("a row");
        let (shown, other) = inside(&events[body..], &Tag::TableCell, TagEnd::TableCell);
        TableCell {
            shown,
            other: other.iter().map(|event| format!("{event:?}")).collect(),
            cells_in_row: row.iter().filter(|e| matches!(e, Event::Start(Tag::TableCell))).count(),
            body_rows: events.iter().filter(|e| matches!(e, Event::Start(Tag::TableRow))).count(),
            markdown,
        }
    }

    fn hostile() -> impl Strategy<Value = String> {
        let chars = vec![
            '`', '`', '`', '|', '\\', '<', '>', '[', ']', '(', ')', '#', '*', '_', '~', '&', '!', '-', '+', '=', '.',
            ':', ';', '/', 'a', 'b', '1', ' ', ' ', '\n', '\r', '\t', '\x1b', '\u{85}', 'é',
        ];
        prop::collection::vec(prop::sample::select(chars), 0..40).prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #[test]
        fn a_code_span_is_one_span_of_the_text(text in hostile()) {
            let markdown = format!("x {} y", code_span(&text));
            let events = events(&markdown);
            let shown = if text.is_empty() { " ".to_string() } else { visible(&text) };
            prop_assert_eq!(&events[2], &Event::Code(shown.into()), "{}", markdown);
            prop_assert_eq!(events.len(), 5, "{}", markdown);
        }

        #[test]
        fn a_table_code_span_is_one_span_of_the_text(text in hostile()) {
            let cell = in_table(&table_code_span(&text));
            prop_assert!(cell.other.is_empty(), "{:?} in {}", cell.other, cell.markdown);
            prop_assert_eq!(cell.cells_in_row, 2);
            prop_assert_eq!(cell.shown, if text.is_empty() { " ".to_string() } else { visible(&text) });
        }

        #[test]
        fn a_table_cell_is_one_cell_of_plain_text(text in hostile()) {
            let cell = in_table(&table_cell(&text));
            prop_assert!(cell.other.is_empty(), "{:?} in {}", cell.other, cell.markdown);
            prop_assert_eq!(cell.cells_in_row, 2);
            prop_assert_eq!(cell.body_rows, 1);
            let expected = visible(&text);
            prop_assert_eq!(cell.shown.as_str(), expected.trim_matches([' ', '\t']));
        }

        #[test]
        fn a_fence_holds_the_whole_text(text in hostile()) {
            let markdown = format!("before\n\n{}\n\nafter\n", fence(&text, "text"));
            let events = events(&markdown);
            let block = Tag::CodeBlock(pulldown_cmark::CodeBlockKind::Fenced("text".into()));
            let (shown, other) = inside(&events, &block, TagEnd::CodeBlock);
            prop_assert!(other.is_empty(), "{:?} in {}", other, markdown);
            let mut body: String = text.split('\n').map(visible).collect::<Vec<_>>().join("\n");
            if !body.is_empty() && !body.ends_with('\n') {
                body.push('\n');
            }
            prop_assert_eq!(shown, body);
            prop_assert_eq!(events.iter().filter(|e| matches!(e, Event::Start(Tag::Paragraph))).count(), 2);
        }

        #[test]
        fn prose_in_a_list_item_stays_text_and_code(text in hostile(), lead in prop::bool::ANY) {
            let lead = if lead { "" } else { "Why: " };
            let markdown = format!("- {lead}{}\n", prose(&text));
            let events = events(&markdown);
            let (shown, other) = inside(&events, &Tag::Item, TagEnd::Item);
            // Four spaces at the start of an item make an indented code block: inert too.
            let inert = |e: &&Event| matches!(e, Event::Start(Tag::CodeBlock(_)) | Event::End(TagEnd::CodeBlock));
            prop_assert!(other.iter().all(inert), "{:?} in {}", other, markdown);
            prop_assert_eq!(events.iter().filter(|e| matches!(e, Event::Start(Tag::Item))).count(), 1);
            let kept = |s: &str| s.chars().filter(|c| !matches!(c, ' ' | '\t' | '`')).collect::<String>();
            if other.is_empty() {
                prop_assert_eq!(kept(&shown), kept(&format!("{lead}{}", visible(&text))), "{}", markdown);
            }
        }

        #[test]
        fn a_link_goes_where_it_says(name in hostile()) {
            let path = format!("students/{name}.md");
            let markdown = format!("| [{}]({}) |\n|---|\n", table_cell(&name), percent_encode(&path, b"/"));
            let events = events(&markdown);
            let links: Vec<&Event> = events.iter().filter(|e| matches!(e, Event::Start(Tag::Link { .. }))).collect();
            prop_assert_eq!(links.len(), 1, "{}", markdown);
            let Event::Start(Tag::Link { dest_url, .. }) = links[0] else { unreachable!() };
            prop_assert_eq!(percent_decode(dest_url), path.into_bytes());
        }
    }

    fn percent_decode(text: &str) -> Vec<u8> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' {
                out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).expect("two hex digits"));
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        out
    }
}
