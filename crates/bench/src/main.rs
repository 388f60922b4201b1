//! The `welltempered` command: see `welltempered --help`.

/// The allocator named by `WELLTEMPERED_ALLOCATOR` (system by default): see
/// [`welltempered_bench::alloc`].
#[global_allocator]
static ALLOCATOR: welltempered_bench::alloc::Selected = welltempered_bench::alloc::Selected;

fn main() {
    std::process::exit(welltempered_bench::cli::main());
}
