//! The `welltempered` command.

fn main() {}
