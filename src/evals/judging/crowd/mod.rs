//! The crowd (`evals.neighbours`, `evals.host`): your rows, and the neighbours' own rows,
//! asked again with every neighbour's tools in the list as the host would build it
//! ([`host`]), through the evals engine (answers cached like any eval answer: the list differs,
//! so the keys do). Each model's evals result gains what the crowd did to it: accuracy alone
//! and crowded with the paired test row by row, the rows a server's tool took from another,
//! the crowd's size, the clashing names, and the gate `evals.crowd.min_accuracy`.

pub(crate) mod host;

use std::collections::HashMap;
use std::time::Duration;

use crate::config::{ContextTurn, EvalCase, EvalConfig, NeighbourConfig};
use crate::evals::asking::engine::{self, EvalRun};
use crate::evals::judging::stats::{Row, paired};
use crate::interrupt::Interrupt;
use crate::mcp::Client;
use crate::mcp::spec::{ClientOptions, ServerSpec};
use crate::mcp::types::Tool;
use crate::outcome::{
    CaseStatus, Crowd, CrowdNeighbour, EvalsResults, Gate, GateKind, ModelEval, NO_TOOL, Steal,
};
use host::{HostList, Member};

/// A neighbour's tools and rows, listed or read.
#[derive(Debug, Clone)]
pub(crate) struct Neighbour {
    /// Its name.
    pub name: String,
    /// Its tools.
    pub tools: Vec<Tool>,
    /// Its own rows.
    pub cases: Vec<EvalCase>,
}

/// Every neighbour's tools: read from its snapshot, or listed from the server it starts or
/// reaches (closed at once). The error names the neighbour and what failed.
pub(crate) fn neighbours(
    cfg: &EvalConfig,
    base_dir: &std::path::Path,
    interrupt: &Interrupt,
) -> Result<Vec<Neighbour>, String> {
    cfg.neighbours
        .iter()
        .map(|n| {
            let tools = match &n.snapshot {
                Some(s) => s.tools.iter().cloned().map(Tool::from_wire).collect(),
                None => list(n, base_dir, interrupt)
                    .map_err(|e| format!("neighbour `{}` could not be listed: {e}", n.name))?,
            };
            Ok(Neighbour {
                name: n.name.clone(),
                tools,
                cases: n.cases.clone(),
            })
        })
        .collect()
}

/// Starts (or reaches) a neighbour and lists its tools.
fn list(
    n: &NeighbourConfig,
    base_dir: &std::path::Path,
    interrupt: &Interrupt,
) -> Result<Vec<Tool>, String> {
    let spec = match (&n.command, &n.url) {
        (Some(command), _) => ServerSpec::Stdio(crate::mcp::stdio::StdioSpec {
            command: command.clone(),
            env: std::collections::BTreeMap::new(),
            inherit_env: false,
            cwd: Some(base_dir.to_path_buf()),
        }),
        (None, Some(url)) => ServerSpec::Http(crate::mcp::http::HttpSpec {
            url: url.clone(),
            headers: Vec::new(),
            transport: Default::default(),
        }),
        (None, None) => return Ok(Vec::new()),
    };
    let opts = ClientOptions {
        pin: crate::config::ProtocolPin::default(),
        startup_timeout: Duration::from_secs(30),
        request_timeout: Duration::from_secs(30),
        capabilities: serde_json::json!({}),
    };
    let mut client = Client::connect(spec, opts).map_err(|e| e.error.to_string())?;
    client.stop_on(interrupt.clone());
    let tools = client.list_tools().map_err(|e| e.to_string());
    client.close();
    tools
}

/// The host's list for the server under test (named `ours`) and its neighbours.
fn host_list(cfg: &EvalConfig, ours: &str, tools: &[Tool], neighbours: &[Neighbour]) -> HostList {
    let mut members = vec![Member {
        server: ours,
        tools,
    }];
    members.extend(neighbours.iter().map(|n| Member {
        server: &n.name,
        tools: &n.tools,
    }));
    host::build(&cfg.host.rules(), &members)
}

