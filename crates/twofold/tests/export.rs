//! `twofold compile --format bristol`: every example, exported as a flat
//! Bristol Fashion circuit and read back, computes what the program does.

use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use twofold::load::{load, LoadOptions};
use twofold_circuit::bristol::{read_bristol, write_bristol_program};

mod common;
use common::{path, twofold_ok, workspace};

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c" || e == "txt"))
        .collect();
    files.sort();
    files
}

/// Random inputs to try: many on small programs, a few on the largest (so
/// the whole round trip stays within seconds).
fn trials(gates: u64) -> usize {
    if gates < 100_000 {
        16
    } else if gates < 5_000_000 {
        4
    } else {
        2
    }
}

#[test]
fn every_example_round_trips_through_bristol() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(13);
    let files = examples();
    assert!(files.len() >= 10, "examples/ has {} programs", files.len());
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let program = load(&file, &LoadOptions::default())
            .unwrap()
            .into_garbled()
            .unwrap();
        let mut text = Vec::new();
        let gates = write_bristol_program(&program, &mut text).unwrap();
        let outputs = program.main.output_bits() as u64;
        assert_eq!(gates, program.counts().gates + 2 * outputs, "{name}");
        let text = String::from_utf8(text).unwrap();
        // Only the gates every reader knows (EMP takes EQW for INV).
        assert!(!text.contains("EQW") && !text.contains(" EQ\n"), "{name}");
        let flat = read_bristol(&text, &name).unwrap();
        drop(text);
        // The reader turns nothing into ANDs: the AND count is the program's.
        assert_eq!(flat.and_count() as u64, program.and_count(), "{name}");
        let widths: Vec<u32> = program.main.inputs.iter().map(|v| v.width).collect();
        let flat_widths: Vec<u32> = flat.inputs.iter().map(|v| v.width).collect();
        assert_eq!(flat_widths, widths, "{name}: input widths");
        for _ in 0..trials(gates) {
            let inputs: Vec<Vec<bool>> = widths
                .iter()
                .map(|&w| (0..w).map(|_| rng.gen()).collect())
                .collect();
            let want = program.eval(&inputs).unwrap();
            assert_eq!(flat.eval(&inputs).unwrap(), want, "{name}");
        }
    }
}

#[test]
fn compile_writes_bristol_or_binary_as_asked() {
    let dir = std::env::temp_dir().join(format!("twofold-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/mult32.c");
    let bristol = dir.join("mult32.txt");
    let binary = dir.join("mult32.tfc");
    let report = twofold_ok(&[
        "compile",
        source,
        "--format",
        "bristol",
        "-o",
        bristol.to_str().unwrap(),
    ]);
    assert!(report.contains("2016 AND gates"), "{report}");
    twofold_ok(&["compile", source, "-o", binary.to_str().unwrap()]);
    let text = std::fs::read_to_string(&bristol).unwrap();
    assert!(
        text.starts_with(&format!("{} ", 5888 + 2 * 64)),
        "{}",
        &text[..40]
    );
    assert!(std::fs::read(&binary).unwrap().starts_with(b"TWOFOLD\0"));
    let (a, b) = (4_000_000_007u64, 3_999_999_999u64);
    let from_c = twofold_ok(&[
        "eval",
        source,
        "-i",
        &format!("INPUT_A={a}"),
        "-i",
        &format!("INPUT_B={b}"),
    ]);
    assert_eq!(from_c.trim(), (a * b).to_string());
    // Bristol values are integers, bit k on wire k: the same product, in hex.
    let flat = twofold_ok(&[
        "eval",
        bristol.to_str().unwrap(),
        "-i",
        &a.to_string(),
        "-i",
        &b.to_string(),
    ]);
    assert_eq!(flat.trim(), format!("{:#x}", a * b));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An export that fails (a loop too long for a Bristol file's wire
/// numbers) leaves the file it would have replaced as it was, and no
/// temporary file beside it; it used to empty it.
#[test]
fn a_failed_export_leaves_the_old_file() {
    let long = "int mpc_main(int INPUT_A_x, int INPUT_B_y) { int r = INPUT_A_x; \
        for (int i = 0; i < 45000000; i++) r = (r ^ INPUT_B_y) + (r >> 1); return r; }\n";
    let dir = workspace(
        "failed-export",
        &[("long.c", long), ("out.txt", "previous\n")],
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(["compile", &path(&dir, "long.c"), "--format", "bristol"])
        .args(["-o", &path(&dir, "out.txt")])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("too many wires"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("out.txt")).unwrap(),
        "previous\n"
    );
    let left = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(left, 2, "only long.c and out.txt");
    let _ = std::fs::remove_dir_all(dir);
}
