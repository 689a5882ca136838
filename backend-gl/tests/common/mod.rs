//! What the end-to-end tests share: the agent library and the test apps,
//! built on first use into this test binary's own target directory (cargo
//! cannot make another package's binaries a dependency of tests).

#![allow(dead_code)]

pub mod debugger;

use std::path::PathBuf;
use std::sync::OnceLock;

pub struct Artifacts {
    /// `<target>/<profile>`, where the test apps are.
    pub dir: PathBuf,
    pub agent: PathBuf,
    pub single_pass: PathBuf,
    pub dlopen_app: PathBuf,
}

/// `<target>/<profile>` of this test binary.
pub fn profile_dir() -> PathBuf {
    shaderdbg_test_support::profile_dir()
}

pub fn artifacts() -> &'static Artifacts {
    static ARTIFACTS: OnceLock<Artifacts> = OnceLock::new();
    ARTIFACTS.get_or_init(|| {
        let dir = shaderdbg_test_support::built().to_path_buf();
        let a = Artifacts {
            dir: dir.clone(),
            agent: dir.join("libshaderdbg_agent.so"),
            single_pass: dir.join("single_pass"),
            dlopen_app: dir.join("dlopen_app"),
        };
        for p in [&a.agent, &a.single_pass, &a.dlopen_app] {
            assert!(p.exists(), "{} missing after cargo build", p.display());
        }
        a
    })
}

impl Artifacts {
    /// A test app (a binary of `tests/apps`) by name.
    pub fn app(&self, name: &str) -> PathBuf {
        let p = self.dir.join(name);
        assert!(p.exists(), "{} missing after cargo build", p.display());
        p
    }
}

/// 64-bit FNV-1a (the test apps' frame checksum).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
