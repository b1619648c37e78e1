//! The process's allocator settings.

/// Largest allocation glibc's malloc serves from its heaps (1 MiB); larger ones are mapped and
/// unmapped on their own. glibc raises this threshold as large blocks are freed (up to 32 MiB),
/// after which every worker thread's heap keeps the megabytes of text it last held: peak memory
/// then grows with the thread count (issue 15). Fixed, it does not (docs/robustness.md).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 1 << 20;

/// Fixes glibc's mmap threshold at [`MMAP_THRESHOLD`]; does nothing on other platforms.
pub fn bound_heap_growth() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a malloc parameter; called once, before any threads start.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}
