// Two `Rc` holders of one sender on the main thread; the sender is then taken out of the
// `RefCell` and moved to a thread: one handle, used by two threads one after the other.
use crossbeam_channel::unbounded;
use std::cell::RefCell;
use std::rc::Rc;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let a = Rc::new(RefCell::new(Some(tx)));
    let b = Rc::clone(&a);
    a.borrow().as_ref().unwrap().send(1).unwrap();
    let t = b.borrow_mut().take().unwrap();
    thread::spawn(move || t.send(2).unwrap()).join().unwrap();
    println!("{} {}", rx.iter().sum::<i32>(), a.borrow().is_none());
    crossbeam_channel::report();
}
