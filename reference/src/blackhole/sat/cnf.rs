//! A formula in conjunctive normal form, as the SAT model builds it: variables numbered from 1,
//! literals as signed integers (DIMACS), and the clause patterns the model uses.
//!
//! Input: the model's variables and constraints. Output: [`Cnf`], the clauses any SAT solver
//! takes, and the number of variables.

/// A literal: variable `v` is `v`, its negation `-v` (DIMACS numbering, from 1).
pub type Lit = i32;

/// A formula under construction.
#[derive(Clone, Debug, Default)]
pub struct Cnf {
    variables: i32,
    clauses: Vec<Vec<Lit>>,
}

impl Cnf {
    /// A fresh variable.
    pub fn variable(&mut self) -> Lit {
        self.variables += 1;
        self.variables
    }

    /// `count` fresh variables.
    pub fn variables(&mut self, count: usize) -> Vec<Lit> {
        (0..count).map(|_| self.variable()).collect()
    }

    /// The number of variables made so far.
    pub fn variable_count(&self) -> usize {
        self.variables as usize
    }

    pub fn clauses(&self) -> &[Vec<Lit>] {
        &self.clauses
    }

    /// Adds the clause `literals[0] ∨ literals[1] ∨ ...`.
    pub fn clause(&mut self, literals: impl IntoIterator<Item = Lit>) {
        self.clauses.push(literals.into_iter().collect());
    }

    /// `if ⇒ then[0] ∨ then[1] ∨ ...`.
    pub fn implies(&mut self, premise: Lit, then: impl IntoIterator<Item = Lit>) {
        self.clause(std::iter::once(-premise).chain(then));
    }

    /// At most one of `literals` is true: a sequential counter (Sinz 2005), linear in their
    /// number where pairwise clauses are quadratic.
    pub fn at_most_one(&mut self, literals: &[Lit]) {
        if literals.len() <= 4 {
            for (i, &a) in literals.iter().enumerate() {
                for &b in &literals[i + 1..] {
                    self.clause([-a, -b]);
                }
            }
            return;
        }
        // seen[i]: one of literals[..=i] is true.
        let seen = self.variables(literals.len() - 1);
        for (i, &literal) in literals.iter().enumerate() {
            if i < seen.len() {
                self.implies(literal, [seen[i]]);
            }
            if i > 0 {
                self.clause([-seen[i - 1], -literal]);
                if i < seen.len() {
                    self.implies(seen[i - 1], [seen[i]]);
                }
            }
        }
    }

    /// Exactly one of `literals` is true.
    pub fn exactly_one(&mut self, literals: &[Lit]) {
        self.clause(literals.iter().copied());
        self.at_most_one(literals);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every assignment of `n` variables that satisfies `cnf`'s clauses over them, by brute force
    /// (auxiliary variables existentially quantified).
    fn satisfiable_with(cnf: &Cnf, fixed: &[bool]) -> bool {
        let aux = cnf.variable_count() - fixed.len();
        (0..1u32 << aux).any(|bits| {
            let value = |lit: Lit| {
                let v = lit.unsigned_abs() as usize - 1;
                let truth = if v < fixed.len() { fixed[v] } else { bits >> (v - fixed.len()) & 1 == 1 };
                truth == (lit > 0)
            };
            cnf.clauses().iter().all(|clause| clause.iter().any(|&l| value(l)))
        })
    }

    #[test]
    fn at_most_one_allows_exactly_the_assignments_with_at_most_one_true() {
        for n in 1..=7usize {
            let mut cnf = Cnf::default();
            let lits = cnf.variables(n);
            cnf.at_most_one(&lits);
            for bits in 0..1u32 << n {
                let fixed: Vec<bool> = (0..n).map(|i| bits >> i & 1 == 1).collect();
                assert_eq!(satisfiable_with(&cnf, &fixed), bits.count_ones() <= 1, "n={n} bits={bits:b}");
            }
        }
    }

    #[test]
    fn exactly_one_needs_one() {
        let mut cnf = Cnf::default();
        let lits = cnf.variables(5);
        cnf.exactly_one(&lits);
        assert!(!satisfiable_with(&cnf, &[false; 5]));
        assert!(satisfiable_with(&cnf, &[false, false, true, false, false]));
    }
}
