//! The `programs` part of `welltempered par`: real OpenMP programs that nobody here wrote, the
//! same binaries on libgomp and on our team runtime through libgomp's ABI
//! (`LD_PRELOAD=libwelltempered_gomp.so`), end to end.
//!
//! - `gm-blur`: Debian's GraphicsMagick (`gm convert`: blur, resize and sharpen, OpenMP loops in
//!   libGraphicsMagick);
//! - `im-blur`: Debian's ImageMagick 6 (`convert-im6.q16`, the same operations in libMagickCore);
//! - `numpy-matmul`: NumPy's matrix product on OpenBLAS's OpenMP build (`libopenblas0-openmp`,
//!   chosen through `LD_LIBRARY_PATH`), in a fresh `python3` process.
//!
//! Each run is a whole process: wall time (the primary figure) and the CPU time of the child
//! (`getrusage(RUSAGE_CHILDREN)` before and after). The output (the image's pixels as PPM on
//! stdout, a SHA-256 of the product matrix) must be the same on both runtimes: a hash of it is
//! kept with every sample and compared by [`check_outputs`]. Programs that are not installed
//! are skipped with the reason (`apt-get install graphicsmagick imagemagick libopenblas0-openmp
//! python3-numpy`).

use crate::model::{Group, Sample};
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// One program and its workload.
#[derive(Clone, Debug)]
pub struct Program {
    /// Its name in the report.
    pub name: &'static str,
    /// What it does, for the group's title.
    pub what: String,
    cmd: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

const GM: &str = "/usr/bin/gm";
const IM: &str = "/usr/bin/convert-im6.q16";
const PYTHON: &str = "/usr/bin/python3";
const OPENBLAS_OPENMP: &str = "/usr/lib/x86_64-linux-gnu/openblas-openmp";

/// The programs installed here, with their inputs prepared in `dir` (image sizes by `quick`),
/// and the reasons for those that are not.
pub fn available(dir: &Path, quick: bool) -> (Vec<Program>, Vec<String>) {
    let mut programs = Vec::new();
    let mut skipped = Vec::new();
    let side = if quick { 900 } else { 1800 };
    let size = format!("{side}x{side}");
    let ops = |input: &Path| -> Vec<String> {
        [
            input.to_str().unwrap_or_default(),
            "-blur",
            "0x3",
            "-resize",
            "70%",
            "-sharpen",
            "0x1",
            "ppm:-",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        skipped.push(format!("cannot create {}: {e}", dir.display()));
        return (programs, skipped);
    }
    let input = dir.join(format!("input-{side}.png"));
    let made = Path::new(GM).exists()
        && (input.exists()
            || Command::new(GM)
                .args([
                    "convert",
                    "-size",
                    &size,
                    "gradient:red-blue",
                    "-swirl",
                    "120",
                ])
                .arg(&input)
                .env("OMP_NUM_THREADS", "1")
                .status()
                .is_ok_and(|s| s.success()));
    if made {
        let mut args = vec!["convert".to_string()];
        args.extend(ops(&input));
        programs.push(Program {
            name: "gm-blur",
            what: format!("GraphicsMagick: blur, resize, sharpen a {size} image"),
            cmd: GM.into(),
            args,
            env: Vec::new(),
        });
    } else {
        skipped.push(format!(
            "gm-blur, im-blur: {GM} (graphicsmagick) is not installed"
        ));
    }
    if made && Path::new(IM).exists() {
        programs.push(Program {
            name: "im-blur",
            what: format!("ImageMagick 6: blur, resize, sharpen a {size} image"),
            cmd: IM.into(),
            args: ops(&input),
            env: Vec::new(),
        });
    } else if made {
        skipped.push(format!("im-blur: {IM} (imagemagick) is not installed"));
    }
    let numpy = Path::new(OPENBLAS_OPENMP).join("libblas.so.3").exists()
        && Command::new(PYTHON)
            .args(["-c", "import numpy"])
            .output()
            .is_ok_and(|o| o.status.success());
    if numpy {
        let n = if quick { 1200 } else { 2000 };
        programs.push(Program {
            name: "numpy-matmul",
            what: format!("NumPy on OpenBLAS (OpenMP): a {n}x{n} matrix product, whole process"),
            cmd: PYTHON.into(),
            args: vec![
                "-c".into(),
                format!(
                    "import numpy as np, hashlib\n\
                     rng = np.random.default_rng(42)\n\
                     a = rng.standard_normal(({n}, {n})); b = rng.standard_normal(({n}, {n}))\n\
                     print(hashlib.sha256((a @ b).tobytes()).hexdigest())\n"
                ),
            ],
            env: vec![("LD_LIBRARY_PATH".into(), OPENBLAS_OPENMP.into())],
        });
    } else {
        skipped.push(
            "numpy-matmul: NumPy or OpenBLAS's OpenMP build is not installed \
             (python3-numpy, libopenblas0-openmp)"
                .into(),
        );
    }
    (programs, skipped)
}

/// The CPU time of this process's waited-for children so far, seconds (0 where `getrusage` is
/// not available: the programs run on Linux only).
fn children_cpu() -> f64 {
    #[cfg(unix)]
    {
        // SAFETY: getrusage writes the struct it is given.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: as above; RUSAGE_CHILDREN is a valid selector.
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        secs(ru.ru_utime) + secs(ru.ru_stime)
    }
    #[cfg(not(unix))]
    {
        0.0
    }
}

/// A 52-bit FNV-1a hash of `bytes` (exact as an `f64`, for the sample's `extra`).
pub(crate) fn hash52(bytes: &[u8]) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h & ((1 << 52) - 1)) as f64
}

