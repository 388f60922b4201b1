//! Records, for the report's host facts, the rustc version and the resolved versions of the
//! baselines and of our crates, read from the workspace `Cargo.lock`.

use std::path::PathBuf;
use std::process::Command;

/// Packages whose resolved version the report names.
const PACKAGES: &[&str] = &[
    "welltempered-bench",
    "welltempered-lock",
    "welltempered-channel",
    "welltempered-par",
    "parking_lot",
    "parking_lot_core",
    "spin",
    "lock_api",
    "crossbeam-utils",
    "libc",
];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let lock_path = manifest.join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    println!("cargo:rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(&lock_path).unwrap_or_default();
    let mut found: Vec<(String, String)> = Vec::new();
    let mut name: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            name = None;
        } else if let Some(v) = line.strip_prefix("name = ") {
            name = Some(v.trim_matches('"').to_string());
        } else if let Some(v) = line.strip_prefix("version = ")
            && let Some(n) = name.take()
            && PACKAGES.contains(&n.as_str())
        {
            found.push((n, v.trim_matches('"').to_string()));
        }
    }
    let versions: Vec<String> = found.iter().map(|(n, v)| format!("{n}={v}")).collect();
    println!("cargo:rustc-env=WT_CRATE_VERSIONS={}", versions.join(";"));

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=WT_RUSTC_VERSION={version}");
}
