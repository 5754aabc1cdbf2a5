# Wire by Wire: shorthands for `cargo xtask` commands. Each recipe is one
# plain command; the README and the book give the `cargo xtask` form first,
# and it works the same on every platform without `just`.
#
# The maintainers' recipes (bless, starters, bench, peers, ci) are private:
# they run as usual but stay out of `just --list`.

# List the recipes.
default:
    @just --list --unsorted

# Check your crate chapters/NN-* against the chapter's scenarios (--solution: the reference; --bin PATH: any binary).
check NN *FLAGS:
    cargo xtask check {{NN}} {{FLAGS}}

# Check chapter NN again on every save.
watch NN *FLAGS:
    cargo xtask watch {{NN}} {{FLAGS}}

# The next hint for a gap of chapter NN (the first one not written yet), one tier per call.
hint NN *GAP:
    cargo xtask hint {{NN}} {{GAP}}

# Every chapter's gaps and scenarios at a glance, and the next thing to do.
progress:
    cargo xtask progress

# Put chapters/NN-* back as generated (your files are saved under .backups/ first).
reset NN:
    cargo xtask reset {{NN}}

# Play chapter NN's tour against its server, every frame shown both ways (hosts: their demo, traced). --mine for your crate.
run NN *FLAGS:
    cargo xtask run {{NN}} {{FLAGS}}

# Compare your crate with the reference solution, gap by gap.
diff NN:
    cargo xtask diff {{NN}}

# The book's token tables: what skills cost (chapter 8's binary) or what a delegation saves (chapter 9's); --mine for your crate.
measure TABLE *FLAGS:
    cargo xtask measure {{TABLE}} {{FLAGS}}

# Start chapter NN's server and type frames at it; both directions pretty-printed (--mine for your crate; after --, the server's own arguments).
trace NN *FLAGS:
    cargo xtask trace {{NN}} {{FLAGS}}

# Run everything `cargo test` runs: every scenario against the solutions, starters, book includes.
test:
    cargo test

# Build the book into book/build with mdbook and open it in your browser.
book:
    cargo xtask book

# Serve the book locally and open it in a browser.
book-serve:
    mdbook serve book --open

# Rewrite what the programs write in the transcripts (server replies, a host's frames, HTTP responses) from the reference solutions (all chapters, or NN).
[private]
bless NN="":
    cargo xtask bless {{NN}}

# Regenerate the starter crates in chapters/ and the generated files of support/ from the marked solutions (never over your edits without --force).
[private]
starters *FLAGS:
    cargo xtask starters {{FLAGS}}

# Measure start-up, round trip, throughput and memory of the chapter servers (all, or NN).
[private]
bench *NN:
    cargo xtask bench {{NN}}

# Each chapter against the small-lessons budgets, and how much of it is the lesson (the learner's share, copies, process-wide state, untaught support).
[private]
sizes:
    cargo xtask sizes

# Check a chapter's solution against real MCP peers (Python SDK, Inspector CLI, the conformance suite; for chapter 15, a host, the suite's client scenarios and a Python SDK server); installs them into .peers/.
[private]
peers NN="03":
    bash tests/peers/run.sh {{NN}}

# Write a copy of the course for a room without internet (repository, vendored crates, built book).
bundle DIR:
    cargo xtask bundle {{DIR}}

# What CI runs.
[private]
ci:
    bash .ci/run
