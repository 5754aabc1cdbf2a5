//! The stretch `ch08/skill-cost`, in a module of its own: `--check-skills`
//! built with `--features stretch` says what each skill costs. The core
//! chapter compiles without it (`main.rs` declares it under the feature).

// STRETCH(ch08/skill-cost): `print(skills, catalogue)`: for each valid
// skill, what its catalogue entry adds to every request (the catalogue with
// it, `catalogue` tokens, less the catalogue without it) and what loading
// it costs (the Skill tool's answer), one line each.
// END(ch08/skill-cost)
