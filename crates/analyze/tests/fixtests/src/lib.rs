//! A crate that compiles after `--fix` but whose own test notices the change of channel: the
//! rewrite must be rolled back.

/// Three, sent from a thread.
pub fn total() -> u64 {
    let (tx, rx) = std::sync::mpsc::channel::<u64>();
    std::thread::spawn(move || tx.send(3).unwrap());
    rx.recv().unwrap()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_handles_are_std_ones() {
        let (tx, _rx) = std::sync::mpsc::channel::<u8>();
        assert!(std::any::type_name_of_val(&tx).starts_with("std::sync::mpsc"));
    }

    #[test]
    fn total_is_three() {
        assert_eq!(super::total(), 3);
    }
}
