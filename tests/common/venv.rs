//! Python venvs the tests install their tools into, once, under the target
//! folder (pip's registry is the only network they need).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `cmd`, failing the test with its output if it fails.
pub fn run(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The Python of the venv with msgspec, as the interop tests pin it, mypy,
/// which type-checks the generated classes, and numpy, which their arrays
/// convert to.
#[allow(dead_code)] // not every test binary that includes this file calls it
pub fn msgspec() -> PathBuf {
    python(
        "msgspec-mypy-numpy-venv",
        "msgspec-0.22.0-mypy-2.4.1-numpy-2.4.6.ready",
        &["msgspec==0.22.0", "mypy==2.4.1", "numpy==2.4.6"],
    )
}

/// The Python of venv `name` with `packages` installed (`ready` names the
/// marker of a finished install: change it when the packages change).
pub fn python(name: &str, ready: &str, packages: &[&str]) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let venv = root.join(name);
    let python = venv.join("bin").join("python");
    let ready = venv.join(ready);
    if ready.exists() {
        return python;
    }
    // Build aside and rename, so concurrent test runs never see half a venv.
    let staging = root.join(format!("{name}.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    run(
        Command::new("python3").args(["-m", "venv"]).arg(&staging),
        "creating a venv (python3 -m venv)",
    );
    run(
        Command::new(staging.join("bin").join("pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .args(packages),
        &format!("pip install {}", packages.join(" ")),
    );
    if std::fs::rename(&staging, &venv).is_err() {
        let _ = std::fs::remove_dir_all(&staging); // another run won the race
    }
    std::fs::write(&ready, "").unwrap();
    python
}
