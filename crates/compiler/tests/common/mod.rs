//! Helpers shared by the integration tests.
#![allow(dead_code)]

use twofold_circuit::Block;
use twofold_compiler::{CType, CValue, CompiledProgram};

/// Flattens a value to its scalars with their widths.
pub fn leaves(ty: &CType, v: &CValue, out: &mut Vec<(u32, i128)>) {
    match (ty, v) {
        (CType::Array(e, _), CValue::List(items)) => {
            for it in items {
                leaves(e, it, out);
            }
        }
        (CType::Struct(s), CValue::List(items)) => {
            for ((_, t), it) in s.fields.iter().zip(items) {
                leaves(t, it, out);
            }
        }
        (t, CValue::Int(x)) => out.push((t.width(), *x)),
        (t, CValue::Float { bits, .. }) => out.push((t.width(), *bits as i128)),
        _ => panic!("value does not match its type"),
    }
}

/// Evaluates a compiled program on inputs given as C initializers (by name).
pub fn run(p: &CompiledProgram, inputs: &[(String, String)]) -> Vec<Vec<bool>> {
    let mut bits = Vec::new();
    for (name, ty) in &p.inputs {
        let text = &inputs
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no value for input {name}"))
            .1;
        bits.push(
            ty.parse_value(text)
                .unwrap_or_else(|e| panic!("bad value {text}: {e}")),
        );
    }
    p.program.eval(&bits).expect("evaluation")
}

/// The scalars of all outputs, each reduced modulo 2^width.
pub fn output_scalars(p: &CompiledProgram, outs: &[Vec<bool>]) -> Vec<u128> {
    let mut v = Vec::new();
    for ((_, ty), bits) in p.outputs.iter().zip(outs) {
        let mut l = Vec::new();
        leaves(ty, &ty.json_value(bits), &mut l);
        for (w, x) in l {
            v.push(modw(x, w));
        }
    }
    v
}

/// `x` modulo `2^w`.
pub fn modw(x: i128, w: u32) -> u128 {
    (x as u128)
        & if w >= 128 {
            u128::MAX
        } else {
            (1u128 << w) - 1
        }
}

use std::path::PathBuf;
use std::process::Command;

