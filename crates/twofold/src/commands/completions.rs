//! `twofold completions SHELL` and `twofold man`: shell completion scripts
//! and a man page, generated from the command-line definition itself (so
//! they never fall out of step with it).

use anyhow::{Context, Result};
use clap_complete::Shell;

/// Arguments of `completions`.
#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to write completions for (bash, zsh, fish, elvish, powershell).
    #[arg(value_enum)]
    shell: Shell,
}

/// The completion script for `args.shell`, for the command line `cli`
/// (install it where the shell looks, e.g. `twofold completions bash >
/// ~/.local/share/bash-completion/completions/twofold`).
pub fn completions(args: &CompletionsArgs, mut cli: clap::Command) -> Result<String> {
    let name = cli.get_name().to_string();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cli, name, &mut out);
    Ok(String::from_utf8(out)?)
}

/// Arguments of `man`.
#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// A subcommand whose page to write (`twofold-run(1)`, ...); without
    /// it, the page of `twofold` itself, which lists the subcommands.
    subcommand: Option<String>,
}

/// The man page (roff) of the command line `cli` or, with
/// `args.subcommand`, of one of its subcommands (view it with `twofold man
/// | man -l -`).
pub fn man(args: &ManArgs, cli: clap::Command) -> Result<String> {
    let cli = cli.disable_help_subcommand(true);
    let page = match &args.subcommand {
        None => cli,
        Some(name) => {
            let sub = cli.find_subcommand(name).with_context(|| {
                let names: Vec<&str> = cli.get_subcommands().map(|s| s.get_name()).collect();
                format!("no subcommand `{name}` (there are: {})", names.join(", "))
            })?;
            let (top, name) = (cli.get_name(), sub.get_name());
            sub.clone()
                .display_name(format!("{top}-{name}"))
                .bin_name(format!("{top} {name}"))
                .version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    Ok(String::from_utf8(out)?)
}
