//! Embedding twofold in a Rust program: compile a C function, give each
//! party's inputs as C initializers, run both parties in this process or one
//! party over a connection the caller opened, and read the outputs as typed
//! values.
//!
//! Both parties in this process (over socketpairs, nothing listening):
//!
//! ```
//! use twofold::api::{Party, SecureProgram};
//!
//! let program = SecureProgram::compile(
//!     "int mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A * INPUT_B; }",
//! )?;
//! let a = program.inputs_of(Party::A, &[("INPUT_A", "-6")])?;
//! let b = program.inputs_of(Party::B, &[("INPUT_B", "7")])?;
//! let outputs = program.run_local(&a, &b)?;
//! assert_eq!(outputs.int("return"), Some(-42));
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! One party each over a TCP connection that the application opened itself
//! (here both ends in one process; in real use each end is on its own
//! machine, with only its own inputs). Party A garbles, party B evaluates;
//! both learn the outputs:
//!
//! ```
//! use std::net::{TcpListener, TcpStream};
//! use twofold::api::{Party, SecureProgram};
//!
//! let source = "
//!     typedef struct { unsigned char v[4]; } Bytes;
//!     Bytes mpc_main(Bytes INPUT_A, Bytes INPUT_B) {
//!         Bytes x;
//!         for (int i = 0; i < 4; i++) x.v[i] = INPUT_A.v[i] ^ INPUT_B.v[i];
//!         return x;
//!     }";
//! let program = SecureProgram::compile(source)?;
//! let listener = TcpListener::bind("127.0.0.1:0")?;
//! let addr = listener.local_addr()?;
//! let (a, b) = std::thread::scope(|s| {
//!     let garbler = s.spawn(|| {
//!         let (stream, _) = listener.accept()?;
//!         let mine = program.inputs_of(Party::A, &[("INPUT_A", "{1, 2, 3, 4}")])?;
//!         program.run_party(stream, Party::A, &mine)
//!     });
//!     let stream = TcpStream::connect(addr)?;
//!     let mine = program.inputs_of(Party::B, &[("INPUT_B", "{0xff, 2, 0, 8}")])?;
//!     let b = program.run_party(stream, Party::B, &mine);
//!     anyhow::Ok((garbler.join().unwrap()?, b?))
//! })?;
//! assert_eq!(a.ints("return"), Some(vec![254, 0, 3, 12]));
//! assert_eq!(b.text("return").as_deref(), Some("{{254, 0, 3, 12}}"));
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! For more threads, inter-party parallelism or a party that listens and
//! connects by itself, use [`twofold_protocol::run_remote`] (or
//! [`twofold_protocol::run_session`]) on [`SecureProgram::program`] with
//! these inputs.

use std::net::TcpStream;

use anyhow::{bail, Context, Result};
use twofold_compiler::{compile, compile_mixed, CType, CValue, CompileOptions};
use twofold_net::{Channel, ChannelOptions};
use twofold_protocol::mixed::network::Network;
use twofold_protocol::mixed::{run_mixed, run_mixed_local, MixedOptions};
use twofold_protocol::{PartyInputs, Peer, Schedule, SessionOptions};

pub use crate::choice::Protocol;
use crate::choice::{choose, Chosen, Parties};
use crate::load::with_sums;

pub use twofold_circuit::{Party, Program};

/// A C program compiled for secure computation, with the C types of its
/// inputs and outputs.
#[derive(Clone, Debug)]
pub struct SecureProgram {
    program: Program,
    inputs: Vec<(String, CType)>,
    outputs: Vec<(String, CType)>,
    /// The mixed program that runs instead of `program`, if chosen.
    mixed: Option<Chosen>,
}

impl SecureProgram {
    /// Compiles C source (twofold's conventions: `mpc_main(INPUT_A,
    /// INPUT_B)` returning the output, or `INPUT_A_*`, `INPUT_B_*` and
    /// `OUTPUT_*` variables in `main`). Errors read `input.c:line:col: ...`.
    /// It runs as `twofold run` runs it by default (`--protocol auto` on a
    /// LAN): sums of products of secrets in arithmetic sharing where the
    /// estimate says that is faster.
    pub fn compile(source: &str) -> Result<SecureProgram> {
        SecureProgram::compile_as(source, Protocol::Auto)
    }

