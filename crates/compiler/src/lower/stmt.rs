//! Statements: blocks, branches, loops, `switch`, `break`/`continue`/`return`.

use super::*;
use crate::error::{static_assertion_failed, Diag};
use crate::loops::progress;

impl<'p> Lower<'p> {
    // ----- statements -------------------------------------------------------

    /// Runs a statement if this path is alive (guarded when that is secret).
    pub(super) fn exec_guarded(&mut self, s: &Stmt) -> DResult<()> {
        self.run_guarded(s, None).map(|_| ())
    }

    /// Runs `s` on the paths still running. For a loop's body (`body`:
    /// where its iteration's rejoined locations begin, see
    /// [`Lower::fix_going_on`]), returns whether every one of them left by
    /// a `return` or a `break` (none runs on or continues), which the
    /// flags merged with the other paths' may not show, and the condition
    /// of the paths going on whose values were fixed (or 1).
    fn run_guarded(&mut self, s: &Stmt, body: Option<usize>) -> DResult<(bool, Bit)> {
        match self.alive() {
            Bit::Const(true) => {
                self.exec(s)?;
                Ok(self.body_end(body))
            }
            Bit::Const(false) => Ok((body.is_some(), Bit::Const(true))),
            alive => {
                self.joins_paths = true;
                let ((running_after, end), _) = self.fork(
                    alive,
                    s.loc,
                    |me| {
                        for f in [RET, BRK, CONT, SKIP] {
                            me.set_flag(f, Bit::Const(false));
                        }
                        me.exec(s)?;
                        Ok((me.alive(), me.body_end(body)))
                    },
                    |_| Ok((Bit::Const(false), (body.is_some(), Bit::Const(true)))),
                )?;
                // A path running after the statement ran it and was still
                // running at its end.
                self.note_implied(alive);
                self.note_implied(running_after);
                Ok(end)
            }
        }
    }

    /// At the end of a loop's body (if `body`): whether every path left,
    /// and the values fixed on the paths going on (see
    /// [`Lower::fix_going_on`]).
    fn body_end(&mut self, body: Option<usize>) -> (bool, Bit) {
        match body {
            Some(mark) => (self.all_left(), self.fix_going_on(mark)),
            None => (false, Bit::Const(true)),
        }
    }

    /// Whether no path runs on or continues: each left by a `return` or
    /// a `break`, as the flags show.
    fn all_left(&mut self) -> bool {
        self.alive() == Bit::Const(false) && self.flag(CONT) == Bit::Const(false)
    }

    pub(super) fn exec_scoped(&mut self, s: &Stmt) -> DResult<()> {
        self.frame_mut().names.push_scope();
        let r = self.exec(s);
        self.frame_mut().names.pop_scope();
        r
    }

    /// Checks `_Static_assert(e, message)` at `loc`: `e` must be a constant
    /// (without side effects) and not zero.
    fn static_assertion(&mut self, e: &Expr, message: &str, loc: Loc) -> DResult<()> {
        let not_constant = || err(e.loc, "the static assertion's condition is not a constant");
        if e.has_side_effects() {
            return not_constant();
        }
        match self.eval(e)? {
            Val::Int(_, Word::Const { v: 0, .. }) => err(loc, static_assertion_failed(message)),
            Val::Int(_, Word::Const { .. }) => Ok(()),
            _ => not_constant(),
        }
    }

    pub(super) fn exec(&mut self, s: &Stmt) -> DResult<()> {
        self.nested(s.loc, |l| l.exec_level(s))
    }

