//! Which vector instructions the network's inference uses ([`Simd`]), chosen at run time.

/// The vector instructions a [`NetworkState`](super::NetworkState) uses, ordered from none to the widest. All paths
/// compute the same integers (integer sums are exact in any order); a test compares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Simd {
    /// Portable code (what the compiler vectorises for the build's baseline target).
    Scalar,
    /// x86-64 AVX2: 256-bit vectors, hand-written kernels for the dense layers.
    Avx2,
}

impl Simd {
    /// The widest path this processor runs.
    pub fn best() -> Simd {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                return Simd::Avx2;
            }
        }
        Simd::Scalar
    }
}