    /// [`SecureProgram::compile`] for `protocol` (as `twofold run
    /// --protocol`).
    pub fn compile_as(source: &str, protocol: Protocol) -> Result<SecureProgram> {
        let opts = CompileOptions::default();
        let compiled = compile(source, "input.c", &opts).map_err(|e| anyhow::anyhow!("{e}"))?;
        let choice = choose(
            protocol,
            (&Network::LAN, &Parties::Two),
            (&compiled.program, compiled.work),
            compiled.secret_products,
            |max, sums| compile_mixed(source, "input.c", &with_sums(&opts, max, sums)),
        )?;
        Ok(SecureProgram {
            program: compiled.program,
            inputs: compiled.inputs,
            outputs: compiled.outputs,
            mixed: choice.chosen,
        })
    }

    /// Whether it runs as a mixed program (arithmetic sharing beside
    /// garbled circuits).
    pub fn is_mixed(&self) -> bool {
        self.mixed.is_some()
    }

    /// The compiled program (for [`twofold_protocol`]'s functions).
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The inputs: name, owner and C type, in order.
    pub fn inputs(&self) -> impl Iterator<Item = (&str, Party, &CType)> {
        self.program
            .main
            .inputs
            .iter()
            .zip(&self.inputs)
            .map(|(v, (name, ty))| (name.as_str(), v.party, ty))
    }

    /// `party`'s inputs from `(name, C initializer)` pairs (`("INPUT_A",
    /// "5")`, `("INPUT_B", "{1, 2, 3}")`): every input the party owns must be
    /// given, and no other.
    pub fn inputs_of(&self, party: Party, values: &[(&str, &str)]) -> Result<PartyInputs> {
        let mine: Vec<&str> = self
            .inputs()
            .filter(|&(_, owner, _)| owner == party)
            .map(|(name, _, _)| name)
            .collect();
        if let Some((name, _)) = values.iter().find(|(name, _)| !mine.contains(name)) {
            bail!(
                "party {party:?} has no input `{name}` (its inputs: {})",
                mine.join(", ")
            );
        }
        self.inputs()
            .map(|(name, owner, ty)| {
                if owner != party {
                    return Ok(None);
                }
                let (_, text) = values
                    .iter()
                    .find(|(given, _)| *given == name)
                    .with_context(|| format!("no value for party {party:?}'s input `{name}`"))?;
                let bits = ty
                    .parse_value(text)
                    .map_err(|e| anyhow::anyhow!("input `{name}`: {e}"))?;
                Ok(Some(bits))
            })
            .collect()
    }

    /// Runs both parties in this process, over socketpairs, with the
    /// default options (both learn the outputs).
    pub fn run_local(&self, a: &PartyInputs, b: &PartyInputs) -> Result<Outputs> {
        if let Some(chosen) = &self.mixed {
            let c = &chosen.compiled;
            let (report, _) = run_mixed_local(
                &c.program,
                (&c.mixed_inputs(a), &c.mixed_inputs(b)),
                &MixedOptions::default(),
                &ChannelOptions::default(),
            )?;
            return self.outputs_of(report.outputs.map(|o| c.c_outputs(&o)));
        }
        let opts = SessionOptions::default();
        let (report, _) =
            twofold_protocol::run_local(&self.program, a, b, &opts, &ChannelOptions::default())?;
        self.outputs_of(report.outputs)
    }

    /// Runs `party`'s side over `stream`, a connection to the peer opened by
    /// the caller (accepted by one party, connected by the other), on one
    /// thread with the sequential schedule; the peer runs the other party
    /// with the same program and the same options (this method, or `twofold
    /// run ... --threads 1 --schedule seq`; the handshake checks).
    pub fn run_party(
        &self,
        stream: TcpStream,
        party: Party,
        inputs: &PartyInputs,
    ) -> Result<Outputs> {
        let channel = Channel::new(stream, ChannelOptions::default())?;
        if let Some(chosen) = &self.mixed {
            let c = &chosen.compiled;
            let report = run_mixed(
                channel,
                party,
                &c.program,
                &c.mixed_inputs(inputs),
                &MixedOptions::default(),
            )?;
            return self.outputs_of(report.outputs.map(|o| c.c_outputs(&o)));
        }
        let opts = SessionOptions {
            schedule: Schedule::Sequential,
            threads: 1,
            ..SessionOptions::default()
        };
        let report = twofold_protocol::run_session(
            channel,
            &Peer::Single,
            party,
            &self.program,
            inputs,
            &opts,
        )?;
        self.outputs_of(report.outputs)
    }

    fn outputs_of(&self, outputs: Option<Vec<Vec<bool>>>) -> Result<Outputs> {
        let bits = outputs.context("this party does not learn the outputs")?;
        Ok(Outputs {
            values: self.outputs.iter().cloned().zip(bits).collect(),
        })
    }
}

