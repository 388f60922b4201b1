//! The channel whose implementation follows its topology (WTC); not implemented yet.
