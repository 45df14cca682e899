//! What README.md lists by hand is checked against the tables the code prints from, so a fault
//! or an endpoint added in one place and not the other fails here.

use std::collections::BTreeSet;

fn readme() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The backticked words of README's sentence that starts at `from` and ends at `to`.
fn listed(readme: &str, from: &str, to: &str) -> BTreeSet<String> {
    let start = readme
        .find(from)
        .unwrap_or_else(|| panic!("README no longer says {from:?}"));
    let rest = &readme[start + from.len()..];
    let end = rest
        .find(to)
        .unwrap_or_else(|| panic!("README no longer says {to:?} after {from:?}"));
    rest[..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn readme_lists_every_request_fault_and_no_other() {
    let readme = readme();
    let said = listed(
        &readme,
        "x-emulator-fault: 503,latency=200` (a status, ",
        ": one table",
    );
    let table: BTreeSet<String> = agents_emulator::Fault::TABLE
        .iter()
        .map(|(wire, _)| (*wire).to_owned())
        .filter(|wire| wire != "STATUS")
        .collect();
    assert_eq!(said, table, "README's list of faults against Fault::TABLE");
}

#[test]
fn readme_lists_every_task_fault_and_no_other() {
    let readme = readme();
    let said: BTreeSet<String> = listed(&readme, "extract, search and map) ", " (one table")
        .into_iter()
        .map(|s| s.split(':').next().unwrap_or_default().to_owned())
        .collect();
    let table: BTreeSet<String> = agents_emulator::lifecycle::TASK_FAULTS
        .iter()
        .map(|(name, _)| (*name).to_owned())
        .collect();
    assert_eq!(
        said, table,
        "README's list of task faults against TASK_FAULTS"
    );
}

/// Every file ARCHITECTURE.md names (a backticked path under one of the workspace's crates,
/// tests, conformance or examples) exists, so its "where is X" rows and newcomer paths cannot
/// point at a file that moved.
#[test]
fn architecture_names_only_files_that_exist() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let path = format!("{root}/ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let roots = [
        "agents-",
        "tests/",
        "conformance/",
        "examples/",
        "xtask/",
        "bench/",
    ];
    let mut named = BTreeSet::new();
    for quoted in text.split('`').skip(1).step_by(2) {
        let candidate = quoted.split_whitespace().next().unwrap_or("");
        let is_file = candidate.ends_with(".rs")
            || candidate.ends_with(".py")
            || candidate.ends_with(".toml");
        if is_file
            && roots.iter().any(|r| candidate.starts_with(r))
            && !candidate.contains('*')
            && !candidate.contains('{')
        {
            named.insert(candidate.trim_end_matches([',', '.', ')', ':']).to_owned());
        }
    }
    assert!(named.len() > 40, "found only {} file names", named.len());
    let missing: Vec<&String> = named
        .iter()
        .filter(|f| !std::path::Path::new(root).join(f).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names files that do not exist: {missing:?}"
    );
}

/// The two commands README.md opens with are the ones `.ci/run` runs (there with `--locked`), so
/// a newcomer's first command cannot name an example that moved.
#[test]
fn readme_opens_with_commands_ci_runs() {
    let readme = readme();
    let block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("README opens with a ```sh block");
    let commands: Vec<&str> = block
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|command| !command.is_empty())
        .collect();
    assert_eq!(commands.len(), 2, "README's opening commands: {commands:?}");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.ci/run");
    let ci = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let run: BTreeSet<String> = ci
        .lines()
        .map(|line| line.trim().replace(" --locked", ""))
        .collect();
    for command in commands {
        assert!(
            run.contains(command),
            "README's opening command `{command}` is not a line of .ci/run"
        );
    }
}
