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
    "rayon",
    "rayon-core",
    "crossbeam-channel",
    "flume",
    "kanal",
    "tokio",
    "rtrb",
    "ringbuf",
    "mimalloc",
    "tikv-jemallocator",
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
    libgomp_kernels();
}

/// Compiles `c/omp_kernels.c` with `-fopenmp` and links libgomp, setting `cfg(wt_libgomp)`, when
/// the C compiler supports OpenMP and libgomp is installed; otherwise the par section reports the
/// libgomp variants as skipped, with the reason given here.
fn libgomp_kernels() {
    println!("cargo::rustc-check-cfg=cfg(wt_libgomp)");
    println!("cargo:rerun-if-changed=c/omp_kernels.c");
    let why_not = match find_libgomp() {
        Err(why) => why,
        Ok(()) => match cc::Build::new()
            .file("c/omp_kernels.c")
            .flag("-fopenmp")
            // -O3, as rustc's release profile vectorises: at -O2 gcc 12 leaves matmul's inner
            // loop scalar and the comparison would measure the compilers, not the runtimes.
            .opt_level(3)
            .warnings(true)
            .try_compile("wt_omp_kernels")
        {
            Ok(()) => {
                let compiler = cc::Build::new().get_compiler();
                let version = Command::new(compiler.path())
                    .arg("--version")
                    .output()
                    .ok()
                    .and_then(|o| String::from_utf8(o.stdout).ok())
                    .and_then(|s| s.lines().next().map(str::to_string))
                    .unwrap_or_else(|| "unknown".to_string());
                println!("cargo:rustc-env=WT_LIBGOMP_COMPILER={version}");
                println!("cargo:rustc-link-lib=dylib=gomp");
                println!("cargo:rustc-cfg=wt_libgomp");
                println!("cargo:rustc-env=WT_LIBGOMP_SKIPPED=");
                return;
            }
            Err(e) => format!("the C compiler cannot build OpenMP code: {e}"),
        },
    };
    let why_not = why_not.replace('\n', " ");
    println!("cargo:warning=libgomp baselines disabled: {why_not}");
    println!("cargo:rustc-env=WT_LIBGOMP_COMPILER=");
    println!("cargo:rustc-env=WT_LIBGOMP_SKIPPED={why_not}");
}

/// Whether the C compiler can link libgomp (`gcc -print-file-name=libgomp.so` names a file).
fn find_libgomp() -> Result<(), String> {
    let compiler = cc::Build::new().get_compiler();
    let out = Command::new(compiler.path())
        .arg("-print-file-name=libgomp.so")
        .output()
        .map_err(|e| format!("no C compiler ({}: {e})", compiler.path().display()))?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if std::path::Path::new(&path).is_absolute() && std::path::Path::new(&path).exists() {
        Ok(())
    } else {
        Err("libgomp is not installed (apt-get install libgomp1 gcc)".to_string())
    }
}
