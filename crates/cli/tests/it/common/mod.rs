//! Helpers shared by the command-line tests: the binary, a scratch folder per module, and a
//! freshly generated demo capture. Each module uses only some of them.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// The `wirespeed` binary cargo built for these tests.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wirespeed"))
}

/// A path in the calling module's own scratch folder in this process: the modules' tests run in
/// parallel threads of one process, and two modules may name their files alike.
#[track_caller]
pub fn temp(name: &str) -> PathBuf {
    let module = std::path::Path::new(std::panic::Location::caller().file())
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let dir = std::env::temp_dir().join(format!("wirespeed-test-{}-{module}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A fresh demo capture under a name of the caller's: tests run in parallel threads of one
/// process, and a shared file would be rewritten (truncated) under another test's feet.
#[track_caller]
pub fn demo(name: &str) -> PathBuf {
    let p = temp(name);
    ok(bin().args(["gen", "demo", "-o"]).arg(&p));
    p
}

/// Run `cmd`, which must succeed (its standard error in the message when not); its output.
pub fn ok(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A fresh worst-case capture (`gen worst-case`) of `flows` flows, `window` interleaved.
#[track_caller]
pub fn worst_case(name: &str, flows: u32, window: u32) -> PathBuf {
    let p = temp(name);
    let (flows, window) = (flows.to_string(), window.to_string());
    ok(bin()
        .args([
            "gen",
            "worst-case",
            "--flows",
            &flows,
            "--window",
            &window,
            "-o",
        ])
        .arg(&p));
    p
}

/// Are the `tools` installed (each answers `--version`)? When not: under `CI=true` a panic
/// naming them (.ci/run installs them; CI must not pass by skipping), elsewhere `SKIPPED` on
/// standard error and false.
pub fn tools(test: &str, tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|t| Command::new(t).arg("--version").output().is_err())
        .collect();
    if missing.is_empty() {
        return true;
    }
    let why = format!("{test}: {} not installed", missing.join(", "));
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why}; .ci/run installs them");
    }
    eprintln!("SKIPPED: {why}");
    false
}

/// Can python3 import `module`? When not: under `CI=true` a panic naming it (.ci/run installs
/// it; CI must not pass by skipping), elsewhere `SKIPPED` on standard error and false.
pub fn python_module(test: &str, module: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return true;
    }
    let why = format!("{test}: python3 with {module} not installed");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why}; .ci/run installs it (python3 -m pip install {module})");
    }
    eprintln!("SKIPPED: {why}");
    false
}
pub mod netns;