    fn exec_level(&mut self, s: &Stmt) -> DResult<()> {
        match &s.kind {
            StmtKind::Empty => Ok(()),
            StmtKind::StaticAssert(e, message) => self.static_assertion(e, message, s.loc),
            StmtKind::Expr(e) => {
                self.eval(e)?;
                Ok(())
            }
            StmtKind::Decl(ds) => {
                for d in ds {
                    self.declare(d)?;
                }
                Ok(())
            }
            StmtKind::Block(items) => {
                self.frame_mut().names.push_scope();
                let mut r = Ok(());
                for item in items {
                    r = self.exec_guarded(item);
                    if r.is_err() {
                        break;
                    }
                }
                self.frame_mut().names.pop_scope();
                r
            }
            StmtKind::If(c, t, e) => {
                let cv = self.cond(c)?;
                match cv {
                    Bit::Const(true) => self.exec_scoped(t),
                    Bit::Const(false) => match e {
                        Some(e) => self.exec_scoped(e),
                        None => Ok(()),
                    },
                    _ => {
                        self.fork(
                            cv,
                            s.loc,
                            |me| me.exec_scoped(t),
                            |me| match e {
                                Some(e) => me.exec_scoped(e),
                                None => Ok(()),
                            },
                        )?;
                        Ok(())
                    }
                }
            }
            StmtKind::While(c, body) => self.exec_loop(Some(c), None, body, false, s.loc, &[]),
            StmtKind::DoWhile(body, c) => self.exec_loop(Some(c), None, body, true, s.loc, &[]),
            StmtKind::For(init, c, step, body) => {
                self.frame_mut().names.push_scope();
                let r = (|| {
                    let mut vars = Vec::new();
                    if let Some(i) = init {
                        if let StmtKind::Decl(ds) = &i.kind {
                            vars.extend(ds.iter().map(|d| d.name.clone()));
                        }
                        self.exec(i)?;
                    }
                    self.for_loop(
                        init.as_deref(),
                        c.as_ref(),
                        step.as_ref(),
                        body,
                        s.loc,
                        &vars,
                    )
                })();
                self.frame_mut().names.pop_scope();
                r
            }
            StmtKind::Switch(e, body) => self.exec_switch(e, body),
            StmtKind::Case(..) | StmtKind::Default(_) => err(
                s.loc,
                "case label not directly inside a switch body (unsupported)",
            ),
            StmtKind::Break => {
                let f = self.frame();
                if f.loops == 0 && f.switches == 0 {
                    return err(s.loc, "break outside a loop or switch");
                }
                self.set_flag(BRK, Bit::Const(true));
                Ok(())
            }
            StmtKind::Continue => {
                if self.frame().loops == 0 {
                    return err(s.loc, "continue outside a loop");
                }
                self.set_flag(CONT, Bit::Const(true));
                Ok(())
            }
            StmtKind::Return(e) => {
                let ret = self.frame().ret.clone();
                match (e, ret) {
                    (Some(e), Some((obj, ty))) => {
                        let v = self.eval(e)?;
                        let v = self.convert(v, &ty, e.loc)?;
                        self.store(obj, 0, v);
                    }
                    (Some(e), None) => {
                        let v = self.eval(e)?;
                        if !matches!(v, Val::Void) {
                            return err(e.loc, "return with a value in a function returning void");
                        }
                    }
                    (None, _) => {}
                }
                self.set_flag(RET, Bit::Const(true));
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_loop(
        &mut self,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &Stmt,
        do_while: bool,
        loc: Loc,
        loop_vars: &[String],
    ) -> DResult<()> {
        if crate::loops::endless::never_ends(cond, body) {
            return err(
                loc,
                "this loop never ends: its condition is always true and nothing in it leaves it (no 'break' out of it, no 'return')",
            );
        }
        self.frame_mut().loops += 1;
        self.merges.open_loop();
        let mut secret_iters = 0;
        let parts = (cond, step, body);
        let r = self.loop_body(parts, do_while, loc, loop_vars, &mut secret_iters);
        self.merges.close_loop();
        self.frame_mut().loops -= 1;
        self.set_flag(BRK, Bit::Const(false));
        self.set_flag(CONT, Bit::Const(false));
        r.map_err(|d| self.unwind_hint(d, loc, secret_iters))
    }

    /// A limit gone past while a loop whose exit depends on a secret
    /// value was unrolled, without `--unwind`: most likely that loop (a
    /// binary search's `while (lo < hi)`) would not have ended within
    /// the default bound anyway, so the error says how to bound it. So
    /// too for a pointer that left its object there: a walk over a
    /// string (`for (p = s; *p; p++)`) stops at its terminating zero on
    /// every input that has one, but unrolled, it goes on past the end.
    fn unwind_hint(&self, mut d: Diag, loc: Loc, secret_iters: u32) -> Diag {
        let limit = DEFAULT_SECRET_ITERATIONS;
        if (d.exceeded.is_some() || d.message == super::operator::LEAVES_OBJECT)
            && secret_iters > 0
            && self.opts.unwind.is_none()
            && !d.message.contains("--unwind")
        {
            d.message += &format!(
                "; the loop at line {}, whose exit depends on a secret value, was unrolled {secret_iters} times (at most {limit} without --unwind): if it ends sooner, bound it with --unwind N",
                loc.line
            );
        }
        d
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn loop_body(
        &mut self,
        (cond, step, body): (Option<&Expr>, Option<&Expr>, &Stmt),
        do_while: bool,
        loc: Loc,
        loop_vars: &[String],
        secret_iters: &mut u32,
    ) -> DResult<()> {
        let mut iters = 0u64;
        let limit = self.opts.unwind.unwrap_or(DEFAULT_SECRET_ITERATIONS);
        // A condition that is a nonzero constant (`while (1)`) is no
        // condition: the loop ends by its breaks, counted as `for (;;)`'s.
        let cond = cond.filter(|c| !matches!(const_eval(c), Some(v) if v != 0));
        // The most iterations the counters' progress allows: no more run,
        // and no --unwind is needed up to them.
        let most = cond
            .filter(|_| !do_while)
            .and_then(|c| self.progress_bound(c, step, body));
        // (A secret `return` in the loop changes it: then the loop's exit
        // depends on a secret as a secret `break`'s does.)
        let returned_before = self.flag(RET);
        loop {
            if most.is_some_and(|most| iters >= most) {
                break;
            }
            if !(do_while && iters == 0) {
                if let Some(c) = cond {
                    let alive = self.alive();
                    let secret = match alive {
                        Bit::Const(false) => break,
                        Bit::Const(true) => {
                            let cv = self.cond(c)?;
                            let cv = self.fixed_condition(cv, Bit::Const(true));
                            match cv {
                                Bit::Const(false) => break,
                                Bit::Const(true) => false,
                                _ => {
                                    let nc = self.b.not(cv);
                                    self.set_flag(BRK, nc);
                                    true
                                }
                            }
                        }
                        _ => {
                            // Once the condition was secret, an iteration
                            // on a secret path counts even where the
                            // condition is true there: the path may never
                            // leave (`while ((x & 1) == 0) x >>= 1;` once
                            // x's bits are all shifted out).
                            let was_secret = *secret_iters > 0;
                            let ((secret, holds), _) = self.fork(
                                alive,
                                loc,
                                |me| {
                                    for f in [RET, BRK, CONT, SKIP] {
                                        me.set_flag(f, Bit::Const(false));
                                    }
                                    let cv = me.cond(c)?;
                                    let cv = me.fixed_condition(cv, alive);
                                    let nc = me.b.not(cv);
                                    me.set_flag(BRK, nc);
                                    let secret = match cv.as_const() {
                                        None => true,
                                        Some(stays) => stays && was_secret,
                                    };
                                    Ok((secret, cv))
                                },
                                |_| Ok((false, Bit::Const(false))),
                            )?;
                            // A path still running was running before and
                            // its condition held.
                            self.note_implied(alive);
                            self.note_implied(holds);
                            // The condition fails on every path still
                            // running: the loop ends on all of them, though
                            // the flags may not fold to show it (a secret
                            // `return` and a secret `break` before).
                            if holds == Bit::Const(false) {
                                break;
                            }
                            secret
                        }
                    };
                    if self.alive() == Bit::Const(false) {
                        break;
                    }
                    if secret {
                        *secret_iters += 1;
                        if *secret_iters > limit && (most.is_none() || self.opts.unwind.is_some()) {
                            if self.opts.unwind.is_some() {
                                self.note_unwound(loc, limit.into());
                                break;
                            }
                            return err(loc, format!("the loop's exit depends on a secret value and it did not end within {limit} iterations; bound it with --unwind N"));
                        }
                    }
                }
            }
            let running = self.alive();
            let joined = self.merges.joined_mark();
            let (left, going_on) = self.run_guarded(body, Some(joined))?;
            self.set_flag(CONT, Bit::Const(false));
            // A path still running after the body (its `continue`s done)
            // ran it from the start, so what was merged on that start's
            // condition holds on it: a counter stepped on every path
            // stays public after both a `continue` and a secret `break`.
            // It went on at the body's end, where values fixed there hold.
            self.note_implied(running);
            self.note_implied(going_on);
            if left || self.alive() == Bit::Const(false) {
                break;
            }
            if let Some(st) = step {
                if local_step(st, loop_vars) {
                    // Only the loop's own variables change: they are dead
                    // once the loop has been left, so no guard is needed.
                    self.eval(st)?;
                } else {
                    let stmt = Stmt {
                        kind: StmtKind::Expr(st.clone()),
                        loc: st.loc,
                    };
                    self.exec_guarded(&stmt)?;
                }
            }
            iters += 1;
            let max = self.opts.limits.max_iterations;
            if iters > max {
                return err(loc, format!("the loop did not end within {max} iterations"));
            }
            self.check_gates(loc)?;
            if cond.is_none()
                && self.alive() != Bit::Const(true)
                && (self.flag(BRK) != Bit::Const(false) || self.flag(RET) != returned_before)
            {
                *secret_iters += 1;
                if *secret_iters > limit {
                    if self.opts.unwind.is_some() {
                        self.note_unwound(loc, limit.into());
                        break;
                    }
                    return err(loc, format!("the loop's exit depends on a secret value and it did not end within {limit} iterations; bound it with --unwind N"));
                }
            }
        }
        Ok(())
    }

    /// Records how the loop at `loc` was lowered this time. Outside probes
    /// (a loop nested in an unrolled one) every time is part of the
    /// program: its blocks and counts add to those of the times before.
    /// Inside a probe (a template that may be undone), this time's report
    /// replaces the last, unless that one kept iterations and this one kept
    /// none — then this one's iterations add to it as unrolled, so that
    /// `stats` does not call a loop unrolled whose blocks are in the
    /// program.
    pub(super) fn note_loop(&mut self, loc: Loc, report: LoopReport) {
        let probing = !self.probes.is_empty();
        match self.loops.get_mut(&loc) {
            Some(all) if !probing || (report.blocks.is_empty() && !all.blocks.is_empty()) => {
                all.iterations += report.iterations;
                all.blocks.extend(report.blocks);
                all.unrolled += report.unrolled;
                all.disabled += report.disabled;
                all.continued += report.continued;
                // (The latest reason: a run unrolled says why.)
                all.why = report.why.or(all.why.take());
            }
            _ => _ = self.loops.insert(loc, report),
        }
    }

    /// Notes in the loop's report (`stats`) that the loop at `loc`, whose
    /// exit depends on a secret, was cut at `--unwind`'s `limit`: an input
    /// that needs more gets the values after `limit` iterations.
    fn note_unwound(&mut self, loc: Loc, limit: u64) {
        let mut report = super::keep::LoopReport::new(format!("line {}", loc.line), limit);
        report.unrolled = limit;
        report.why = Some(format!(
            "its exit depends on a secret value: cut at {limit} iterations (--unwind); an input that needs more gets the values after {limit}"
        ));
        self.note_loop(loc, report);
    }

    /// The most iterations `while (cond)` (or a `for` loop with `step`)
    /// can run, by the counters its condition bounds and the progress
    /// every iteration makes (see [`progress`]): each counter a local
    /// variable whose address the function never takes, public at the
    /// start, its bound public and unchanged, and no value passing its
    /// type's range (the comparisons then are the arithmetic ones).
    fn progress_bound(&mut self, cond: &Expr, step: Option<&Expr>, body: &Stmt) -> Option<u64> {
        // (Counters and bounds are public where the loop starts.)
        let mut counts = |var: &str, bound: &Expr| {
            let var = Expr {
                kind: ExprKind::Ident(var.to_string()),
                loc: cond.loc,
            };
            self.public_int(&var).is_some() && self.public_int(bound).is_some()
        };
        let found = progress::analyze(cond, step, body, &mut counts)?;
        let func = *self.funcs.get(&self.frame().func)?;
        let mut distances = Vec::new();
        // (A flag changed through a pointer could be set back to 0.)
        let flag_aliased = |f: &&str| {
            self.frame().names.get(f).is_none() || progress::takes_address(&func.body, f)
        };
        if found.flags.iter().any(flag_aliased) {
            return None;
        }
        for c in &found.counters {
            let mut names = vec![c.var.to_string()];
            crate::loops::idents_of(c.bound, &mut names);
            let aliased = |n: &String| {
                self.frame().names.get(n).is_none() || progress::takes_address(&func.body, n)
            };
            if names.iter().any(aliased) {
                return None;
            }
            let var = Expr {
                kind: ExprKind::Ident(c.var.to_string()),
                loc: cond.loc,
            };
            let (xs, x) = self.public_int(&var)?;
            let (bs, b) = self.public_int(c.bound)?;
            // The last value of the counter for which its term holds, and
            // the farthest one an iteration can move it to.
            let inclusive = matches!(c.op, BinOp::Le | BinOp::Ge);
            let (last, far) = if c.up() {
                let last = b - c.offset - i128::from(!inclusive);
                (last, last.max(x) + c.most)
            } else {
                let last = b - c.offset + i128::from(!inclusive);
                (last, last.min(x) - c.most)
            };
            let (lo, hi) = (x.min(far), x.max(far));
            let (tlo, thi) = xs.bounds();
            let common = Scalar::common(Scalar::common(xs, Scalar::INT), bs);
            let (clo, chi) = common.bounds();
            let fits = |v: i128| (clo..=chi).contains(&v);
            if lo < tlo || hi > thi || !fits(lo + c.offset) || !fits(hi + c.offset) || !fits(b) {
                return None;
            }
            distances.push(if c.up() { last - x } else { x - last });
        }
        Some(found.most_iterations(&distances))
    }

    /// The public integer value of `e` (no side effects) and its type.
    fn public_int(&mut self, e: &Expr) -> Option<(Scalar, i128)> {
        match self.eval(e).ok()? {
            Val::Int(s, Word::Const { v, .. }) if !s.float => Some((s, s.to_i128(v))),
            _ => None,
        }
    }

    pub(super) fn exec_switch(&mut self, e: &Expr, body: &Stmt) -> DResult<()> {
        let v = self.eval(e)?;
        let Val::Int(sty, w) = v else {
            return err(e.loc, "switch on a non-integer value");
        };
        if sty.float {
            return err(e.loc, "switch on a non-integer value");
        }
        let pty = sty.promote();
        let w = w.convert(&mut self.b, sty, pty);
        let items: Vec<&Stmt> = match &body.kind {
            StmtKind::Block(items) => items.iter().collect(),
            _ => vec![body],
        };
        // A label below the top level (Duff's device) would be skipped
        // where the selector is public: refused as where it is secret.
        if let Some(loc) = items.iter().find_map(|it| nested_label(it, true)) {
            return err(
                loc,
                "case label not directly inside a switch body (unsupported)",
            );
        }
        // Collect the case values.
        let mut cases = Vec::new();
        for it in &items {
            let mut s: &Stmt = it;
            loop {
                match &s.kind {
                    StmtKind::Case(k, hi, inner) => {
                        // The label's value as the promoted selector's type
                        // holds it.
                        let value = |k: &Expr| {
                            const_eval(k)
                                .map(|v| pty.to_i128(v as u64 & pty.mask()))
                                .ok_or_else(|| diag(k.loc, "case label is not a constant"))
                        };
                        let lo = value(k)?;
                        cases.push((lo, hi.as_ref().map(value).transpose()?, k.loc));
                        s = inner;
                    }
                    StmtKind::Default(inner) => s = inner,
                    _ => break,
                }
            }
        }
        refuse_duplicate_cases(&cases)?;
        let mut none = Bit::Const(true);
        let mut matches = Vec::new();
        for &(lo, hi, _) in &cases {
            let konst = |v: i128| Word::konst(v as u64, pty.width);
            let k = &konst(lo);
            let m = match hi.map(konst) {
                None => self.word_eq(&w, k),
                // `k ... hi`: neither below `k` nor above `hi` (none, if
                // `hi` is below `k`).
                Some(hi) => {
                    let below = self.compare_lt(pty, &w, k);
                    let above = self.compare_lt(pty, &hi, &w);
                    let out = self.b.or(below, above);
                    self.b.not(out)
                }
            };
            matches.push(m);
            let nm = self.b.not(m);
            none = self.b.and(none, nm);
        }
        self.frame_mut().switches += 1;
        self.frame_mut().names.push_scope();
        self.set_flag(SKIP, Bit::Const(true));
        let mut ci = 0;
        let r = (|| {
            for it in &items {
                let mut s: &Stmt = it;
                loop {
                    match &s.kind {
                        StmtKind::Case(_, _, inner) => {
                            let m = matches[ci];
                            ci += 1;
                            let skip = self.flag(SKIP);
                            let nm = self.b.not(m);
                            let ns = self.b.and(skip, nm);
                            self.set_flag(SKIP, ns);
                            s = inner;
                        }
                        StmtKind::Default(inner) => {
                            let skip = self.flag(SKIP);
                            let nn = self.b.not(none);
                            let ns = self.b.and(skip, nn);
                            self.set_flag(SKIP, ns);
                            s = inner;
                        }
                        _ => break,
                    }
                }
                match &s.kind {
                    // Jumped over, a declaration is still in scope for
                    // the rest of the body (its initializer not run).
                    StmtKind::Decl(ds) if self.alive() == Bit::Const(false) => {
                        for d in ds {
                            self.declare_with(d, false)?;
                        }
                    }
                    _ => self.exec_guarded(s)?,
                }
            }
            Ok(())
        })();
        self.frame_mut().names.pop_scope();
        self.frame_mut().switches -= 1;
        self.set_flag(SKIP, Bit::Const(false));
        self.set_flag(BRK, Bit::Const(false));
        r
    }
}

/// Refuses two `case` labels (values or GNU ranges `lo ... hi`) that take
/// the same value, as C does; a range whose `hi` is below its `lo` takes
/// none.
fn refuse_duplicate_cases(cases: &[(i128, Option<i128>, Loc)]) -> DResult<()> {
    let mut spans: Vec<(i128, i128, Loc)> = cases
        .iter()
        .map(|&(lo, hi, loc)| (lo, hi.unwrap_or(lo), loc))
        .filter(|(lo, hi, _)| lo <= hi)
        .collect();
    spans.sort_by_key(|&(lo, hi, loc)| (lo, hi, loc.line, loc.col));
    for pair in spans.windows(2) {
        if pair[1].0 <= pair[0].1 {
            let later = pair.iter().map(|s| s.2).max_by_key(|l| (l.line, l.col));
            return err(later.unwrap_or(pair[1].2), "duplicate case value");
        }
    }
    Ok(())
}

/// Where a `case` or `default` label sits inside `s` below a switch body's
/// top level (`top`: `s` is a top-level item, whose own labels are the
/// switch's), not counting the labels of nested `switch` statements.
fn nested_label(s: &Stmt, top: bool) -> Option<Loc> {
    match &s.kind {
        StmtKind::Case(_, _, inner) | StmtKind::Default(inner) => match top {
            true => nested_label(inner, true),
            false => Some(s.loc),
        },
        StmtKind::Block(items) => items.iter().find_map(|i| nested_label(i, false)),
        StmtKind::If(_, a, b) => {
            nested_label(a, false).or_else(|| b.as_deref().and_then(|b| nested_label(b, false)))
        }
        StmtKind::While(_, b) | StmtKind::DoWhile(b, _) | StmtKind::For(_, _, _, b) => {
            nested_label(b, false)
        }
        _ => None,
    }
}