/// Runs `p` once with `threads` OpenMP threads, preloading `library` if given: wall ms.
pub fn run(p: &Program, threads: usize, library: Option<&Path>) -> Result<Sample> {
    let mut cmd = Command::new(&p.cmd);
    cmd.args(&p.args).stdin(std::process::Stdio::null());
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("OMP_")
            || k.starts_with("GOMP_")
            || k.starts_with("WELLTEMPERED_")
            || k == "LD_PRELOAD"
        {
            cmd.env_remove(&k);
        }
    }
    cmd.env("OMP_NUM_THREADS", threads.to_string());
    cmd.envs(p.env.iter().map(|(k, v)| (k, v)));
    if let Some(lib) = library {
        cmd.env("LD_PRELOAD", lib);
    }
    let cpu0 = children_cpu();
    let t0 = Instant::now();
    let out = cmd
        .output()
        .map_err(|e| Error::new(format!("cannot run {}: {e}", p.cmd)))?;
    let wall = t0.elapsed().as_secs_f64();
    let cpu = children_cpu() - cpu0;
    if !out.status.success() || out.stdout.is_empty() {
        return Err(Error::new(format!(
            "{} failed ({}){}: {}",
            p.name,
            out.status,
            if library.is_some() {
                " on libwelltempered_gomp"
            } else {
                ""
            },
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(Sample {
        value: wall * 1e3,
        ops: 1,
        wall_s: wall,
        cpu_s: cpu,
        extra: BTreeMap::from([
            ("output_hash".to_string(), hash52(&out.stdout)),
            ("output_bytes".to_string(), out.stdout.len() as f64),
            ("cpu_ms".to_string(), cpu * 1e3),
        ]),
        ..Default::default()
    })
}

/// Every sample of a program's group printed the same output (libgomp's).
pub fn check_outputs(g: &Group) -> Result<()> {
    let mut want: Option<(f64, &str)> = None;
    for r in &g.reps {
        for s in &r.samples {
            let got = s.extra.get("output_hash").copied().unwrap_or(f64::NAN);
            match want {
                None => want = Some((got, &s.variant)),
                Some((w, first)) if w != got => {
                    return Err(Error::new(format!(
                        "{}: the output under {} differs from the output under {first}",
                        g.id, s.variant
                    )));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// Where the inputs are prepared.
pub fn input_dir(out: Option<&Path>) -> PathBuf {
    out.map_or_else(
        || std::env::temp_dir().join("welltempered-omp-programs"),
        |o| o.join("omp-programs"),
    )
}
