//! Static channel-topology analysis (WTC for Rust sources); not implemented yet.
