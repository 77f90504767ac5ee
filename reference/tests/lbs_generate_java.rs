//! `bhref::latebinding::generate` against `java.util.Random` itself: the doc's description of the
//! 2022 starter's `GEN` (`late-binding.md`, "The starter's generator") written as a small Java
//! program, compiled with `javac` and run with `java`, compared byte for byte.
//!
//! Input: the Java program below and a list of (seed, piles, ranks, suits) cases: 400 seeds of
//! the course's families and defaults, edge cases (extreme and negative seeds, more piles than
//! cards, no piles, one-card decks) and large decks whose `nextInt` bounds take the rejection
//! loop. Output: pass, or the first case whose text differs. Skipped, with a message, when no
//! JDK is installed. (The doc describes the starter in words, not as source: this checks the
//! Rust port of `java.util.Random` and the reading of the algorithm, with one JVM for all
//! cases.)

use std::io::Write;
use std::process::{Command, Stdio};

use bhref::latebinding::generate::generate;

/// The doc's algorithm, one case per input line `seed P R S`, each output ended by a line `%%`.
const JAVA: &str = r#"
import java.io.*;
import java.util.*;

public class LbsGen {
    static String gen(long seed, int p, int r, int s) {
        int n = r * s;
        int[] cards = new int[n];
        for (int i = 0; i < n; i++) cards[i] = i + 1;
        Random rnd = new Random(seed);
        for (int i = 0; i <= n - 2; i++) {
            int j = i + rnd.nextInt(n - i);
            int t = cards[i]; cards[i] = cards[j]; cards[j] = t;
        }
        StringBuilder out = new StringBuilder();
        out.append(r).append(' ').append(s).append(' ').append(p).append('\n');
        for (int i = 0; i < Math.min(p, n); i++) out.append(cards[i]).append(' ');
        out.append('\n');
        return out.toString();
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "US-ASCII");
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split(" ");
            out.print(gen(Long.parseLong(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3])));
            out.print("%%\n");
        }
        out.flush();
    }
}
"#;

fn have_jdk() -> bool {
    let works = |tool: &str| Command::new(tool).arg("-version").output().is_ok_and(|o| o.status.success());
    works("javac") && works("java")
}

/// (seed, piles, ranks, suits)
fn cases() -> Vec<(i64, u32, u32, u32)> {
    let mut cases = Vec::new();
    for seed in 1..=400 {
        for &(p, r, s) in &[(24, 8, 3), (16, 10, 6), (17, 13, 4)] {
            cases.push((seed, p, r, s));
        }
    }
    cases.extend([
        (i64::MAX, 17, 13, 4),
        (i64::MIN, 17, 13, 4),
        (-1, 17, 13, 4),
        (0, 60, 10, 6),
        (7, 61, 10, 6),         // more piles than cards: the whole deck under the given P
        (7, 0, 10, 6),          // no piles
        (3, 5, 1, 1),           // a one-card deck: nothing to shuffle
        (3, 2, 2, 1),           // two cards: one draw
        (9, 40, 1, 52),         // one rank
        (11, 30, 1000, 1000),   // bounds near 10^6: the rejection loop of nextInt
        (12, 30, 1, 1_000_000), // the largest deck `bhref GEN` accepts
        (13, 5, 3, 2),
    ]);
    cases
}

#[test]
fn generate_matches_java_byte_for_byte() {
    if !have_jdk() {
        eprintln!("SKIPPED generate_matches_java_byte_for_byte: no `javac`/`java` on PATH");
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    std::fs::write(dir.path().join("LbsGen.java"), JAVA).unwrap();
    let javac = Command::new("javac").arg("-d").arg(dir.path()).arg(dir.path().join("LbsGen.java")).output().unwrap();
    assert!(javac.status.success(), "javac failed:\n{}", String::from_utf8_lossy(&javac.stderr));

    let cases = cases();
    let input: String = cases.iter().map(|(seed, p, r, s)| format!("{seed} {p} {r} {s}\n")).collect();
    let mut java = Command::new("java")
        .arg("-cp")
        .arg(dir.path())
        .arg("LbsGen")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("java runs");
    let mut stdin = java.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = java.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(output.status.success(), "java failed:\n{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).expect("ASCII");
    let outputs: Vec<&str> = text.split("%%\n").collect();
    assert_eq!(outputs.len(), cases.len() + 1, "one output per case, then nothing");
    for (&(seed, p, r, s), java) in cases.iter().zip(outputs) {
        assert_eq!(generate(seed, p, r, s), java, "GEN {seed} {p} {r} {s}");
    }
}
