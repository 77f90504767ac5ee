//! The class's `junit.xml` against the rules of the Jenkins xUnit plugin's JUnit schema
//! (`junit-10.xsd`), written out here from its facts; a submission that does not build shows
//! as failed, never as skipped; and Python's junitparser reads the file.

use std::collections::BTreeMap;

use crate::support::{marked, require};

/// One element: its name, attributes, parent's name and, for leaf texts, its text.
struct Element {
    name: String,
    attributes: BTreeMap<String, String>,
    parent: Option<String>,
    text: String,
}

/// The elements of an XML text in document order (enough XML for what bhgrade writes: no
/// comments, CDATA or processing instructions past the declaration).
fn elements(xml: &str) -> Vec<Element> {
    let mut rest = xml.split_once("?>").expect("an XML declaration").1;
    let (mut open, mut found): (Vec<usize>, Vec<Element>) = (Vec::new(), Vec::new());
    while let Some(start) = rest.find('<') {
        if let Some(&current) = open.last() {
            found[current].text.push_str(&rest[..start]);
        }
        let end = start + rest[start..].find('>').expect("a closed tag");
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('/') {
            open.pop();
            continue;
        }
        let empty = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, mut attributes_text) = tag.split_once(' ').unwrap_or((tag, ""));
        let mut attributes = BTreeMap::new();
        while let Some((key, after)) = attributes_text.split_once("=\"") {
            let (value, after) = after.split_once('"').expect("a quoted value");
            attributes.insert(key.trim().to_string(), value.to_string());
            attributes_text = after;
        }
        let parent = open.last().map(|&index| found[index].name.clone());
        found.push(Element { name: name.to_string(), attributes, parent, text: String::new() });
        if !empty {
            open.push(found.len() - 1);
        }
    }
    found
}

/// An element the schema allows: its name, its parent, its required and optional attributes.
type Rule = (&'static str, Option<&'static str>, &'static [&'static str], &'static [&'static str]);

/// What `junit-10.xsd` allows: for each element, its parent, required and optional
/// attributes. Returns every breach, named.
fn jenkins_schema_breaches(xml: &str) -> Vec<String> {
    let rules: [Rule; 7] = [
        ("testsuites", None, &[], &["name", "time", "tests", "failures", "errors"]),
        (
            "testsuite",
            Some("testsuites"),
            &["name", "tests", "failures", "errors"],
            &["time", "disabled", "skipped", "timestamp", "hostname", "id", "package"],
        ),
        ("testcase", Some("testsuite"), &["name"], &["assertions", "time", "classname", "status"]),
        ("failure", Some("testcase"), &[], &["type", "message"]),
        ("error", Some("testcase"), &[], &["type", "message"]),
        ("skipped", Some("testcase"), &[], &["message"]),
        ("system-out", Some("testcase"), &[], &[]),
    ];
    let mut breaches = Vec::new();
    for element in elements(xml) {
        let Some((_, parent, required, optional)) = rules.iter().find(|rule| rule.0 == element.name) else {
            breaches.push(format!("<{}> is not in the schema", element.name));
            continue;
        };
        if element.parent.as_deref() != *parent {
            breaches.push(format!("<{}> inside {:?}", element.name, element.parent));
        }
        for attribute in *required {
            if !element.attributes.contains_key(*attribute) {
                breaches.push(format!("<{}> lacks `{attribute}`", element.name));
            }
        }
        for attribute in element.attributes.keys() {
            if !required.contains(&attribute.as_str()) && !optional.contains(&attribute.as_str()) {
                breaches.push(format!("<{}> may not carry `{attribute}`", element.name));
            }
        }
        for count in ["tests", "failures", "errors", "skipped"] {
            if let Some(value) = element.attributes.get(count).filter(|v| v.parse::<u64>().is_err()) {
                breaches.push(format!("<{}> {count}=\"{value}\" is not a count", element.name));
            }
        }
    }
    breaches
}

/// The counts a `<testsuites>` says and the sums of its `<testsuite>`s' (tests, failures, errors).
fn totals(xml: &str) -> ([u64; 3], [u64; 3]) {
    let found = elements(xml);
    let count = |element: &Element, key: &str| element.attributes[key].parse::<u64>().unwrap();
    let keys = ["tests", "failures", "errors"];
    let said = keys.map(|key| count(&found[0], key));
    let summed = keys.map(|key| found.iter().filter(|e| e.name == "testsuite").map(|e| count(e, key)).sum());
    (said, summed)
}

#[test]
fn the_class_file_keeps_to_the_jenkins_junit_schema() {
    let xml = marked().text("junit.xml");
    assert_eq!(jenkins_schema_breaches(&xml), Vec::<String>::new());
    let (said, summed) = totals(&xml);
    assert_eq!(said, summed, "<testsuites> counts what its suites hold");
    // The check itself catches what the schema forbids.
    let with_skipped = xml.replacen("<testsuites name=", "<testsuites skipped=\"0\" name=", 1);
    assert_eq!(jenkins_schema_breaches(&with_skipped), ["<testsuites> may not carry `skipped`"]);
    let without_errors = xml.replacen(" errors=\"", " errs=\"", 2);
    assert!(jenkins_schema_breaches(&without_errors).contains(&"<testsuite> lacks `errors`".to_string()));
}

#[test]
fn a_submission_that_does_not_build_fails_once_per_part_with_the_compilers_words() {
    let xml = marked().text("junit.xml");
    let found = elements(&xml);
    let suites: Vec<&Element> = found
        .iter()
        .filter(|e| e.name == "testsuite" && e.attributes["name"].starts_with("does-not-compile."))
        .collect();
    assert!(!suites.is_empty(), "the fixture that does not compile has its suites");
    for suite in suites {
        let name = &suite.attributes["name"];
        assert_eq!((suite.attributes["tests"].as_str(), suite.attributes["failures"].as_str()), ("1", "1"), "{name}");
        let cases: Vec<&Element> =
            found.iter().filter(|e| e.name == "testcase" && e.attributes["classname"] == *name).collect();
        assert_eq!(cases.len(), 1, "{name}: one case, not a row of skipped tests");
        let part = name.strip_prefix("does-not-compile.").unwrap();
        assert_eq!(cases[0].attributes["name"], format!("{part}/build"));
        let failure = found
            .iter()
            .skip_while(|e| !std::ptr::eq(*e, cases[0]))
            .find(|e| e.name == "failure")
            .expect("the case failed");
        assert_eq!(failure.attributes["type"], "build_failed");
        assert!(failure.text.contains("error:"), "the compiler's words are in the failure: {}", failure.text);
    }
}

#[test]
fn junitparser_reads_every_case() {
    let ok = std::process::Command::new("python3").args(["-c", "import junitparser"]).status();
    if !require("junit::junitparser_reads_every_case", "Python's junitparser", ok.is_ok_and(|status| status.success()))
    {
        return;
    }
    let marked = marked();
    let path = marked.out.join("junit.xml");
    let script = "import sys\nfrom junitparser import JUnitXml\nx = JUnitXml.fromfile(sys.argv[1])\n\
                  cases = [c for s in x for c in s]\n\
                  print(len(cases), sum(1 for c in cases if not c.is_passed and not c.is_skipped))";
    let out = std::process::Command::new("python3").args(["-c", script]).arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let xml = marked.text("junit.xml");
    let (said, _) = totals(&xml);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), format!("{} {}", said[0], said[1] + said[2]));
}
