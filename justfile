# Wire by Wire: conveniences over cargo. Each recipe is one or two plain
# commands; the README shows them without `just` too.

# List the recipes.
default:
    @just --list

# Play chapter NN's tour against its server, every frame shown both ways (hosts: their demo, traced). --starter for your crate.
run NN *FLAGS:
    cargo xtask run {{NN}} {{FLAGS}}

# Check your crate chapters/NN-* against the chapter's transcripts (add --solution for the reference).
check NN *FLAGS:
    MCP_TARGET={{ if FLAGS =~ "--solution" { "solution" } else { "starter" } }} cargo test -p wire-tests --test scenarios -- ch{{ if NN =~ '^[0-9]$' { "0" + NN } else { NN } }}::

# Compare your crate with the reference solution, gap by gap.
diff NN:
    cargo xtask diff {{NN}}

# Start chapter NN's server and type frames at it; both directions pretty-printed (--starter for your crate).
trace NN *FLAGS:
    cargo xtask trace {{NN}} {{FLAGS}}

# Run everything `cargo test` runs: every scenario against the solutions, starters, book includes.
test:
    cargo test

# Rewrite the server frames of the transcripts from the reference solutions (all chapters, or NN).
bless NN="":
    cargo xtask bless {{NN}}

# Regenerate the starter crates in chapters/ from the marked solutions.
starters:
    cargo xtask starters

# Build the book into book/build (regenerates the "what changed" diffs, frame views and diagrams first).
book:
    cargo xtask changes
    mdbook build book

# Serve the book locally and open it in a browser.
book-serve:
    mdbook serve book --open

# Measure start-up, round trip, throughput and memory of the chapter servers (all, or NN).
bench *NN:
    cargo xtask bench {{NN}}

# Check a chapter's solution against real MCP clients (Python SDK, Inspector CLI); installs them into .peers/.
peers NN="03":
    bash tests/peers/run.sh {{NN}}

# Write a copy of the course for a room without internet (repository, vendored crates, built book).
bundle DIR:
    cargo xtask bundle {{DIR}}

# What CI runs.
ci:
    bash .ci/run
