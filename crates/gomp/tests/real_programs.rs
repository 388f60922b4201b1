//! Real OpenMP programs that nobody here wrote, unmodified, on `libwelltempered_gomp.so`:
//! Debian's GraphicsMagick and ImageMagick (their image operations are OpenMP loops in
//! libGraphicsMagick and libMagickCore) and NumPy's matrix product on OpenBLAS's OpenMP build
//! (`libopenblas0-openmp`, whose threads are an OpenMP `parallel`). Each runs on libgomp and
//! with `LD_PRELOAD=libwelltempered_gomp.so` at several team sizes, and the outputs must be
//! identical to the byte: the images' pixels (written as PPM, which has no time stamps) and a
//! SHA-256 of the product matrix, whose reduction order OpenBLAS fixes per thread count. One
//! more run per program with `LD_DEBUG=bindings` shows its libraries' `GOMP_*` calls bound to our
//! library, so the comparison is not libgomp against itself.
//!
//! `.ci/run` installs the packages (`graphicsmagick imagemagick libopenblas0-openmp
//! python3-numpy`). Where one is missing the test says `SKIPPED: ...` on stderr and returns,
//! except under CI (`CI` set), where a missing program fails the test: CI installs them, so a
//! skip there would hide a broken install.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `libwelltempered_gomp.so`, built beside this test in `deps/`.
fn gomp_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let lib = exe.parent().unwrap().join("libwelltempered_gomp.so");
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

/// False (after saying so) when `what` is missing; a failure under CI.
fn available(ok: bool, what: &str) -> bool {
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "{what} is missing under CI (.ci/run installs it)"
        );
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {what} is not installed (apt-get install graphicsmagick imagemagick \
             libopenblas0-openmp python3-numpy)"
        );
    }
    ok
}

/// Runs `cmd args` with `threads` OpenMP threads, on libgomp or preloaded on ours, with `extra`
/// variables.
fn run(cmd: &str, args: &[&str], threads: &str, ours: bool, extra: &[(&str, &str)]) -> Output {
    let mut c = Command::new(cmd);
    c.args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("OMP_") || k.starts_with("WELLTEMPERED_") || k == "LD_PRELOAD" {
            c.env_remove(k);
        }
    }
    c.env("OMP_NUM_THREADS", threads);
    if ours {
        c.env("LD_PRELOAD", gomp_library());
    }
    c.envs(extra.iter().copied());
    c.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd}: {e}"))
}

fn check(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what}: {:?}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs `cmd args` on libgomp and on ours at 1, 2 and 3 threads and compares stdout; then
/// checks that `symbol` binds to our library.
fn same_on_both(cmd: &str, args: &[&str], env: &[(&str, &str)], symbol: &str) {
    for threads in ["1", "2", "3"] {
        let base = run(cmd, args, threads, false, env);
        check(
            &base,
            &format!("{cmd} {args:?} on libgomp, {threads} threads"),
        );
        let ours = run(cmd, args, threads, true, env);
        check(&ours, &format!("{cmd} {args:?} on ours, {threads} threads"));
        assert!(!base.stdout.is_empty(), "{cmd} printed nothing");
        assert!(
            base.stdout == ours.stdout,
            "{cmd} {args:?}, {threads} threads: the output on libwelltempered_gomp differs from \
             libgomp's ({} and {} bytes)",
            base.stdout.len(),
            ours.stdout.len()
        );
    }
    let mut debug = env.to_vec();
    debug.push(("LD_DEBUG", "bindings"));
    let o = run(cmd, args, "2", true, &debug);
    check(&o, &format!("{cmd} with LD_DEBUG=bindings"));
    let err = String::from_utf8_lossy(&o.stderr);
    let lib = gomp_library();
    let lib = lib.file_name().unwrap().to_string_lossy();
    let bound: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(&format!("`{symbol}'")))
        .collect();
    assert!(!bound.is_empty(), "{cmd}: no binding of {symbol} seen");
    assert!(
        bound.iter().all(|l| l.contains(&*lib)),
        "{cmd}: {symbol} bound elsewhere than to {lib}: {bound:?}"
    );
}

/// A deterministic input image in a temporary folder (made on libgomp).
fn input_image(gm: &str, args: &[&str], name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gomp-real");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let mut all: Vec<&str> = args.to_vec();
    let p = path.to_str().unwrap();
    all.push(p);
    check(&run(gm, &all, "1", false, &[]), "making the input image");
    path
}

#[test]
fn graphicsmagick_blur_resize_sharpen() {
    if !available(Path::new("/usr/bin/gm").exists(), "GraphicsMagick (gm)") {
        return;
    }
    let input = input_image(
        "gm",
        &[
            "convert",
            "-size",
            "700x500",
            "gradient:red-blue",
            "-swirl",
            "120",
        ],
        "gm-in.png",
    );
    let input = input.to_str().unwrap();
    same_on_both(
        "gm",
        &[
            "convert", input, "-blur", "0x3", "-resize", "70%", "-sharpen", "0x1", "ppm:-",
        ],
        &[],
        "GOMP_parallel",
    );
}

#[test]
fn imagemagick_blur_resize_sharpen() {
    let im = "/usr/bin/convert-im6.q16";
    if !available(Path::new(im).exists(), "ImageMagick (convert-im6.q16)") {
        return;
    }
    let input = input_image(
        im,
        &["-size", "700x500", "gradient:red-blue", "-swirl", "120"],
        "im-in.png",
    );
    let input = input.to_str().unwrap();
    same_on_both(
        im,
        &[
            input, "-blur", "0x3", "-resize", "70%", "-sharpen", "0x1", "ppm:-",
        ],
        &[],
        "GOMP_parallel",
    );
}

#[test]
fn numpy_matrix_product_on_openblas_openmp() {
    let python = "/usr/bin/python3";
    let has = Path::new("/usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3").exists()
        && Command::new(python)
            .args(["-c", "import numpy"])
            .output()
            .is_ok_and(|o| o.status.success());
    if !available(has, "NumPy on OpenBLAS's OpenMP build") {
        return;
    }
    let script = "import numpy as np, hashlib\n\
        rng = np.random.default_rng(42)\n\
        a = rng.standard_normal((600, 600)); b = rng.standard_normal((600, 600))\n\
        print(hashlib.sha256((a @ b).tobytes()).hexdigest())\n";
    // NumPy loads `libblas.so.3` through a Debian alternative, which may name another build
    // (the pthreads one ranks higher when both are installed): the OpenMP build's folder first.
    same_on_both(
        python,
        &["-c", script],
        &[(
            "LD_LIBRARY_PATH",
            "/usr/lib/x86_64-linux-gnu/openblas-openmp",
        )],
        "GOMP_parallel",
    );
}
