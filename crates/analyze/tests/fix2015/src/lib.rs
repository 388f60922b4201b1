//! An edition-2015 library: an extern crate is in scope only where `extern crate` declares it.
#![allow(dead_code)]

mod pipe;

/// The sum the pipe's worker sends back.
pub fn run() -> u64 {
    pipe::total(4)
}
