//! Which vector instructions the crate's integer kernels use ([`Simd`]), chosen at run time: the
//! move network's ([`crate::model::network::NetworkState`]) and the integer Chessformer's
//! (`model::transformer::simd`, which holds those kernels). Every path computes the same
//! integers, so archives do not depend on the choice.
//!
//! [`active`] is the path in use: the best the processor has ([`best`], detected once at run
//! time; no build flags), unless [`force`] or the environment variable `CHESSZIP_SIMD`
//! (`scalar`, `avx2`, `avx512`; read once per process) asks for a lower one. It chooses the path of
//! both networks, in the CLI, the library and Python alike: for measuring the paths and for tests
//! that compare them.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction set the kernels can use, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Simd {
    /// Portable Rust (whatever the compiler makes of it for the baseline target).
    Scalar,
    /// x86-64 AVX2: `vpmaddwd` + `vpaddd` on 256-bit registers.
    Avx2,
    /// x86-64 AVX-512 (F, BW, VL, DQ) with VNNI: `vpdpwssd` on 512-bit registers.
    Avx512,
}

impl Simd {
    /// Its name, as `CHESSZIP_SIMD` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Simd::Scalar => "scalar",
            Simd::Avx2 => "avx2",
            Simd::Avx512 => "avx512",
        }
    }

    /// The best path this processor has ([`best`]).
    pub fn best() -> Simd {
        best()
    }

    /// The path in use now ([`active`]).
    pub fn active() -> Simd {
        active()
    }
}

static FORCED: AtomicU8 = AtomicU8::new(0);

/// Makes later work use at most `path` (`None`: the best available, or what `CHESSZIP_SIMD` asks
/// for): the transformer's next forward passes, and the move network's states made from now on.
/// For tests that compare the paths, and for measuring them.
pub fn force(path: Option<Simd>) {
    let v = match path {
        None => 0,
        Some(Simd::Scalar) => 1,
        Some(Simd::Avx2) => 2,
        Some(Simd::Avx512) => 3,
    };
    FORCED.store(v, Ordering::Relaxed);
}

/// The best path this processor has (detected once).
pub fn best() -> Simd {
    static BEST: OnceLock<Simd> = OnceLock::new();
    *BEST.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("avx512vl")
                && std::is_x86_feature_detected!("avx512dq")
                && std::is_x86_feature_detected!("avx512vnni")
                && std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("fma")
                && std::is_x86_feature_detected!("bmi2")
            {
                return Simd::Avx512;
            }
            // The transformer's AVX2 pass also uses FMA and BMI2 (every AVX2 processor has them).
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") && std::is_x86_feature_detected!("bmi2") {
                return Simd::Avx2;
            }
        }
        Simd::Scalar
    })
}

/// The path `CHESSZIP_SIMD` asks for (read once; unset or unknown: none).
fn from_env() -> Option<Simd> {
    static ENV: OnceLock<Option<Simd>> = OnceLock::new();
    *ENV.get_or_init(|| match std::env::var("CHESSZIP_SIMD").ok()?.to_ascii_lowercase().as_str() {
        "scalar" | "portable" => Some(Simd::Scalar),
        "avx2" => Some(Simd::Avx2),
        "avx512" | "vnni" => Some(Simd::Avx512),
        _ => None,
    })
}

/// The path in use now: the best available, lowered by [`force`] or `CHESSZIP_SIMD`.
pub fn active() -> Simd {
    let asked = match FORCED.load(Ordering::Relaxed) {
        1 => Some(Simd::Scalar),
        2 => Some(Simd::Avx2),
        3 => Some(Simd::Avx512),
        _ => from_env(),
    };
    asked.map_or(best(), |a| a.min(best()))
}
