//! `twofold completions SHELL` and `twofold man`: generated from the command
//! line, they name every subcommand.

use std::process::Command;

mod common;
use common::twofold_ok;

/// The subcommands every generated text must mention.
const SUBCOMMANDS: [&str; 10] = [
    "stats",
    "compile",
    "eval",
    "run",
    "mixed",
    "share",
    "reconstruct",
    "bench",
    "completions",
    "man",
];

#[test]
fn completions_for_each_shell_name_every_subcommand() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef twofold"),
        ("fish", "complete -c twofold"),
    ] {
        let script = twofold_ok(&["completions", shell]);
        assert!(script.contains(marker), "{shell}: no `{marker}`");
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "{shell} completions lack `{sub}`");
        }
    }
    // Options of a subcommand complete too.
    let bash = twofold_ok(&["completions", "bash"]);
    assert!(bash.contains("--reveal-to") && bash.contains("--format"));
}

#[test]
fn man_pages_list_the_subcommands_and_their_options() {
    let page = twofold_ok(&["man"]);
    assert!(page.contains(".TH twofold 1"), "{page}");
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!("twofold\\-{sub}(1)")),
            "man lacks `{sub}`"
        );
    }
    let run = twofold_ok(&["man", "run"]);
    assert!(run.contains(".TH twofold-run 1"), "{run}");
    assert!(run.contains("\\-\\-local"), "{run}");
    let err = Command::new(env!("CARGO_BIN_EXE_twofold"))
        .args(["man", "nosuch"])
        .output()
        .unwrap();
    assert!(!err.status.success());
    let err = String::from_utf8(err.stderr).unwrap();
    assert!(
        err.contains("no subcommand `nosuch` (there are: stats, compile"),
        "{err}"
    );
}
