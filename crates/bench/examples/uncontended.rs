//! `n` uncontended lock + unlock pairs of one lock of `welltempered mutex`, for counting the
//! instructions of the uncontended path under valgrind (see `scripts/instructions.sh`).
//!
//! ```text
//! cargo run --release -p welltempered-bench --example uncontended -- hemlock 100000
//! ```

use welltempered_bench::sections::mutex::{lock_entry, locks};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, n] = args.as_slice() else {
        let names: Vec<&str> = locks().iter().map(|e| e.name).collect();
        eprintln!(
            "usage: uncontended LOCK PAIRS   (LOCK: {})",
            names.join(", ")
        );
        std::process::exit(2);
    };
    let entry = match lock_entry(name) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("uncontended: {e}");
            std::process::exit(2);
        }
    };
    let n: u64 = match n.parse() {
        Ok(n) => n,
        Err(e) => {
            eprintln!("uncontended: PAIRS {n:?}: {e}");
            std::process::exit(2);
        }
    };
    let got = entry.uncontended_pairs(n);
    assert_eq!(got, n, "{name}: {got} increments after {n} pairs");
}
