//! The stretch `ch08/skill-cost`, in a module of its own: `--check-skills`
//! built with `--features stretch` says what each skill costs. The core
//! chapter compiles without it (`main.rs` declares it under the feature).

// STRETCH(ch08/skill-cost): `print(skills, catalogue)`: for each valid
// skill, what its catalogue entry adds to every request (the catalogue with
// it, `catalogue` tokens, less the catalogue without it) and what loading
// it costs (the Skill tool's answer), one line each.
use wire_host::tokens;

use crate::skill_tools;
use crate::skills::{self, Skill};

/// One line per skill under the catalogue line of `--check-skills`.
pub fn print(skills: &[Skill], catalogue: usize) {
    for skill in skills {
        let others: Vec<Skill> = skills
            .iter()
            .filter(|other| other.name != skill.name)
            .cloned()
            .collect();
        let tier1 = catalogue.saturating_sub(tokens::count(&skills::catalogue(&others)));
        let tier2 = tokens::count(&skill_tools::activate(skill));
        println!(
            "  {}: {tier1} tokens in every request, {tier2} more once loaded",
            skill.name
        );
    }
}
// END(ch08/skill-cost)
