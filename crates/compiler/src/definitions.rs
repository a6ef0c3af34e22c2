//! Which definition of a function counts. twofold's headers define some
//! of the C library in C (see [`crate::preprocess`]'s `libc`); a program
//! that defines a function of the same name uses its own, as it would
//! with a C library linked after it. Two definitions in the program are
//! an error, as in C.

use std::collections::{HashMap, HashSet};

use crate::ast::Program;
use crate::error::{err, DResult};

/// Drops the functions a built-in header defines that the program defines
/// too, marks the rest of them [`crate::ast::Function::library`], and refuses a
/// function the program defines twice. `files` names
/// the source files by index (a built-in header is `<name.h>`).
pub fn choose(prog: &mut Program, files: &[String]) -> DResult<()> {
    let built_in = |file: u32| {
        files
            .get(file as usize)
            .is_some_and(|n| n.starts_with('<') && n.ends_with(".h>"))
    };
    let mut own = HashMap::new();
    for f in prog.functions.iter().filter(|f| !built_in(f.loc.file)) {
        if let Some(first) = own.insert(f.name.as_str(), f.loc) {
            return err(
                f.loc,
                format!(
                    "redefinition of '{}' (first defined at line {})",
                    f.name, first.line
                ),
            );
        }
    }
    let own: HashSet<String> = own.into_keys().map(str::to_string).collect();
    prog.functions
        .retain(|f| !built_in(f.loc.file) || !own.contains(&f.name));
    for f in &mut prog.functions {
        f.library = built_in(f.loc.file);
    }
    Ok(())
}
