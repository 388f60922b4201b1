//! The OpenMP-style team runtime (omp0); not implemented yet.
