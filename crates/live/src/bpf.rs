//! tcpdump filter expressions compiled to classic BPF by `tcpdump -ddd`.
//!
//! Why a subprocess: the alternative is linking libpcap (the `pcap` crate and libpcap-dev at build
//! time) for one function used once at start. tcpdump is libpcap's own front end, so the program
//! is exactly what libpcap would compile; it is only needed when `--filter` is given, and its
//! absence is a clear error, not a build failure.

use crate::sys::BpfInsn;
use std::io::Write;
use std::process::{Command, Stdio};

/// Compile `expr` for Ethernet frames. A missing tcpdump or a bad expression is an error that
/// says so.
///
/// No file is written (issue 33: the run is root, and a file at a predictable path in the
/// temporary directory could be a planted symbolic link): tcpdump reads the empty capture that
/// gives it the link type from its standard input, and takes the expression after `--`, so an
/// expression starting with `-` is never read as an option.
pub fn compile(expr: &str) -> Result<Vec<BpfInsn>, String> {
    // tcpdump compiles for the link type of its input: an empty Ethernet capture, so no
    // interface (nor privilege) is needed.
    let mut hdr = Vec::with_capacity(24);
    hdr.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    hdr.extend_from_slice(&2u16.to_le_bytes());
    hdr.extend_from_slice(&4u16.to_le_bytes());
    hdr.extend_from_slice(&[0; 8]);
    hdr.extend_from_slice(&262_144u32.to_le_bytes());
    hdr.extend_from_slice(&1u32.to_le_bytes());
    let out = Command::new("tcpdump")
        .args(["-ddd", "-r", "-", "--", expr])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            if let Some(mut stdin) = c.stdin.take() {
                // 24 bytes fit a pipe's buffer; a tcpdump that has already failed (a broken
                // pipe) says why on its standard error.
                let _ = stdin.write_all(&hdr);
            }
            c.wait_with_output()
        });
    let out = out.map_err(|e| {
        format!(
            "--filter needs tcpdump to compile the expression, and running it failed ({e}); \
             install it (Debian/Ubuntu: apt-get install tcpdump)"
        )
    })?;
    if !out.status.success() {
        return Err(format!(
            "tcpdump could not compile the filter {expr:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    parse_ddd(&String::from_utf8_lossy(&out.stdout))
}

/// Parse `tcpdump -ddd` output: the instruction count, then one `code jt jf k` line (decimal)
/// per instruction.
pub fn parse_ddd(text: &str) -> Result<Vec<BpfInsn>, String> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let n: usize = lines
        .next()
        .and_then(|l| l.parse().ok())
        .ok_or("tcpdump -ddd: no instruction count")?;
    // The kernel accepts at most 4096 instructions (BPF_MAXINSNS).
    if n == 0 || n > 4096 {
        return Err(format!("tcpdump -ddd: bad instruction count {n}"));
    }
    let mut prog = Vec::with_capacity(n);
    for l in lines.by_ref().take(n) {
        let f: Vec<&str> = l.split_whitespace().collect();
        let bad = || format!("tcpdump -ddd: bad instruction line {l:?}");
        if f.len() != 4 {
            return Err(bad());
        }
        prog.push(BpfInsn {
            code: f[0].parse().map_err(|_| bad())?,
            jt: f[1].parse().map_err(|_| bad())?,
            jf: f[2].parse().map_err(|_| bad())?,
            k: f[3].parse().map_err(|_| bad())?,
        });
    }
    if prog.len() != n {
        return Err(format!(
            "tcpdump -ddd: {n} instructions announced, {} given",
            prog.len()
        ));
    }
    Ok(prog)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ip` on Ethernet, in the classic BPF of the BPF paper (McCanne & Jacobson) and tcpdump's
    /// manual: load the half-word at 12 (ldh = 0x28 = 40), jump if it equals 0x800 (jeq = 0x15 =
    /// 21), return the snap length (ret = 6) or 0.
    #[test]
    fn parses_the_ip_filter() {
        let p = parse_ddd("4\n40 0 0 12\n21 0 1 2048\n6 0 0 262144\n6 0 0 0\n").unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(
            p[1],
            BpfInsn {
                code: 0x15,
                jt: 0,
                jf: 1,
                k: 0x800
            }
        );
        assert_eq!(p[3].k, 0);
    }

    #[test]
    fn rejects_damaged_output() {
        assert!(parse_ddd("").is_err());
        assert!(parse_ddd("2\n40 0 0 12\n").is_err());
        assert!(parse_ddd("1\n40 0 12\n").is_err());
        assert!(parse_ddd("1\n40 0 0 x\n").is_err());
        assert!(parse_ddd("99999\n").is_err());
    }

    proptest::proptest! {
        #[test]
        fn any_text_parses_or_fails_cleanly(t in "\\PC{0,200}") {
            let _ = parse_ddd(&t);
        }

        #[test]
        fn round_trip(p in proptest::collection::vec(
            (proptest::prelude::any::<u16>(), proptest::prelude::any::<u8>(),
             proptest::prelude::any::<u8>(), proptest::prelude::any::<u32>()), 1..50)) {
            let mut text = format!("{}\n", p.len());
            for (code, jt, jf, k) in &p {
                text.push_str(&format!("{code} {jt} {jf} {k}\n"));
            }
            let got = parse_ddd(&text).unwrap();
            let want: Vec<BpfInsn> =
                p.iter().map(|&(code, jt, jf, k)| BpfInsn { code, jt, jf, k }).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }

    /// Issue 33: a symbolic link planted at the path the filter was once compiled through
    /// (`$TMPDIR/wirespeed-bpf-PID`) must not redirect a write: nothing is written anywhere.
    #[cfg(unix)]
    #[test]
    fn writes_no_file_through_a_planted_link() {
        let victim = tempfile::tempdir().unwrap();
        let planted = std::env::temp_dir().join(format!("wirespeed-bpf-{}", std::process::id()));
        let _ = std::fs::remove_file(&planted);
        std::os::unix::fs::symlink(victim.path(), &planted).unwrap();
        let r = compile("udp port 53");
        let _ = std::fs::remove_file(&planted);
        let written: Vec<_> = std::fs::read_dir(victim.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            written.is_empty(),
            "written through the link: {written:?} ({r:?})"
        );
    }

    /// An expression that looks like an option is an expression: `-v` read as an option left
    /// an empty expression, which compiled to "accept everything".
    #[test]
    fn an_expression_is_never_an_option() {
        match compile("-v") {
            Err(e) => assert!(
                e.contains("could not compile") || e.contains("needs tcpdump"),
                "{e}"
            ),
            Ok(p) => panic!("compiled: {p:?}"),
        }
    }

    #[test]
    fn compiles_with_tcpdump_when_installed() {
        match compile("udp port 53") {
            Ok(p) => {
                // Starts by loading the ethertype, ends with a return.
                assert_eq!((p[0].code, p[0].k), (0x28, 12));
                assert_eq!(p.last().unwrap().code & 0x07, 0x06);
            }
            Err(e) if e.contains("needs tcpdump") => eprintln!("SKIPPED: {e}"),
            Err(e) => panic!("{e}"),
        }
        if let Err(e) = compile("this is not a filter") {
            assert!(
                e.contains("could not compile") || e.contains("needs tcpdump"),
                "{e}"
            );
        } else {
            panic!("a bad expression compiled");
        }
    }
}
