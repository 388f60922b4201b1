//! The welltempered evaluation harness.
