//! Replayed servers are recordings of real ones. A client or agent
//! transcript declares, with `# recorded: CHANNEL=NN [ARGS]`, which
//! chapter's solution server a channel records; this test starts that
//! server with ARGS, sends it the channel's `->` frames in order, in
//! lockstep, and compares its replies with the `<-` lines byte for byte.
//! One process per recorded channel.

use wire_tests::course::Chapter;
use wire_tests::run::client_runner::replay_frames;
use wire_tests::run::runner;
use wire_tests::run::target::Target;
use wire_tests::run::transcript::{Direction, Recorded, Runner, Transcript};

/// Every client and agent transcript, loaded.
fn host_transcripts() -> Vec<Transcript> {
    let mut transcripts = Vec::new();
    for chapter in Chapter::all() {
        for scenario in chapter.scenarios() {
            let path = chapter.transcript_path(&scenario);
            let transcript = Transcript::load(&path).unwrap_or_else(|err| panic!("{err}"));
            if transcript.runner.is_host() {
                transcripts.push(transcript);
            }
        }
    }
    transcripts
}

/// The recorded channel as a server transcript: its frames, without the
/// channel, for the server runner to play against the real server.
fn as_server_transcript(transcript: &Transcript, recorded: &Recorded) -> Transcript {
    let mut server = transcript.clone();
    server.runner = Runner::Server;
    server.args = recorded.args.clone();
    server.env.clear();
    server.stderr = recorded.stderr.clone();
    server.exit = 0;
    server.pipelined = false;
    server.frames = replay_frames(transcript, Some(&recorded.channel))
        .into_iter()
        .map(|frame| {
            let mut frame = frame.clone();
            frame.channel = None;
            frame
        })
        .collect();
    server
}

#[test]
fn recorded_servers_answer_as_the_real_ones() {
    let mut checked = Vec::new();
    let mut failures = Vec::new();
    for transcript in host_transcripts() {
        for recorded in &transcript.recorded {
            let label = format!("{} [{}]", transcript.path.display(), recorded.channel);
            let server = as_server_transcript(&transcript, recorded);
            if server.frames.is_empty() {
                failures.push(format!("{label}: no frames on this channel"));
                continue;
            }
            let outcome = Chapter::find(&recorded.chapter)
                .and_then(|chapter| Target::solution(&chapter))
                .and_then(|target| runner::check(&server, &target));
            if let Err(report) = outcome {
                failures.push(format!(
                    "{label}: chapter {}'s server:\n{report}",
                    recorded.chapter
                ));
            }
            checked.push(label);
        }
    }
    assert!(
        checked
            .iter()
            .any(|label| label.contains("ch09/measure.wire [notes]")),
        "ch09/measure.wire declares no recorded notes channel; checked: {checked:#?}"
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// A channel whose server calls itself one of the chapters' servers
/// (`serverInfo.name` `ch03-add-tool`) must say so with `# recorded:`, so
/// the test above checks it.
#[test]
fn every_recording_of_a_chapter_server_is_declared() {
    let servers: Vec<(String, String)> = Chapter::all()
        .iter()
        .map(|chapter| {
            let name = chapter.solution_package().replace("-solution", "");
            (name, chapter.id().trim_start_matches("ch").to_string())
        })
        .collect();
    let mut undeclared = Vec::new();
    for transcript in host_transcripts() {
        for frame in transcript.frames_in(Direction::ServerToClient) {
            let Ok(reply) = serde_json::from_slice::<serde_json::Value>(&frame.bytes) else {
                continue;
            };
            let name = reply["result"]["serverInfo"]["name"].as_str().unwrap_or("");
            let Some((_, chapter)) = servers.iter().find(|(server, _)| server == name) else {
                continue;
            };
            let channel = frame.channel.clone().unwrap_or_default();
            let declared = transcript
                .recorded
                .iter()
                .any(|r| r.channel == channel && &r.chapter == chapter);
            if !declared {
                undeclared.push(format!(
                    "{}:{}: [{channel}] is {name}: add `# recorded: {channel}={chapter}`",
                    transcript.path.display(),
                    frame.line
                ));
            }
        }
    }
    assert!(undeclared.is_empty(), "\n{}", undeclared.join("\n"));
}
