#!/usr/bin/env bash
# Checks one chapter's reference server against two real MCP clients: the
# official Python SDK and the MCP Inspector's CLI. Chapter 13 meets the
# official conformance suite over HTTP instead (through ch13-conformance);
# chapter 14 meets the suite (through ch14-conformance) and then the Python
# SDK, in both eras, over stdio and over HTTP. Chapter 15, a host, meets the
# suite's client scenarios (through ch15-conformance-client) and servers
# built on the Python and TypeScript SDKs, in both eras. Chapter 21's host
# meets the suite's four client scenarios of the skills extension (through
# ch21-conformance-client).
#
# Usage: tests/peers/run.sh CHAPTER     e.g. tests/peers/run.sh 03
#
# Builds the chapter's solution, installs the clients into .peers/ (once; see
# install.sh), then runs both clients' checks. Exits 1 if any check fails.
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: run.sh CHAPTER   (e.g. run.sh 03)" >&2
    exit 2
fi
chapter=$1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

# The solution's folder, e.g. solutions/03-add-tool, names its package:
# ch03-add-tool-solution.
folders=(solutions/"$chapter"-*/)
if [[ ${#folders[@]} -ne 1 || ! -d ${folders[0]} ]]; then
    echo "run.sh: no single solutions/$chapter-*/ folder for chapter $chapter" >&2
    exit 2
fi
slug=$(basename "${folders[0]}")
slug=${slug#"$chapter"-}
package=ch$chapter-$slug-solution

echo "== build $package"
cargo build -q -p "$package"
bin=${CARGO_TARGET_DIR:-$root/target}/debug/$package

echo "== install the clients"
bash "$here/install.sh"

# Run both clients, even if the first one fails, and report both.
failed=()

if [[ $chapter == 13 ]]; then
    # The suite calls fixtures of its own (test_simple_text, …): chapter 13's
    # http.rs serves them from ch13-conformance, beside the teaching crate.
    echo "== build ch13-conformance"
    cargo build -q -p ch13-conformance
    echo "== official conformance suite (HTTP)"
    bash "$here/conformance.sh" "${CARGO_TARGET_DIR:-$root/target}/debug/ch13-conformance" ||
        failed+=("conformance suite")
    if [[ ${#failed[@]} -gt 0 ]]; then
        echo "run.sh: chapter $chapter failed with: ${failed[*]}" >&2
        exit 1
    fi
    echo "== chapter $chapter: all peer checks passed"
    exit 0
fi

if [[ $chapter == 18 ]]; then
    # Chapter 18's http.rs and skills.rs beside chapter 13's fixtures
    # (tests/conformance-18): the suite's required scenarios, then its three
    # skills scenarios, each alone (EXTENSION_SCENARIOS, in conformance.sh).
    echo "== build ch18-conformance"
    cargo build -q -p ch18-conformance
    echo "== official conformance suite (HTTP), with the skills extension's scenarios"
    EXTENSION_SCENARIOS="sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory" \
        bash "$here/conformance.sh" "${CARGO_TARGET_DIR:-$root/target}/debug/ch18-conformance" "conformance-18" ||
        failed+=("conformance suite")
    if [[ ${#failed[@]} -gt 0 ]]; then
        echo "run.sh: chapter $chapter failed with: ${failed[*]}" >&2
        exit 1
    fi
    echo "== chapter $chapter: all peer checks passed"
    exit 0
fi

if [[ $chapter == 15 ]]; then
    # Chapter 15 is a client: the suite's client scenarios drive
    # ch15-conformance-client (tests/conformance-client-15).
    echo "== build ch15-conformance-client"
    cargo build -q -p ch15-conformance-client
    echo "== official conformance suite, client scenarios (HTTP)"
    bash "$here/conformance-client.sh" "${CARGO_TARGET_DIR:-$root/target}/debug/ch15-conformance-client" ||
        failed+=("conformance suite (client)")
    echo "== the official Python and TypeScript SDKs' servers, both eras (stdio)"
    bash "$here/host-15.sh" "$bin" || failed+=("SDK servers")
    if [[ ${#failed[@]} -gt 0 ]]; then
        echo "run.sh: chapter $chapter failed with: ${failed[*]}" >&2
        exit 1
    fi
    echo "== chapter $chapter: all peer checks passed"
    exit 0
fi

if [[ $chapter == 21 ]]; then
    # Chapter 21's served_skills.rs, on chapter 15's discover.rs
    # (tests/conformance-client-21): the skills extension's client
    # scenarios, a skill listed and never read ahead of need, and a SKILL.md
    # failing its size, digest or frontmatter refused with none of its other
    # files read (SCENARIOS, in conformance-client.sh).
    echo "== build ch21-conformance-client"
    cargo build -q -p ch21-conformance-client
    echo "== official conformance suite, the skills extension's client scenarios (HTTP)"
    SCENARIOS="sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size sep-2640-client-verify-frontmatter" \
        bash "$here/conformance-client.sh" "${CARGO_TARGET_DIR:-$root/target}/debug/ch21-conformance-client" ||
        failed+=("conformance suite (client, skills extension)")
    if [[ ${#failed[@]} -gt 0 ]]; then
        echo "run.sh: chapter $chapter failed with: ${failed[*]}" >&2
        exit 1
    fi
    echo "== chapter $chapter: all peer checks passed"
    exit 0
fi

if [[ $chapter == 14 || $chapter == 16 || $chapter == 17 ]]; then
    # Chapter 14's http.rs and asking machinery, with chapter 13's fixtures
    # and those that ask (tests/conformance-14); its baselines are
    # conformance-14-REVISION.yml. Then the Python SDK drives the chapter's
    # own tools, answering through its elicitation, sampling and roots
    # callbacks. (The Inspector's CLI cannot answer a server's question.)
    # Chapter 16 the same, with its own http.rs (tests/conformance-16,
    # conformance-16-REVISION.yml); the SDK checks its progress and cancel.
    # Chapter 17 the same (tests/conformance-17: its http.rs and tasks.rs
    # with the suite's task fixtures, conformance-17-REVISION.yml).
    echo "== build ch$chapter-conformance"
    cargo build -q -p "ch$chapter-conformance"
    echo "== official conformance suite (HTTP)"
    bash "$here/conformance.sh" "${CARGO_TARGET_DIR:-$root/target}/debug/ch$chapter-conformance" "conformance-$chapter" ||
        failed+=("conformance suite")
    echo "== official Python SDK (mcp), stdio and HTTP, both eras"
    "$root/.peers/venv/bin/python" "$here/python_client.py" "$bin" "$chapter" || failed+=("python client")
    if [[ ${#failed[@]} -gt 0 ]]; then
        echo "run.sh: chapter $chapter failed with: ${failed[*]}" >&2
        exit 1
    fi
    echo "== chapter $chapter: all peer checks passed"
    exit 0
fi

echo "== official Python SDK (mcp)"
"$root/.peers/venv/bin/python" "$here/python_client.py" "$bin" "$chapter" || failed+=("python client")

echo "== MCP Inspector (--cli)"
bash "$here/inspector.sh" "$bin" "$chapter" || failed+=("inspector")

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "run.sh: chapter $chapter failed with: ${failed[*]}" >&2
    exit 1
fi
echo "== chapter $chapter: all peer checks passed"