/// The output values of a run, by name (`return` for a return value, else
/// the `OUTPUT_*` variables), with their C types.
#[derive(Clone, Debug)]
pub struct Outputs {
    values: Vec<((String, CType), Vec<bool>)>,
}

impl Outputs {
    /// The output names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.iter().map(|((name, _), _)| name.as_str())
    }

    /// An output as a number or nested lists (arrays, struct members).
    pub fn value(&self, name: &str) -> Option<CValue> {
        self.find(name).map(|(ty, bits)| ty.json_value(bits))
    }

    /// A scalar output (signed or unsigned as its C type says).
    pub fn int(&self, name: &str) -> Option<i128> {
        match self.value(name)? {
            CValue::Int(v) => Some(v),
            CValue::Float { .. } | CValue::List(_) => None,
        }
    }

    /// A `float` or `double` output, as an `f64` (exact for both).
    pub fn float(&self, name: &str) -> Option<f64> {
        match self.value(name)? {
            CValue::Float { bits, width: 32 } => Some(f32::from_bits(bits as u32) as f64),
            CValue::Float { bits, .. } => Some(f64::from_bits(bits)),
            CValue::Int(_) | CValue::List(_) => None,
        }
    }

    /// An array (or struct) of integer scalars, flattened in order (`None`
    /// if it holds a floating value).
    pub fn ints(&self, name: &str) -> Option<Vec<i128>> {
        fn flatten(v: CValue, out: &mut Vec<i128>) -> Option<()> {
            match v {
                CValue::Int(x) => out.push(x),
                CValue::Float { .. } => return None,
                CValue::List(items) => {
                    for i in items {
                        flatten(i, out)?;
                    }
                }
            }
            Some(())
        }
        let mut out = Vec::new();
        flatten(self.value(name)?, &mut out)?;
        Some(out)
    }

    /// An output as a C initializer (`-42`, `{1, 2, 3}`).
    pub fn text(&self, name: &str) -> Option<String> {
        self.find(name).map(|(ty, bits)| ty.format_value(bits))
    }

    /// An output's bits, least significant first.
    pub fn bits(&self, name: &str) -> Option<&[bool]> {
        self.find(name).map(|(_, bits)| bits)
    }

    fn find(&self, name: &str) -> Option<(&CType, &[bool])> {
        self.values
            .iter()
            .find(|((n, _), _)| n == name)
            .map(|((_, ty), bits)| (ty, bits.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: &str =
        "int mpc_main(int INPUT_A, int INPUT_B) { return INPUT_A > INPUT_B ? INPUT_A : INPUT_B; }";

    #[test]
    fn inputs_are_checked_by_name_and_owner() {
        let p = SecureProgram::compile(MAX).unwrap();
        let names: Vec<_> = p.inputs().map(|(n, party, _)| (n, party)).collect();
        assert_eq!(names, [("INPUT_A", Party::A), ("INPUT_B", Party::B)]);
        let err = p.inputs_of(Party::A, &[("INPUT_B", "1")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "party A has no input `INPUT_B` (its inputs: INPUT_A)"
        );
        let err = p.inputs_of(Party::A, &[]).unwrap_err();
        assert_eq!(err.to_string(), "no value for party A's input `INPUT_A`");
        let err = p.inputs_of(Party::B, &[("INPUT_B", "{")]).unwrap_err();
        assert!(err.to_string().starts_with("input `INPUT_B`: "), "{err}");
        assert_eq!(
            p.inputs_of(Party::A, &[("INPUT_A", "3")]).unwrap(),
            vec![Some(p.inputs[0].1.parse_value("3").unwrap()), None]
        );
    }

    #[test]
    fn compile_errors_name_the_line() {
        let err = SecureProgram::compile("int mpc_main(int INPUT_A) { return INPUT_A +; }")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("input.c:1:"), "{err}");
    }

    #[test]
    fn outputs_read_as_typed_values() {
        let p = SecureProgram::compile(MAX).unwrap();
        let a = p.inputs_of(Party::A, &[("INPUT_A", "-5")]).unwrap();
        let b = p.inputs_of(Party::B, &[("INPUT_B", "-9")]).unwrap();
        let out = p.run_local(&a, &b).unwrap();
        assert_eq!(out.names().collect::<Vec<_>>(), ["return"]);
        assert_eq!(out.int("return"), Some(-5));
        assert_eq!(out.ints("return"), Some(vec![-5]));
        assert_eq!(out.text("return").as_deref(), Some("-5"));
        assert_eq!(out.bits("return").map(<[bool]>::len), Some(32));
        assert_eq!(out.int("nothing"), None);
    }
}
