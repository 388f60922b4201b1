// Rc<RefCell<..>> sharing on one thread: many holders, one thread.
use crossbeam_channel::unbounded;
use std::cell::RefCell;
use std::rc::Rc;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let shared = Rc::new(RefCell::new(Some(tx)));
    let other = shared.clone();
    shared.borrow().as_ref().unwrap().send(1).unwrap();
    other.borrow().as_ref().unwrap().send(2).unwrap();
    other.borrow_mut().take();
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
