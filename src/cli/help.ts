/**
 * Help texts, one per command. Kept together so they read as one manual. The agent names are
 * literal (importing the registry would load every adapter for `hydra --help`); a test checks them
 * against the registry.
 */

export const COMMANDS = [
  'race',
  'doctor',
  'merge',
  'runs',
  'show',
  'stats',
  'clean',
  'demo',
  'trust',
  'continue',
  'rerun',
  'open',
] as const;
export type CommandName = (typeof COMMANDS)[number];

const EXIT_CODES = `Exit codes:
  0    success (race: at least one agent completed)
  1    the race or command failed
  2    usage or config error (bad flag, bad hydra.toml value)
  130  headless race interrupted (Ctrl-C or SIGTERM); every agent was stopped first`;

export const MAIN_HELP = `hydra: race coding agents on the same prompt and merge the winner

Usage:
  hydra <command> [options]

Commands:
  race "<prompt>"        race Claude Code, Codex (and, opt-in, Cursor Agent, Gemini CLI, Qwen Code,
                         opencode) in git worktrees
  doctor                 check git, the repository and every agent CLI
  merge <run> <agent>    merge one agent's result into the branch the race started from
  continue <run> <agent> "<prompt>"
                         a follow-up: the agent goes on in its own session, on its branch
  rerun <run> <agent>    race a fresh attempt of one agent, on a new branch <agent>-2
  open <run> <agent>     print the agent's worktree path (made again from its branch if removed)
  runs                   list past races
  show <run>             one race's summary and per-agent events
  stats                  the ledger: each agent's races, verified wins, checks passed and cost
  clean [<run>...]       remove worktrees, branches and records of finished or dead races
                         (--merged, --older-than 7d, --keep-results)
  demo                   race simulated agents in a throwaway repository, or on yours with a prompt and --check (no CLI or API key needed)
  trust                  let this repository's hydra.toml choose the programs hydra runs

Options:
  -h, --help             help for hydra or for a command (hydra race --help)
  -V, --version          print hydra's version

A <run> is a run id, a unique prefix of one, or last (the newest run).

Config: hydra.toml at the repository root, else $XDG_CONFIG_HOME/hydra/hydra.toml
(~/.config/hydra/hydra.toml); see hydra.toml.example. A repository's hydra.toml chooses the
programs hydra runs (binary, env, extra_args) only once you trust it: hydra trust.

${EXIT_CODES}`;

