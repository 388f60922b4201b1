//! Reach over the pinned corpora: 0 wrong verdicts and every channel audited, on the tuning
//! corpus (at least 40 channels) and on the validation corpus (at least 40 crates). Fetches the
//! corpus into the cargo registry first. Without network and without the corpus the test says
//! why and skips, except under CI (`CI` set), where that is a failure. Exactness is reported,
//! not asserted: it is what the corpora measure.

use welltempered_analyze::reach::{self, Corpus, Options};

/// Fetches and analyses `corpus`, prints its table, and checks that every channel has an
/// audited truth and no verdict contradicts it. Returns the report, or `None` when skipped.
fn no_wrong_verdict(corpus: Corpus) -> Option<reach::ReachReport> {
    let opts = Options::for_corpus(corpus);
    if let Err(e) = reach::fetch(&opts) {
        assert!(
            std::env::var_os("CI").is_none(),
            "the {corpus:?} corpus must be fetched under CI: {e}"
        );
        eprintln!("skipped: {e}");
        return None;
    }
    let report = match reach::run(&opts) {
        Ok(r) => r,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "the {corpus:?} corpus must be analysed under CI: {e}"
            );
            eprintln!("skipped: {e}");
            return None;
        }
    };
    println!("{}", report.to_text());
    for c in &report.crates {
        for r in &c.verdicts {
            assert!(
                r.expected.is_some(),
                "{}: not audited:\n{}",
                c.name,
                r.remark
            );
            assert!(
                !r.wrong,
                "{}: wrong:\n{}  audit: {}",
                c.name, r.remark, r.audit
            );
        }
    }
    Some(report)
}

#[test]
fn tuning_corpus_has_no_wrong_verdict() {
    let Some(report) = no_wrong_verdict(Corpus::Tuning) else {
        return;
    };
    assert!(report.crates.len() >= 15);
    let channels: usize = report.crates.iter().map(|c| c.channels).sum();
    assert!(channels >= 40, "{channels} channels");
}

#[test]
fn validation_corpus_has_no_wrong_verdict() {
    let Some(report) = no_wrong_verdict(Corpus::Validation) else {
        return;
    };
    assert!(report.crates.len() >= 40, "{} crates", report.crates.len());
    assert!(
        report.crates.iter().all(|c| c.channels > 0),
        "every crate of the validation corpus constructs a channel"
    );
}

#[test]
fn wrong_means_fewer_handles_or_another_exact_count() {
    use welltempered_analyze::reach::wrong_side;
    use welltempered_analyze::{Count, Side, Site};
    let site = Site {
        file: "src/lib.rs".into(),
        line: 1,
        column: 1,
    };
    let exact = |count| Side::Exact {
        count,
        threads: vec![],
        constructing: true,
        why: None,
    };
    assert!(!wrong_side(&exact(Count::One), "1"));
    assert!(wrong_side(&exact(Count::One), "many"));
    assert!(wrong_side(&exact(Count::One), "2"));
    // 0 and 1 are both a single side.
    assert!(!wrong_side(&exact(Count::N(0)), "1"));
    assert!(!wrong_side(&exact(Count::One), "0"));
    // `many` is any count above one the analysis does not pin; a number it states must hold.
    assert!(!wrong_side(&exact(Count::Many), "2"));
    assert!(!wrong_side(&exact(Count::Many), "many"));
    assert!(wrong_side(&exact(Count::Many), "1"));
    assert!(wrong_side(&exact(Count::Many), "0"));
    assert!(wrong_side(&exact(Count::N(2)), "3"));
    assert!(wrong_side(&exact(Count::N(2)), "many"));
    assert!(!wrong_side(&exact(Count::N(3)), "3"));
    let at_least = |c| Side::Conservative {
        at_least: c,
        reason: "stored in a field".into(),
        site: site.clone(),
    };
    assert!(!wrong_side(&at_least(Count::One), "many"));
    assert!(wrong_side(&at_least(Count::N(2)), "1"));
    assert!(wrong_side(&at_least(Count::N(3)), "2"));
    assert!(!wrong_side(&at_least(Count::N(2)), "2"));
    assert!(!wrong_side(&at_least(Count::One), "0"));
    assert!(!wrong_side(&at_least(Count::Many), "4"));
    assert!(wrong_side(&at_least(Count::Many), "1"));
    assert!(!wrong_side(
        &Side::Refused {
            reason: "returned".into(),
            site: site.clone()
        },
        "1"
    ));
}
