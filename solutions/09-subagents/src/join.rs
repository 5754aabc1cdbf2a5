//! The parallel join: several futures run at the same time on the one
//! task that awaits them, and their outputs come back in the order they
//! were given, whichever finished first. The loop runs a reply's tool
//! calls with it (subagents included, so two subagents think at once),
//! and chapter 10 its hooks.

/// Work under way, boxed so that runs of different futures (and a
/// subagent's loop, which holds itself) fit in one list.
pub use wire_host::seams::Run;

// ANCHOR: join_all
/// Runs the futures at the same time, on this one task, and returns their
/// outputs in the order given: each poll polls every unfinished one.
pub async fn join_all<T>(mut runs: Vec<Run<'_, T>>) -> Vec<T> {
    // GAP(ch09/join): poll every run that has no output yet each time this
    // future is polled (std::future::poll_fn), keep each output in its own
    // slot, and be Ready once every slot is full: awaiting them one after
    // the other would start the second subagent only when the first is done.
    // starter: let mut outputs = Vec::new();
    // starter: for run in runs.iter_mut() {
    // starter:     outputs.push(run.await);
    // starter: }
    // starter: outputs
    let mut outputs: Vec<Option<T>> = runs.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        for (run, output) in runs.iter_mut().zip(&mut outputs) {
            if output.is_none()
                && let std::task::Poll::Ready(value) = run.as_mut().poll(cx)
            {
                *output = Some(value);
            }
        }
        if outputs.iter().all(Option::is_some) {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
    // END(ch09/join)
}
// ANCHOR_END: join_all
