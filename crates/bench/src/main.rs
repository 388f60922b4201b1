//! The `welltempered` command: see `welltempered --help`.

fn main() {
    std::process::exit(welltempered_bench::cli::main());
}