/// A row with its tool names as the host sends them (those of `server`'s tools).
fn as_sent(case: &EvalCase, server: &str, list: &HostList) -> EvalCase {
    let sent = |tool: &str| {
        list.sent
            .get(&(server.to_owned(), tool.to_owned()))
            .cloned()
            .unwrap_or_else(|| tool.to_owned())
    };
    let mut case = case.clone();
    if let Some(Some(tool)) = &case.expect_tool {
        case.expect_tool = Some(Some(sent(tool)));
    }
    case.context = case
        .context
        .iter()
        .map(|turn| ContextTurn {
            call: turn.call.as_deref().map(sent),
            ..turn.clone()
        })
        .collect();
    case
}

/// The config the crowd is asked with: your rows, then each neighbour's, named as sent.
fn crowd_config(cfg: &EvalConfig, ours: &str, list: &HostList, n: &[Neighbour]) -> EvalConfig {
    let mut crowded = cfg.clone();
    crowded.cases = cfg.cases.iter().map(|c| as_sent(c, ours, list)).collect();
    for neighbour in n {
        crowded.cases.extend(
            neighbour
                .cases
                .iter()
                .map(|c| as_sent(c, &neighbour.name, list)),
        );
    }
    crowded.stress = None;
    crowded
}

/// The list the host sends and the config the crowd is asked with.
pub(crate) fn asked(
    cfg: &EvalConfig,
    ours: &str,
    tools: &[Tool],
    neighbours: &[Neighbour],
) -> (HostList, EvalConfig) {
    let list = host_list(cfg, ours, tools, neighbours);
    let crowded = crowd_config(cfg, ours, &list, neighbours);
    (list, crowded)
}

/// Asks the crowd and fills each model's `crowd`; a model under the gate fails.
pub(crate) fn apply(
    results: &mut EvalsResults,
    tools: &[Tool],
    run: &EvalRun<'_>,
    ours: &str,
    neighbours: Result<&[Neighbour], &str>,
) {
    let cfg = run.cfg;
    let min = cfg.crowd.min_accuracy.unwrap_or(cfg.min_accuracy);
    let neighbours = match neighbours {
        Ok(n) => n,
        Err(why) => {
            for m in &mut results.models {
                fail(m, empty(cfg, min, Some(why.to_owned())));
            }
            return;
        }
    };
    let (list, crowded_cfg) = asked(cfg, ours, tools, neighbours);
    let crowd_run = EvalRun {
        cfg: &crowded_cfg,
        base: None,
        plans: false,
        ..*run
    };
    run.events.emit(crate::events::Event::CrowdList {
        tools: list.tools.len(),
        neighbours: neighbours.len(),
    });
    let asked = engine::run(&list.tools, &crowd_run);
    let Some(got) = asked.results else {
        let why = asked
            .reason
            .unwrap_or_else(|| "the crowd was not asked".into());
        for m in &mut results.models {
            fail(m, empty(cfg, min, Some(why.clone())));
        }
        return;
    };
    let size = |m: &mut Crowd| {
        m.neighbours = neighbours
            .iter()
            .map(|n| CrowdNeighbour {
                name: n.name.clone(),
                tools: n.tools.len(),
            })
            .collect();
        m.tools_total = list.tools.len() - got.left_out_tools.len();
        m.tool_tokens = got.tool_tokens.as_ref().map_or(0, |t| t.total);
        m.collisions.clone_from(&list.collisions);
        m.capped.clone_from(&list.capped);
    };
    let by_model: HashMap<&str, &ModelEval> =
        got.models.iter().map(|m| (m.model.as_str(), m)).collect();
    let owners = owners(cfg, ours, neighbours);
    for m in &mut results.models {
        let mut crowd = empty(cfg, min, None);
        size(&mut crowd);
        match by_model.get(m.model.as_str()) {
            Some(c) if c.error.is_none() => measure(&mut crowd, m, c, &owners, &list),
            Some(c) => crowd.error.clone_from(&c.error),
            None => crowd.error = Some("the crowd was not asked".into()),
        }
        fail(m, crowd);
    }
}

