//! Workload of `scripts/programs.sh logger`: slog-async, an asynchronous logger whose logging
//! threads send records over a crossbeam-channel `bounded(chan_size)` to one thread that
//! formats and writes them. `LOG_THREADS` threads (default 2) log `LOG_LINES` records each
//! (default 5 * 10^6, 10^7 records in all) with two key-value pairs; the drain writes one line
//! per record to standard output. The channel blocks when full (`OverflowStrategy::Block`), so no record is dropped and
//! the output is the same on every run but for the interleaving of the threads' lines.
use slog::{Drain, Logger, OwnedKVList, Record, info, o};
use std::io::{BufWriter, Stdout, Write};
use std::sync::Mutex;

/// Writes `message k=v ...` per record.
struct Lines(Mutex<BufWriter<Stdout>>);

impl Drain for Lines {
    type Ok = ();
    type Err = slog::Never;
    fn log(&self, record: &Record<'_>, values: &OwnedKVList) -> Result<(), slog::Never> {
        let mut out = self.0.lock().unwrap();
        let mut kv = String::new();
        let mut ser = Kv(&mut kv);
        slog::KV::serialize(&record.kv(), record, &mut ser).unwrap();
        slog::KV::serialize(values, record, &mut ser).unwrap();
        writeln!(out, "{}{}", record.msg(), kv).unwrap();
        Ok(())
    }
}

struct Kv<'a>(&'a mut String);

impl slog::Serializer for Kv<'_> {
    fn emit_arguments(&mut self, key: slog::Key, val: &std::fmt::Arguments<'_>) -> slog::Result {
        use std::fmt::Write as _;
        write!(self.0, " {key}={val}").unwrap();
        Ok(())
    }
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).map_or(default, |v| v.parse().expect(name))
}

fn main() {
    let (threads, lines) = (env("LOG_THREADS", 2), env("LOG_LINES", 5_000_000));
    let drain = Lines(Mutex::new(BufWriter::new(std::io::stdout())));
    let (drain, guard) = slog_async::Async::new(drain)
        .chan_size(1024)
        .overflow_strategy(slog_async::OverflowStrategy::Block)
        .build_with_guard();
    let root = Logger::root(drain.fuse(), o!("run" => "programs"));
    std::thread::scope(|s| {
        for t in 0..threads {
            let log = root.new(o!("thread" => t));
            s.spawn(move || {
                for i in 0..lines {
                    info!(log, "record"; "i" => i);
                }
            });
        }
    });
    drop(root);
    // Flushes the channel and joins the writing thread.
    drop(guard);
}
