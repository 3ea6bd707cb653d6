//! With the `ebpf` feature: compile `bpf/verdict.c` and `bpf/xsk.c` to BPF objects with clang
//! (`-O2 -g -target bpf`) into `OUT_DIR`; the crate embeds them. Without the feature: nothing
//! (no clang needed).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=bpf/verdict.c");
    println!("cargo:rerun-if-changed=bpf/xsk.c");
    println!("cargo:rerun-if-env-changed=CLANG");
    println!("cargo:rerun-if-env-changed=BPF_CFLAGS");
    if std::env::var_os("CARGO_FEATURE_EBPF").is_none() {
        return;
    }
    for name in ["verdict", "xsk"] {
        compile(name);
    }
}

/// `bpf/NAME.c` to `OUT_DIR/NAME.o`.
fn compile(name: &str) {
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".to_string());
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join(format!("{name}.o"));
    let mut cmd = Command::new(&clang);
    cmd.args(["-O2", "-g", "-target", "bpf", "-Wall", "-Werror"]);
    // `asm/types.h` and friends sit under the host's multiarch directory on Debian.
    let multiarch = match std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() {
        Ok("x86_64") => Some("/usr/include/x86_64-linux-gnu"),
        Ok("aarch64") => Some("/usr/include/aarch64-linux-gnu"),
        _ => None,
    };
    if let Some(dir) = multiarch {
        cmd.arg(format!("-I{dir}"));
    }
    if let Ok(extra) = std::env::var("BPF_CFLAGS") {
        cmd.args(extra.split_whitespace());
    }
    let src = format!("bpf/{name}.c");
    cmd.args(["-c", &src, "-o"]).arg(&out);
    let status = match cmd.status() {
        Ok(s) => s,
        Err(e) => panic!(
            "the `ebpf` feature compiles {src} with clang, and `{clang}` could not be run \
             ({e}); install clang and libbpf-dev (Debian: apt-get install clang libbpf-dev), or \
             set CLANG to its path, or build without the feature"
        ),
    };
    if !status.success() {
        panic!(
            "`{clang}` failed to compile {src} ({status}); its messages are above. It \
             needs the headers of libbpf-dev (bpf/bpf_helpers.h) and linux-libc-dev (linux/bpf.h)"
        );
    }
}
