//! Reach over the pinned corpus: 0 wrong verdicts, at least 40 channels, every channel audited.
//! Fetches the corpus into the cargo registry first. Without network and without the corpus
//! the test says why and skips, except under CI (`CI` set), where that is a failure.

#[test]
fn corpus_has_no_wrong_verdict() {
    let opts = welltempered_analyze::reach::Options::default();
    if let Err(e) = welltempered_analyze::reach::fetch(&opts) {
        assert!(
            std::env::var_os("CI").is_none(),
            "the reach corpus must be fetched under CI: {e}"
        );
        eprintln!("skipped: {e}");
        return;
    }
    let report = match welltempered_analyze::reach::run(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    println!("{}", report.to_text());
    assert!(report.crates.len() >= 15);
    let channels: usize = report.crates.iter().map(|c| c.channels).sum();
    assert!(channels >= 40, "{channels} channels");
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
    assert!(wrong_side(&exact(Count::Many), "2"));
    let at_least = |c| Side::Conservative {
        at_least: c,
        reason: "stored in a field".into(),
        site: site.clone(),
    };
    assert!(!wrong_side(&at_least(Count::One), "many"));
    assert!(wrong_side(&at_least(Count::N(2)), "1"));
    assert!(!wrong_side(
        &Side::Refused {
            reason: "returned".into(),
            site: site.clone()
        },
        "1"
    ));
}
