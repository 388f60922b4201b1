//! Compiles `src/condwait.c`, the C functions that the library exports as `pthread_cond_wait`,
//! `pthread_cond_timedwait` and `pthread_cond_clockwait` (see that file and `src/cond.rs` for
//! why they are C), and links them into the cdylib only.
//!
//! They go to the cdylib's link line as object files (the rlib, which nothing links, and the unit
//! tests do not get them: a test binary must not interpose its own `pthread_cond_wait`), and a
//! second version script makes them global: rustc's own script for a cdylib exports the Rust
//! `#[no_mangle]` functions and makes every other symbol local.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=src/condwait.c");
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let objects = cc::Build::new()
        .file("src/condwait.c")
        // Cancellation unwinds through this code: it needs unwind tables valid at every
        // instruction (the cancellation may be acted on asynchronously inside the futex wait)
        // and the landing pad that runs its cleanup handler.
        .flag("-fexceptions")
        .flag("-fasynchronous-unwind-tables")
        .flag("-fvisibility=hidden")
        .opt_level(2)
        .warnings(true)
        .extra_warnings(true)
        .cargo_metadata(false)
        .compile_intermediates();
    for o in &objects {
        println!("cargo:rustc-cdylib-link-arg={}", o.display());
    }
    let script = out.join("condwait.map");
    std::fs::write(
        &script,
        "{\n  global:\n    pthread_cond_wait;\n    pthread_cond_timedwait;\n    \
         pthread_cond_clockwait;\n};\n",
    )
    .expect("cannot write the version script");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        script.display()
    );
}