export const COMMAND_HELP: Record<CommandName, string> = {
  race: `Usage:
  hydra race [options] "<prompt>"
  hydra race [options] -- "<prompt starting with ->"
  hydra race [options] --prompt-file <file>

Runs every enabled agent on the prompt at once, each in its own git worktree branched from HEAD.
Your working tree, index and uncommitted changes are never touched. On a terminal it opens the
dashboard; with --json, or when stdout is not a terminal, it runs headless and prints NDJSON.

Options:
  --agents <list>                  comma-separated: claude,codex,cursor,gemini,qwen,opencode (repeatable)
                                   (default: claude,codex, and cursor,opencode with the flag below;
                                   gemini and qwen race when named here, in race.agents or with
                                   enabled = true in [agents.<cli>]); also a named agent of
                                   hydra.toml ([agents.opus] adapter = "claude"), <cli>:<model>
                                   (claude:opus races as claude-opus), <agent>*<n> (n copies)
  --agents auto[:N]                the N agents (default 2) with the most verified wins per dollar in
                                   hydra stats (this repository, else all, else the default race),
                                   within --max-cost-usd; the header says why each was chosen
  --repeat <n>                     race each agent n times: claude-1 ... claude-<n> (1-9)
  --allow-experimental-adapters    allow experimental agents (cursor, opencode)
  --model <agent>=<model>          model for one agent (or every copy of it); repeatable
                                   (--model claude=opus, --model claude-2=sonnet)
  --idle-timeout <seconds>         stop an agent after this long without output (default 300)
  --timeout <seconds>              overall limit per agent, 0 = none (default 1800)
  --unsafe                         use the vendors' sandbox-bypass modes (prints a warning)
  --sandbox auto|required|off      the OS sandbox around each agent (default auto: where the
                                   machine can; see docs/sandbox.md)
  --runner local|container         where agents run: this machine, or a container each on the
                                   [container] engines (docs/containers.md)
  --keep-worktrees                 keep every worktree after the race
  --check "<command>"              a check (a gate) run in every result and on the base; repeatable
  --check auto                     the project's own test command (hydra.toml, package.json, pytest,
                                   go test, cargo test, make test; see hydra doctor); typing it is
                                   your consent to run it ([race] checks = "auto" needs hydra trust)
  --max-cost-usd <usd>             stop the agents once the race's estimated spend passes this
  --auto-merge best                merge the best result (time and cost never decide) if a check
                                   ran for it, it passed every gate and nobody equals it
  --unverified                     with --auto-merge best: merge even when no check ran for the top
  --judge <agent>                  when the best results tie (or are within [score] judge_margin,
                                   default 5 points), ask this agent, read-only, to rank them
  --allow-test-changes             the task changes what the tests pin down: score results with
                                   their own tests, not only the base's (the contract), and let a
                                   result win that changed the tests or a check's command or config
  --no-cross-test                  do not run the agents' new tests on the base and on each other's
                                   results (docs/cross-testing.md; [race] cross_test = false)
  --prompt-file <file>             read the prompt from a file ("-" = stdin)
  --config <file>                  use this config file instead of hydra.toml
  --json                           headless: NDJSON on stdout, messages on stderr
  --ascii                          ASCII-only dashboard (default when the locale is not UTF-8)
  --resume-dashboard <run>         open the dashboard on a finished race (review, follow-ups, merge)
  --stop first-verified            once one result passes every check (and, cross-testing, the
                                   settled rivals' reproductions), stop the others after
                                   [race] stop_grace_s (default 30); their work stays on their branches
  --attempts <n>                   while no result passes every check and --max-cost-usd
                                   has room, rerun the agent with the best record (claude-2), given
                                   the failing checks' output; n attempts in all (1-9); with
                                   --auto-merge best, the merge waits for the last attempt
  --notify                         a bell and a desktop notification (OSC 9, OSC 777) when the race
                                   waits for you or ends; only to a terminal ([ui] notify = true)
  -h, --help                       this help

Headless output (one JSON object per line):
  {"type":"race","runId":...,"baseRef":"<sha>","agents":["claude","codex"],"warnings":[...]}
    (warnings only when there are any, e.g. keys of an untrusted hydra.toml that were ignored)
  {"type":"agent_event","agent":"claude","adapter":"claude","event":{"kind":"tool_call",...}}
  {"type":"summary","runId":...,"agents":[{"agent","adapter","status","exitCode","durationMs",
    "usage","diff","branch","worktree","error","checks","score","sandbox","runner","host"}],
    "baseline":{"checks":[...]},"merged":{"agent","branch","method"}|null,"mergeReason"}
  ("agent" is the agent's name, e.g. opus or claude-2; "adapter" the CLI it ran)
Results stay on branches hydra/<run-id>/<agent>; merge one with: hydra merge <run-id> <agent>

${EXIT_CODES}`,

  doctor: `Usage:
  hydra doctor [--json] [--config <file>] [--allow-experimental-adapters] [--unsafe]

Checks git, the repository, and every agent CLI: where the binary is, its version, tier, status
(ready, missing, unsupported, disabled, needs-opt-in), capabilities, the exact command a race
would run, warnings, and what to do about each problem.

Options:
  --json                           print one JSON object instead of text
  --config <file>                  use this config file instead of hydra.toml
  --allow-experimental-adapters    check experimental agents as if opted in
  --unsafe                         check for a race with --unsafe (warnings about bypass modes)
  -h, --help                       this help

Exit codes: 0 when at least one tier-1 agent is ready, 1 otherwise, 2 on usage or config errors.`,

  merge: `Usage:
  hydra merge <run> <agent> [--squash] [--keep-worktrees | --discard-others] [--allow-secrets]
                            [--allow-protected]
  hydra merge <run> <agent> --only <path>...

Merges one completed agent's branch (hydra/<run-id>/<agent>, <agent> being its name in that
run: claude, opus, claude-2) into the branch the race started from: a fast-forward when possible, else a merge commit, or a squash with --squash. It checks for
conflicts first and changes nothing when the merge would conflict or when your uncommitted
changes touch the same files. Afterwards the merged agent's worktree and branch are removed; the
other results stay (merge another one, or remove them with hydra clean <run>).

Options:
  --only <path>...   merge only these files or folders of the result (relative to where you
                     are, inside the repository), as one new commit; the agent's branch stays
  --squash           squash the agent's changes into one new commit
  --discard-others   also remove the other agents' worktrees and branches
  --allow-secrets    merge although the result, or a commit it brings, adds what looks like a
                     secret (a private key, an API token); refused otherwise, naming each one
  --allow-protected  merge although the result adds or changes, below the repository's top, a
                     file your tools run (pkg/.vscode/tasks.json, sub/.mcp.json, .envrc, .husky/);
                     refused otherwise, naming each one
  --keep-worktrees   keep every worktree and branch of the race, the merged one's too
  -h, --help         this help

A race that started on a detached HEAD has no branch to merge into: create one at its commit
(git switch -c <branch> <commit>) and merge the agent's branch there yourself.

<run> is a run id, a unique prefix of one, or last (the newest run); hydra runs lists them.
Exit codes: 0 merged, 1 refused or failed, 2 usage error.`,

  runs: `Usage:
  hydra runs [--json] [--limit N]

Lists past races in this repository, newest first: run id, state, agents with their status,
cost, and what was merged. A merged race stays listed after hydra clean (its history);
hydra clean --forget-merged removes it. On a terminal each run takes one line: when the
terminal is narrow, the agents are counted instead of listed and the prompt is cut.

Options:
  --json       print one JSON object {"runs":[...]} instead of a table
  --limit N    only the newest N runs
  -h, --help   this help`,

  show: `Usage:
  hydra show <run> [--json | --tui]

Prints one race's summary, then every agent's events from its record, one line each.
<run> is a run id, a unique prefix of one, or last (the newest run).

Options:
  --json       print the run record as one JSON object
  --tui        open the dashboard on the race instead (review, follow-ups, merge)
  -h, --help   this help`,

  stats: `Usage:
  hydra stats [--all] [--json] [--since <age|date>]

The ledger of past races in this repository, per agent (its name in hydra.toml, with the adapter
and model it ran): races, verified wins (it won the race and a check ran and passed for it), how
often its result passed every check, reproductions it wrote (tests that fail on the base and pass
on its result), median time of its completed results, cost a race and a verified win, and how often
a judge's first agreed with the score. On a terminal a chart of checks passed against cost follows.
Damaged records and unfinished runs are left out and counted (hydra runs shows what is wrong).

Options:
  --all                every repository hydra raced in (the index in $XDG_DATA_HOME/hydra,
                       ~/.local/share/hydra/repositories)
  --since <age|date>   only races started since: 30m, 12h, 7d, 2w, or a date (2026-11-01)
  --json               print the ledger as one JSON object
  -h, --help           this help

See docs/stats.md.`,

  continue: `Usage:
  hydra continue <run> <agent> "<prompt>" [--json] [--config <file>] [--unsafe] [--sandbox <mode>] [--ascii]

A follow-up for one agent of a race: it continues the agent's own session (Claude Code --resume
<session>, Codex exec resume <thread>, Cursor Agent and Gemini CLI --resume <session>) in its
worktree (made again from its branch when the race removed it), and its new work is committed on
the same branch as a new commit. A CLI version that cannot resume starts a new session there, and
hydra says so. Shown like a race: the dashboard on a terminal, NDJSON with --json (the same lines
as hydra race --json). Usage and cost add up across rounds; each round's is kept in the record.
The round runs the race's checks (its --check commands included) and cross-tests, and is scored
against the race's figures, so it never moves another agent's score.
<run> is a run id, a unique prefix of one, or last (the newest run).

Options:
  --config <file>   use this config file (default: the one the race ran with, trusted as a
                    repository's hydra.toml is; one outside the repository: give --config again)
  --unsafe          the vendors' sandbox-bypass modes (never taken from the record: give it again)
  --sandbox <mode>  auto, required or off (never taken from the record; default auto)
  --runner <where>  local or container, for this round (default: the race's --runner, or the config's)
  --json            headless: NDJSON on stdout, messages on stderr
  --ascii           ASCII-only dashboard
  --timeout <s>, --idle-timeout <s>, --max-cost-usd <usd>, --keep-worktrees, --no-cross-test
                    as for hydra race, for this round (default: what the race ran with)
  --notify          a bell and a desktop notification when the round is done (to a terminal only;
                    [ui] notify = true in hydra.toml does the same)
  --allow-experimental-adapters
                    accepted; reopening a run of an experimental agent already allows it
  -h, --help        this help

Exit codes: 0 when the agent completed the round, 1 otherwise, 2 on usage or config errors.`,

  rerun: `Usage:
  hydra rerun <run> <agent> [--json] [--config <file>] [--unsafe] [--sandbox <mode>] [--ascii]

Runs one agent of a race again from the race's base commit with the race's prompt, as a new agent
<agent>-2 (then -3, ...) on a new branch hydra/<run-id>/<agent>-2, beside the other results,
checked and scored as a follow-up is. Options as for hydra continue. Exit codes: 0 when the new attempt completed, 1 otherwise.`,

  open: `Usage:
  hydra open <run> <agent> [--config <file>]

Prints the path of the agent's worktree, for an editor or a shell (cd "$(hydra open <run> claude)").
When the race removed it, it is made again from the agent's branch, with the ignored files a race
copies into every tree (.worktreeinclude, [setup] copy); hydra clean removes it.

Options:
  --config <file>   the config whose [setup] copy applies (the worktree root comes from HYDRA_WORKTREE_ROOT)
  -h, --help        this help`,

  clean: `Usage:
  hydra clean [<run>...] [--merged] [--older-than <age>] [--keep-results] [--forget-merged]
              [--dry-run]

Removes the worktrees, hydra/<run-id>/* branches and records of finished or dead races, and
stops agent processes left behind by a race that died. Running races are left alone. The record
of a merged race is kept, so hydra runs still lists it (--forget-merged removes it). Nothing
hydra did not create is touched: a record is data, so a path or process it names that is not
the run's own (outside hydra's worktree directory for the run, not a git worktree, or a process
without the run's marker) is refused and listed with the reason; a record committed to the
repository is not hydra's and is kept.

Agents that ran in containers: their runs' containers and volumes (the session stores a
follow-up resumes; --keep-results keeps those) are removed too, by their labels, on every
engine of [container] hosts and on the default engine (DOCKER_HOST, else the current Docker
context); an engine that does not answer is named and nothing of it is removed. Without <run>,
the dev container images hydra built for this repository ([container] devcontainer = true)
that no container uses are removed from the default engine.

Scope (together they narrow it; without them every run):
  <run>...             only these runs: a run id, a unique prefix of one, or last
  --merged             only races that were merged
  --older-than <age>   only races started at least this long ago: 30m, 12h, 7d or 2w

Options:
  --keep-results       remove the worktrees only; the branches (the results) and records stay
  --forget-merged      also remove the records of merged races (their history in hydra runs)
  --dry-run            say what would be removed and what would be refused, change nothing
  -h, --help           this help`,

  trust: `Usage:
  hydra trust [<file>]
  hydra trust --revoke [<file>]
  hydra trust --list

A hydra.toml committed to a repository could name any program as an agent's binary. So the keys
that widen what runs (agents.<name>.binary, env, extra_args and checks, [[checks]],
race.allow_experimental_adapters = true, and a race.agents or enabled = true that adds a CLI) of
a repository's hydra.toml are ignored, and doctor and race say so, until you trust that file.
hydra trust records the file's place and the SHA-256 of its content in
$XDG_CONFIG_HOME/hydra/trusted.json (~/.config/hydra/trusted.json, readable by you only); an edit
to the file needs hydra trust again, and a link out of the repository is never trusted. The other
keys (models, timeouts, prices) always apply, layered over your own config. A file given with
--config, and your own ~/.config/hydra/hydra.toml, are trusted.

Arguments:
  <file>       the hydra.toml to trust (default: the one at the repository root), or a file
               [race] checks = "auto" reads its test command from (package.json, pyproject.toml...)

Options:
  --revoke     stop trusting the file
  --list       list the trusted files, and whether each changed since
  -h, --help   this help

Review the file before trusting it: hydra will run what it names.`,

  demo: `Usage:
  hydra demo [--here] [--json] [--ascii]
  hydra demo "<prompt>" [--check "<command>"]... [race options] [--here]

Creates a throwaway git repository in a temp directory, installs simulated agent CLIs (claude,
codex, gemini and qwen, plus the experimental cursor and opencode) that replay recorded streams and
really edit files, and runs a real race through the same adapters and engine: the dashboard on a
terminal, NDJSON otherwise.
No agent CLI or API key needed. The repository is kept and its path printed, so you can look at
the branches and merge a result there.

With --here, the simulated agents race in the current repository instead, from its current
HEAD, exactly as a real race would (your uncommitted work is never touched; the agents do not
see it). Nothing is installed on PATH: the simulated CLIs live in a temp directory. The
dashboard and the summary say the agents are simulated; the results are branches
hydra/<run>/<agent>, which hydra merge and hydra clean work on as on any race's.

Given a prompt or --check inside a git repository, the simulated agents race on your project: in
a copy of it (a clone of its committed HEAD, with the ignored files .worktreeinclude names, in a
temp directory; your checkout is not touched), or in it with --here. They replay their recorded
work (hello.txt) whatever the prompt; your checks, the baseline, cross-testing, the scores and the
merge are real. No hydra.toml is read: the race is the flags'.

Options:
  --here                   race the simulated agents in the current repository
  --check "<command>"      a check run on the base and on every result (repeatable)
  --agents <list>          which simulated agents race (claude,codex,...; default: all six)
  --auto-merge best        merge the best result (time and cost never decide) when it passed every gate
  --unverified             with --auto-merge best: merge even when no check ran
  --no-cross-test          do not run each agent's new tests on the others' results
  --allow-test-changes     count results that change what the checks run
  --timeout <s>, --idle-timeout <s>, --max-cost-usd <usd>, --keep-worktrees   as for hydra race
  --json                   headless: NDJSON on stdout, messages on stderr
  --ascii                  ASCII-only dashboard
  -h, --help               this help`,
};
