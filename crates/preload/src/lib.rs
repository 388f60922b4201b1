//! The LD_PRELOAD library that puts welltempered locks under C programs; not implemented yet.