/// Whose row each row of the crowded run is, in its order.
fn owners(cfg: &EvalConfig, ours: &str, neighbours: &[Neighbour]) -> Vec<String> {
    let mut out = vec![ours.to_owned(); cfg.cases.len()];
    for n in neighbours {
        out.extend(std::iter::repeat_n(n.name.clone(), n.cases.len()));
    }
    out
}

/// The crowd's record before anything is measured.
fn empty(cfg: &EvalConfig, min: f64, error: Option<String>) -> Crowd {
    Crowd {
        host: cfg.host.name().to_owned(),
        min_accuracy: min,
        rows: cfg.cases.len(),
        their_rows: cfg.neighbours.iter().map(|n| n.cases.len()).sum(),
        error,
        ..Crowd::default()
    }
}

/// Accuracy alone and crowded, the paired test over your rows, and the steals.
fn measure(
    crowd: &mut Crowd,
    alone: &ModelEval,
    crowded: &ModelEval,
    owners: &[String],
    list: &HostList,
) {
    let ours = crowd.rows.min(crowded.cases.len());
    crowd.correct = crowded.cases[..ours]
        .iter()
        .filter(|c| c.status == CaseStatus::Correct)
        .count();
    crowd.accuracy_alone = alone.accuracy;
    crowd.accuracy_crowded = if ours == 0 {
        0.0
    } else {
        crowd.correct as f64 / ours as f64
    };
    let before = counts(alone);
    let mut only_ours = crowded.clone();
    only_ours.cases.truncate(ours);
    let after = counts(&only_ours);
    let rows: Vec<Row> = before
        .iter()
        .zip(&after)
        .filter_map(|(b, a)| {
            Some(Row {
                before: (*b)?,
                after: (*a)?,
            })
        })
        .collect();
    crowd.p_value = (!rows.is_empty()).then(|| paired(&rows).p_worse);
    let origin = |sent: &str| list.origin.get(sent).cloned();
    for (case, owner) in crowded.cases.iter().zip(owners) {
        let Some(picked) = case
            .trials
            .iter()
            .find(|t| !t.passed && t.provider_error.is_none())
            .and_then(|t| t.calls.first())
        else {
            continue;
        };
        let Some((server, tool)) = origin(&picked.tool) else {
            continue;
        };
        if &server == owner {
            continue;
        }
        let expected = case.expect_tool.as_deref().map_or_else(
            || NO_TOOL.to_owned(),
            |e| origin(e).map_or(e.to_owned(), |o| o.1),
        );
        crowd.steals.push(Steal {
            case: case.name.clone(),
            expected,
            picked: tool,
            server,
            owner: owner.clone(),
        });
    }
}

/// Each row's (correct, trials) in case order, as the comparison counts them (provider
/// errors left out); `None` for a row not run or without a scored trial.
fn counts(m: &ModelEval) -> Vec<Option<(u32, u32)>> {
    m.cases
        .iter()
        .map(crate::outcome::EvalCaseResult::scored)
        .collect()
}

/// Puts the crowd on the model with its gate.
fn fail(m: &mut ModelEval, mut crowd: Crowd) {
    crowd.passed = crowd.error.is_none() && crowd.accuracy_crowded >= crowd.min_accuracy;
    let detail = match &crowd.error {
        Some(why) => format!("the crowd could not be measured: {why}"),
        None => format!(
            "accuracy in the crowd {} ({}/{}) against the minimum {}",
            crate::outcome::rates::percent(crowd.accuracy_crowded),
            crowd.correct,
            crowd.rows,
            crate::outcome::rates::percent(crowd.min_accuracy),
        ),
    };
    m.gates.push(Gate {
        kind: GateKind::Crowd,
        passed: crowd.passed,
        detail,
    });
    m.passed &= crowd.passed;
    m.crowd = Some(crowd);
}
