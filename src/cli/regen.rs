//! `bhgrade regen`: a suite folder → the folder brought up to date (a table of every test's
//! answer, the files written and removed), with `--check` the differences named, with `--verify`
//! a row per solve test as the second oracle gives its opinion, then the tests refused.

use bhgrade::regen;
use bhgrade::results::text::terminal;
use bhref::referee::{agreeing, count};

use super::args::RegenArgs;
use super::CliError;

/// `bhgrade regen [--check | --verify]`.
pub(super) fn run(args: RegenArgs) -> Result<super::exit::Exit, CliError> {
    // An organiser's own folder, or a bundled suite by its name (regenerated where it is found).
    let dir = super::suites::suite_dir(&args.suite)?;
    if args.verify {
        return Ok(verify(&dir)?);
    }
    if args.check {
        let differences = regen::check(&dir)?;
        for difference in &differences {
            // What the suite's files hold reaches the terminal inert (no escape sequence acts).
            bhgrade::say!("{}", terminal(&difference.to_string()));
        }
        if differences.is_empty() {
            bhgrade::say!("{}: up to date with the reference", dir.display());
            return floor(&dir, true);
        }
        bhgrade::say!(
            "{}: {} difference(s); run `bhgrade regen --suite {}`",
            dir.display(),
            differences.len(),
            dir.display()
        );
        return Ok(super::exit::Exit::NotPassed);
    }
    let done = regen::regenerate(&dir)?;
    bhgrade::tell!("| test | kind | answer | nodes | derived |\n|---|---|---|---|---|");
    for test in &done.tests {
        let derived = test.derived.map_or("", |rule| rule.name());
        bhgrade::tell!("| {} | {} | {} | {} | {derived} |", test.id, test.kind, test.answer, test.nodes);
    }
    for file in &done.written {
        bhgrade::say!("wrote {file}");
    }
    for file in &done.removed {
        bhgrade::say!("removed {file} (no test derives it)");
    }
    bhgrade::say!("{}: {} tests up to date", dir.display(), done.tests.len());
    // Regenerating is done either way; the floor check is said here and enforced by `--check`.
    floor(&dir, false)?;
    Ok(super::exit::Exit::Success)
}

/// The floor check of the suite in `dir`: a table of what each program that never reads its
/// input earns, and (when `enforced`) a failure when any earns more than the suite's
/// `trivial_ceiling`.
pub(super) fn floor(dir: &std::path::Path, enforced: bool) -> Result<super::exit::Exit, CliError> {
    use bhgrade::score::format;
    let suite = bhgrade::suite::load_definition(dir)
        .and_then(|definition| definition.verify())
        .map_err(regen::RegenError::Suite)?;
    let floor = bhgrade::suite::floor::floor(&suite);
    bhgrade::tell!("\n| a program that never reads its input, answering | marks | share |\n|---|---|---|");
    for program in &floor.programs {
        let share = 100.0 * floor.share(program);
        bhgrade::tell!(
            "| {} | {} of {} | {share:.1}% |",
            program.describe(),
            format(program.marks),
            format(floor.max_marks)
        );
    }
    let over: Vec<_> = floor.over_ceiling().collect();
    let ceiling = 100.0 * floor.ceiling;
    if over.is_empty() {
        bhgrade::say!(
            "{}: no program that never reads its input earns more than {ceiling:.1}% (`trivial_ceiling`)",
            dir.display()
        );
        return Ok(super::exit::Exit::Success);
    }
    let (programs, read, earn) = (
        count(over.len(), "program"),
        agreeing(over.len(), "reads its", "read their"),
        agreeing(over.len(), "earns", "earn"),
    );
    bhgrade::say!(
        "{}: {programs} that never {read} input {earn} more than the suite's `trivial_ceiling` of {ceiling:.1}%: \
         group each check that expects `false` with one that expects `true`, and each unsolvable instance \
         with a solvable one (see suites/README.md, \"Groups\")",
        dir.display()
    );
    Ok(match enforced {
        true => super::exit::Exit::NotPassed,
        false => super::exit::Exit::Success,
    })
}

/// `regen --verify`: a row per solve test as its opinion comes, then the tests refused.
fn verify(dir: &std::path::Path) -> Result<super::exit::Exit, regen::RegenError> {
    use bhref::referee::SecondOpinion;
    let mut printed_header = false;
    let row = |opinion: &regen::Opinion| {
        if !printed_header {
            bhgrade::tell!("| test | kind | answer | second opinion | seconds |\n|---|---|---|---|---|");
            printed_header = true;
        }
        let said = match &opinion.opinion {
            SecondOpinion::Confirmed { how } => format!("confirmed: {how}"),
            SecondOpinion::Refuted { why } => format!("**refuted**: {why}"),
            SecondOpinion::Undecided { why } => format!("**undecided**: {why}"),
            SecondOpinion::NoOracle => "no second oracle for this game".to_string(),
        };
        let (test, kind, answer) = (&opinion.test, &opinion.kind, &opinion.answer);
        bhgrade::tell!(
            "| {test} | {kind} | {answer} | {} | {:.3} |",
            said.replace('|', "\\|"),
            opinion.elapsed.as_secs_f64()
        );
    };
    let opinions = match regen::verify(dir, row)? {
        regen::Verified::OutOfDate(differences) => {
            for difference in &differences {
                // What the suite's files hold reaches the terminal inert (no escape sequence acts).
                bhgrade::say!("{}", terminal(&difference.to_string()));
            }
            bhgrade::say!(
                "{}: not verified: out of date; run `bhgrade regen --suite {}` first",
                dir.display(),
                dir.display()
            );
            return Ok(super::exit::Exit::NotPassed);
        }
        regen::Verified::Checked(opinions) => opinions,
    };
    let total: f64 = opinions.iter().map(|o| o.elapsed.as_secs_f64()).sum();
    let mut refused = 0;
    let mut without_oracle = 0;
    for opinion in &opinions {
        match &opinion.opinion {
            SecondOpinion::Confirmed { .. } => {}
            SecondOpinion::NoOracle => without_oracle += 1,
            SecondOpinion::Refuted { why } => {
                refused += 1;
                bhgrade::say!("test {}: the stored answer `{}` is refuted: {why}", opinion.test, opinion.answer);
            }
            SecondOpinion::Undecided { why } => {
                refused += 1;
                bhgrade::say!("test {}: the stored answer `{}` is unconfirmed: {why}", opinion.test, opinion.answer);
            }
        }
    }
    let confirmed = opinions.len() - refused - without_oracle;
    bhgrade::say!("{}: {confirmed} of {} solve tests confirmed in {total:.1} s", dir.display(), opinions.len());
    if without_oracle > 0 {
        let unverified = count(without_oracle, "solve test");
        bhgrade::say!("{unverified} not verified: the game has no second oracle");
    }
    if refused > 0 {
        let refused = count(refused, "stored answer");
        bhgrade::say!("{refused} refused: find the reference's fault before marking with them");
        return Ok(super::exit::Exit::NotPassed);
    }
    Ok(super::exit::Exit::Success)
}
