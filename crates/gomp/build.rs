//! Compiles `src/current.c`, the initial-exec thread-local pointer to the calling thread's
//! OpenMP state (see that file for why it is C). Not under Miri, which runs no C: there the
//! pointer is a Rust thread-local.

fn main() {
    println!("cargo:rerun-if-changed=src/current.c");
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_CFG_MIRI").is_some() {
        return;
    }
    cc::Build::new()
        .file("src/current.c")
        .flag("-fvisibility=hidden")
        .opt_level(2)
        .warnings(true)
        .extra_warnings(true)
        .compile("welltempered_gomp_current");
}
