//! Text made of tokens, for both games' parser property tests: tokens joined as hand-written
//! or Windows files join them, and where a token stands, found the simple way (independently
//! of the parsers' tokenizer).

#![allow(dead_code)] // each test uses what it needs

/// Joins tokens with separators drawn from `seps`, as hand-written or Windows files do.
pub fn join(tokens: &[String], seps: &[usize]) -> String {
    const SEPARATORS: [&str; 6] = [" ", "\n", "\r\n", "\t", "  ", " \r\n\n"];
    let mut text = String::new();
    for (i, token) in tokens.iter().enumerate() {
        if i > 0 {
            text.push_str(SEPARATORS[seps[i % seps.len()] % SEPARATORS.len()]);
        }
        text.push_str(token);
    }
    text
}

/// The 1-based line and column where token `index` of `text` starts, found the simple way,
/// independently of the parser's tokenizer.
pub fn position_of_token(text: &str, index: usize) -> (usize, usize) {
    let (mut line, mut column, mut count, mut in_token) = (1, 1, 0, false);
    for c in text.chars() {
        let space = c.is_ascii_whitespace();
        if !space && !in_token {
            if count == index {
                return (line, column);
            }
            count += 1;
        }
        in_token = !space;
        if c == '\n' {
            line += 1;
            column = 1;
        } else if c != '\r' {
            column += 1;
        }
    }
    panic!("no token {index}");
}

/// The position just past the end of `text`.
pub fn end_of(text: &str) -> (usize, usize) {
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines.last().unwrap();
    (lines.len(), last.chars().filter(|&c| c != '\r').count() + 1)
}
