// Two receivers polled in turn by one thread; two producers, one per channel.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (ta, ra) = unbounded::<i32>();
    let (tb, rb) = unbounded::<i32>();
    let pa = thread::spawn(move || ta.send(1).unwrap());
    let pb = thread::spawn(move || tb.send(2).unwrap());
    pa.join().unwrap();
    pb.join().unwrap();
    let mut sum = 0;
    for r in [&ra, &rb] {
        while let Ok(x) = r.try_recv() {
            sum += x;
        }
    }
    println!("{sum}");
    crossbeam_channel::report();
}
