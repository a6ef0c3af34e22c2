//! The `twofold` command line: parses the arguments and hands them to the
//! subcommand's module in [`twofold::commands`].

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory, Parser, Subcommand};
use twofold::commands::{
    bench, compile, completions, eval, keygen, mixed, reconstruct, run, share, stats,
};

/// Secure two-party computation with Yao's garbled circuits.
#[derive(Parser)]
#[command(name = "twofold", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Gates, AND gates, depth, level widths and input/output widths of a program.
    Stats(stats::StatsArgs),
    /// Write a program (e.g. compiled from C) in twofold's binary format, so
    /// both parties can load it without compiling.
    Compile(compile::CompileArgs),
    /// Plaintext evaluation (no security: for checking programs and inputs).
    Eval(eval::EvalArgs),
    /// Run a secure two-party computation (or, with --parties 3, the
    /// three-party hybrid mode on shared values).
    Run(run::RunArgs),
    /// A mixed program (arithmetic beside garbled circuits): its partition
    /// and estimated cost against pure garbled circuits for --network; a
    /// run with --local, or --party with --listen/--connect.
    Mixed(mixed::MixedArgs),
    /// Make a key pair for secure channels: NAME.key (private, mode 0600)
    /// and NAME.pub (give it to the peers).
    Keygen(keygen::KeygenArgs),
    /// Split input values into three shares, one in each computing party's
    /// store (the hybrid mode).
    Share(share::ShareArgs),
    /// Combine the three stores' shares of a program's outputs.
    Reconstruct(reconstruct::ReconstructArgs),
    /// Measure garbling, evaluation and full-protocol speed.
    Bench(bench::BenchArgs),
    /// Write a shell completion script for twofold to standard output.
    Completions(completions::CompletionsArgs),
    /// Write twofold's man page (or a subcommand's) to standard output.
    Man(completions::ManArgs),
}

fn main() -> ExitCode {
    twofold::started();
    let result: Result<String> = match Cli::parse().command {
        Cmd::Stats(args) => stats::stats(&args),
        Cmd::Compile(args) => compile::compile(&args),
        Cmd::Eval(args) => eval::eval(&args),
        Cmd::Run(args) => run::run(&args),
        Cmd::Mixed(args) => mixed::mixed(&args),
        Cmd::Keygen(args) => keygen::keygen(&args),
        Cmd::Share(args) => share::share(&args),
        Cmd::Reconstruct(args) => reconstruct::reconstruct(&args),
        Cmd::Bench(args) => bench::bench(&args),
        Cmd::Completions(args) => completions::completions(&args, Cli::command()),
        Cmd::Man(args) => completions::man(&args, Cli::command()),
    };
    match result {
        Ok(out) => match write_out(&out) {
            Ok(()) => ExitCode::SUCCESS,
            // The reader stopped early (`twofold stats F | head`): it has
            // what it wanted.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("twofold: error: cannot write to standard output: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("twofold: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Writes a command's result to standard output.
fn write_out(out: &str) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()
}