/// Whether gcc can be run.
pub fn gcc_available() -> bool {
    Command::new("gcc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// C statements printing every scalar of `expr` (of type `ty`), one a line.
pub fn c_printers(ty: &CType, expr: &str, out: &mut String) {
    match ty {
        CType::Array(e, n) => {
            for i in 0..*n {
                c_printers(e, &format!("{expr}[{i}]"), out);
            }
        }
        CType::Struct(s) => {
            for (name, t) in &s.fields {
                // An anonymous member's members are the struct's own.
                match name.as_str() {
                    "" => c_printers(t, expr, out),
                    _ => c_printers(t, &format!("{expr}.{name}"), out),
                }
            }
        }
        CType::Float { bits } => {
            let (f, u) = if *bits == 32 {
                ("float", "unsigned")
            } else {
                ("double", "unsigned long long")
            };
            // The bit pattern, so that NaNs and signed zeros compare too.
            out.push_str(&format!(
                "    {{ {f} __f = ({expr}); {u} __u; memcpy(&__u, &__f, sizeof __u); printf(\"%llu\\n\", (unsigned long long)__u); }}\n"
            ))
        }
        CType::Int {
            bits: 64,
            signed: false,
        } => out.push_str(&format!(
            "    printf(\"%llu\\n\", (unsigned long long)({expr}));\n"
        )),
        _ => out.push_str(&format!("    printf(\"%lld\\n\", (long long)({expr}));\n")),
    }
}

/// The circuit's outputs as the lines the C printers print.
pub fn circuit_lines(p: &CompiledProgram, outs: &[Vec<bool>]) -> Vec<String> {
    let mut lines = Vec::new();
    for ((_, ty), bits) in p.outputs.iter().zip(outs) {
        let mut l = Vec::new();
        leaves(ty, &ty.json_value(bits), &mut l);
        lines.extend(l.iter().map(|(_, v)| v.to_string()));
    }
    lines
}

/// Runs `programs` (all compiled from `src`, with the same inputs) and gcc
/// on `n` random input sets drawn from `seed`, and asserts that they print
/// the same lines. `tag` names the program (and gcc's files). Without gcc,
/// says so and checks nothing.
pub fn agree_with_gcc(src: &str, programs: &[&CompiledProgram], n: usize, seed: u64, tag: &str) {
    use rand::SeedableRng;
    if !gcc_available() {
        eprintln!("skipping the gcc comparison of {tag}: gcc is absent");
        return;
    }
    let first = programs[0];
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let sets: Vec<Vec<String>> = (0..n)
        .map(|_| {
            first
                .inputs
                .iter()
                .map(|(_, t)| random_value(t, &mut rng))
                .collect()
        })
        .collect();
    agree_with_gcc_on(src, programs, &sets, tag);
}

/// Runs `programs` (all compiled from `src`, with the same inputs) and gcc
/// on the given input sets (each a list of C initializers in the order of
/// the programs' inputs), and asserts that they print the same lines.
/// Without gcc, says so and checks nothing.
pub fn agree_with_gcc_on(
    src: &str,
    programs: &[&CompiledProgram],
    sets: &[Vec<String>],
    tag: &str,
) {
    // (What `twofold compile` writes is validated when it is read.)
    for (k, p) in programs.iter().enumerate() {
        if let Err(e) = p.program.validate() {
            panic!("{tag} (program {k}) is not a valid program: {e}\n{src}");
        }
    }
    if !gcc_available() {
        eprintln!("skipping the gcc comparison of {tag}: gcc is absent");
        return;
    }
    let first = programs[0];
    let native = run_native(src, first, sets, tag);
    for (set, want) in sets.iter().zip(&native) {
        let named: Vec<(String, String)> = first
            .inputs
            .iter()
            .map(|(n, _)| n.clone())
            .zip(set.iter().cloned())
            .collect();
        for (k, p) in programs.iter().enumerate() {
            let got = circuit_lines(p, &run(p, &named));
            assert_eq!(
                &got, want,
                "{tag} (program {k}) differs from gcc on inputs {set:?}:\n{src}"
            );
        }
    }
}

/// The instance counts of the loops that became parallel regions, in
/// source order, each checked against a parallel block of the program: of
/// that count, or fewer when instances at either end compute nothing the
/// program reads and were dropped, or none when no instance does (but
/// never a sequential block of that count).
pub fn accepted(p: &CompiledProgram) -> Vec<usize> {
    let counts: Vec<usize> = p
        .loops
        .iter()
        .filter(|v| v.is_region())
        .map(|v| v.blocks[0].0 as usize)
        .collect();
    let mut blocks = parallel_counts(&p.program.blocks);
    let sequential = block_counts(&p.program.blocks, false);
    for c in &counts {
        let at = blocks.iter().position(|b| b == c).or_else(|| {
            (0..blocks.len())
                .filter(|&i| blocks[i] < *c)
                .max_by_key(|&i| blocks[i])
        });
        match at {
            Some(at) => {
                blocks.remove(at);
            }
            None => assert!(
                !sequential.contains(c),
                "a region of {c} instances is a sequential block: {:?}",
                p.loops
            ),
        }
    }
    counts
}

/// The instance counts of every parallel block, nested ones included.
pub fn parallel_counts(blocks: &[Block]) -> Vec<usize> {
    block_counts(blocks, true)
}

/// The instance counts of every block that is (or is not) parallel,
/// nested ones included.
fn block_counts(blocks: &[Block], parallel: bool) -> Vec<usize> {
    blocks
        .iter()
        .flat_map(|b| {
            let own = (b.parallel == parallel).then_some(b.count as usize);
            own.into_iter()
                .chain(block_counts(&b.body.blocks, parallel))
        })
        .collect()
}

/// Random bits for a type, formatted as a C initializer.
pub fn random_value(ty: &CType, rng: &mut impl rand::Rng) -> String {
    let bits: Vec<bool> = (0..ty.width()).map(|_| rng.gen_bool(0.5)).collect();
    ty.format_value(&bits)
}

/// Splits the parameter list of `mpc_main` in `src`: (return type,
/// [(type, name)]), an array's dimensions kept with its type
/// (`int INPUT_A[2][3]` is `("int [2][3]", "INPUT_A")`).
pub fn mpc_main_signature(src: &str) -> Option<(String, Vec<(String, String)>)> {
    let at = src.find("mpc_main(")?;
    let line_start = src[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let ret = src[line_start..at].trim().to_string();
    let close = src[at..].find(')')? + at;
    let params = &src[at + "mpc_main(".len()..close];
    let mut ps = Vec::new();
    for p in params.split(',') {
        let p = p.trim();
        if p.is_empty() || p == "void" {
            continue;
        }
        let (p, dims) = p.split_at(p.find('[').unwrap_or(p.len()));
        let split = p.rfind(|c: char| !(c.is_alphanumeric() || c == '_'))?;
        ps.push((
            format!("{} {dims}", p[..=split].trim()),
            p[split + 1..].to_string(),
        ));
    }
    Some((ret, ps))
}

/// Builds a gcc harness around the program for several input sets (each a
/// list of C initializers in the order of `p.inputs`), compiles it with
/// `gcc -O0 -fwrapv`, runs it and returns the printed lines of each run.
pub fn run_native(
    src: &str,
    p: &CompiledProgram,
    sets: &[Vec<String>],
    tag: &str,
) -> Vec<Vec<String>> {
    let k = sets.len();
    let mut c = String::from("#include <stdio.h>\n#include <string.h>\n");
    let mut body = String::new();
    let sig = mpc_main_signature(src);
    let params = sig.as_ref().map(|s| s.1.clone()).unwrap_or_default();
    let mut source = src.to_string();
    // Locals INPUT_* / OUTPUT_* of the entry function become globals.
    let mut globals = String::new();
    let mut post = String::new();
    for (i, (name, _)) in p.inputs.iter().enumerate() {
        let vals: Vec<String> = sets.iter().map(|s| c_initializer(&s[i])).collect();
        if let Some((ty, _)) = params.iter().find(|(_, n)| n == name) {
            // An array parameter's values are rows of an array of arrays.
            let (ty, dims) = ty.split_at(ty.find('[').unwrap_or(ty.len()));
            post.push_str(&format!(
                "static {ty} __vals_{name}[{k}]{dims} = {{{}}};\n",
                vals.join(", ")
            ));
        } else {
            let decl = find_decl(&source, name).expect("declaration of an input");
            let (start, end, ty, _) = decl;
            source.replace_range(start..end, "");
            globals.push_str(&format!(
                "static {ty} {name};\nstatic {ty} __vals_{name}[{k}] = {{{}}};\n",
                vals.join(", ")
            ));
            body.push_str(&format!("        {name} = __vals_{name}[k];\n"));
        }
    }
    for (name, _) in &p.outputs {
        if name == "return" {
            continue;
        }
        let (start, end, cty, init) = find_decl(&source, name).expect("declaration of an output");
        let repl = match init {
            Some(init) => format!("{name} = {init};"),
            None => String::new(),
        };
        source.replace_range(start..end, &repl);
        globals.push_str(&format!("static {cty} {name};\n"));
        body.push_str(&format!("        memset(&{name}, 0, sizeof {name});\n"));
    }
    c.push_str(&globals);
    c.push_str(&source);
    c.push('\n');
    c.push_str(&post);
    // One input set per process: globals start afresh in every run.
    c.push_str("\n#include <stdlib.h>\nint main(int argc, char **argv) {\n    (void)argc;\n    {\n        int k = atoi(argv[1]);\n");
    c.push_str(&body);
    let args: Vec<String> = params
        .iter()
        .map(|(_, n)| format!("__vals_{n}[k]"))
        .collect();
    let has_return = p.outputs.iter().any(|(n, _)| n == "return");
    if has_return {
        let ret = sig.as_ref().map(|s| s.0.clone()).expect("signature");
        c.push_str(&format!(
            "        {ret} __r = mpc_main({});\n",
            args.join(", ")
        ));
    } else {
        c.push_str(&format!("        mpc_main({});\n", args.join(", ")));
    }
    let printers: String = {
        let mut s = String::new();
        for (name, ty) in &p.outputs {
            let expr = if name == "return" {
                "__r".to_string()
            } else {
                name.clone()
            };
            c_printers(ty, &expr, &mut s);
        }
        s
    };
    c.push_str(&printers);
    c.push_str("        printf(\"--\\n\");\n    }\n    return 0;\n}\n");
    let dir: PathBuf =
        std::env::temp_dir().join(format!("twofold-compiler-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cfile = dir.join("h.c");
    let exe = dir.join("h");
    std::fs::write(&cfile, &c).expect("write harness");
    let out = Command::new("gcc")
        .args(["-O0", "-fwrapv", "-ffp-contract=off", "-w", "-o"])
        .arg(&exe)
        .arg(&cfile)
        .arg("-lm")
        .output()
        .expect("run gcc");
    assert!(
        out.status.success(),
        "gcc failed on {tag}:\n{}\n{c}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut results = Vec::with_capacity(k);
    for i in 0..k {
        let run = Command::new(&exe)
            .arg(i.to_string())
            .output()
            .expect("run harness");
        assert!(run.status.success(), "native run of {tag} failed");
        let text = String::from_utf8_lossy(&run.stdout).to_string();
        let lines: Vec<String> = text
            .lines()
            .take_while(|l| *l != "--")
            .map(|l| l.to_string())
            .collect();
        results.push(lines);
    }
    let _ = std::fs::remove_dir_all(&dir);
    results
}

/// An input value as gcc reads it: the words `inf` and `nan` (which our
/// values take) as gcc's built-ins.
fn c_initializer(value: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    for c in value.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
            word.push(c);
            continue;
        }
        out.push_str(match word.as_str() {
            "inf" => "__builtin_inf()",
            "nan" => "__builtin_nan(\"\")",
            w => w,
        });
        word.clear();
        out.push(c);
    }
    out.pop();
    out
}

/// Finds `TYPE NAME;` or `TYPE NAME = INIT;`: (start, end, type, init).
fn find_decl(src: &str, name: &str) -> Option<(usize, usize, String, Option<String>)> {
    let mut from = 0;
    while let Some(i) = src[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        let after = src[at + name.len()..].trim_start();
        if !(after.starts_with(';') || after.starts_with('=')) {
            continue;
        }
        let line_start = src[..at]
            .rfind(['\n', ';', '{', '}'])
            .map(|i| i + 1)
            .unwrap_or(0);
        let ty = src[line_start..at].trim().to_string();
        if ty.is_empty() || ty.contains('=') || ty.contains('(') {
            continue;
        }
        let end = at + src[at..].find(';')? + 1;
        let init = src[at + name.len()..end - 1]
            .trim()
            .strip_prefix('=')
            .map(|s| s.trim().to_string());
        return Some((line_start, end, ty, init));
    }
    None
}

/// Compiles `src` (as `name.c`) with loops kept and with every loop
/// unrolled, checks both against gcc on 24 random input sets drawn from
/// `seed`, and returns the first.
pub fn agree_kept_and_unrolled(name: &str, src: &str, seed: u64) -> CompiledProgram {
    kept_and_unrolled(name, src, seed).0
}

/// [`agree_kept_and_unrolled`]'s two programs: kept, then unrolled.
pub fn kept_and_unrolled(name: &str, src: &str, seed: u64) -> (CompiledProgram, CompiledProgram) {
    use twofold_compiler::{compile, CompileOptions};
    let opts = [
        CompileOptions::default(),
        CompileOptions {
            loops: false,
            ..CompileOptions::default()
        },
    ];
    let programs: Vec<_> = opts
        .iter()
        .map(|o| compile(src, &format!("{name}.c"), o).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    agree_with_gcc(src, &programs.iter().collect::<Vec<_>>(), 24, seed, name);
    let mut programs = programs.into_iter();
    let kept = programs.next().expect("two programs");
    (kept, programs.next().expect("two programs"))
}

/// [`kept_and_unrolled`], kept costing at most `percent`% more AND gates
/// than unrolled.
pub fn kept_within(
    name: &str,
    src: &str,
    seed: u64,
    percent: u64,
) -> (CompiledProgram, CompiledProgram) {
    let (kept, flat) = kept_and_unrolled(name, src, seed);
    let (k, f) = (kept.program.and_count(), flat.program.and_count());
    assert!(
        k * 100 <= f * (100 + percent),
        "{name}: {k} AND gates kept, {f} unrolled"
    );
    (kept, flat)
}

/// The error compiling `src` (as `prog.c`, default options) gives.
pub fn error_of(src: &str) -> String {
    match twofold_compiler::compile(src, "prog.c", &twofold_compiler::CompileOptions::default()) {
        Ok(_) => panic!("compiled, but an error was expected:\n{src}"),
        Err(e) => e.to_string(),
    }
}

/// `src` compiled as `prog.c` with the default options.
pub fn compiled(src: &str) -> CompiledProgram {
    let opts = twofold_compiler::CompileOptions::default();
    twofold_compiler::compile(src, "prog.c", &opts).unwrap_or_else(|e| panic!("{e}"))
}
