/** `hydra doctor [--json]`: git, the repository, and every adapter with a hint for each problem. */
import { trustHints, withTrustHint } from '../trust-hints.js';
import { adapterIds, adapterOf } from '../../adapters/registry.js';
import type { AdapterId, DoctorContext } from '../../adapters/types.js';
import {
  activeContainment,
  autoCheckState,
  buildRaceOptions,
  describeAutoCheck,
  devcontainerStatus,
  CONFIG_DEFAULTS,
  checkEngine,
  checkImage,
  engineFacts,
  displayPath,
  loadConfig,
  planForDoctor,
  configWarnings,
  describeShareSupport,
  prepareSandbox,
  shareSupport,
  sandboxOf,
} from '../../engine/index.js';
import {
  ensureExcluded,
  HYDRA_EXCLUDES,
  inspectRepo,
  probeAgents,
  probeAgentsInImage,
} from '../../engine/index.js';
import type { AgentProbeReport, DevcontainerStatus, EngineFacts, EngineProblem } from '../../engine/index.js';
import { sanitize, sanitizeStrings, terminalSafeJson } from '../../ui/index.js';
import { getBoolean, getString, noExtraArguments, parseCommandArgs } from '../args.js';
import type { CliContext } from '../context.js';
import { doctorJson, doctorPasses, renderDoctor } from '../doctor-view.js';
import type { RaceAgent } from '../doctor-view.js';
import { EXIT } from '../errors.js';
import { probeCacheDir } from '../paths.js';
import { doctorSetup, renderDoctorSetup } from '../doctor-setup.js';
import { renderDevcontainer } from '../doctor-devcontainer.js';

const OPTIONS = {
  json: { type: 'boolean' },
  config: { type: 'string' },
  'allow-experimental-adapters': { type: 'boolean' },
  unsafe: { type: 'boolean' },
} as const;

export async function doctorCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('doctor', args, OPTIONS);
  noExtraArguments('doctor', parsed.positionals);
  const configPath = getString(parsed, 'config');
  const loaded = loadConfig({
    cwd: ctx.cwd,
    env: ctx.env,
    ...(configPath !== undefined ? { explicitPath: configPath } : {}),
  });
  const allowExperimental =
    getBoolean(parsed, 'allow-experimental-adapters') ??
    loaded.config.race?.allow_experimental_adapters ??
    CONFIG_DEFAULTS.allowExperimentalAdapters;

  const repo = await inspectRepo(ctx.cwd);
  // The probe cache lives in <repo>/.cache/hydra: keep it out of the user's `git status`.
  if (repo.root !== null) await ensureExcluded(repo.root, HYDRA_EXCLUDES).catch(() => undefined);
  const plans = adapterIds().map((id) => planForDoctor(loaded.config, id));
  const machine: DoctorContext = {
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    unsafe: getBoolean(parsed, 'unsafe') ?? false,
  };
  // Checked beside the agents' probes (a trial run in the sandbox takes a moment); not when off.
  const sandboxMode = sandboxOf(loaded.config, {}, ctx.env).mode;
  const sandboxSupport = sandboxMode === 'off' ? null : prepareSandbox();
  const reports = (
    await probeAgents(plans, {
      cacheDir: probeCacheDir(repo.root, ctx.env),
      allowExperimental,
      env: ctx.env,
      // The sample command is the one a race here runs: no-approval mode inside the sandbox.
      sandboxed: sandboxSupport?.then((support) => support.available) ?? false,
    })
  ).map((report) => withTrustHint(withDoctorWarnings(report, machine), trustHints(loaded, ctx.cwd)));

  // What `--check auto` would run here, and whether its file is trusted.
  const auto = autoCheckState(loaded, ctx.cwd, ctx.env);
  const autoLine = describeAutoCheck(
    auto,
    loaded.path === null ? 'hydra.toml' : displayPath(loaded.path, ctx.cwd),
  );
  const sandbox = { mode: sandboxMode, support: await sandboxSupport };
  // What a race here copies, shares and runs in each worktree (doctor-setup.ts).
  const setup = doctorSetup(loaded, repo.root, ctx.env);
  const image = await imageReports(loaded.config, plans, allowExperimental, ctx.env, repo.root);
  // A container agent's CLI is the image's (probed there, below): the host's command and binary are not its.
  const reportsHere = image === null ? reports : reports.map((report) => inImageOnly(report, image));
  if (getBoolean(parsed, 'json')) {
    const { path, source, trusted, ignored } = loaded;
    const autoCheck = {
      configChecks: auto.configChecks,
      detected: auto.detected,
      trusted: auto.trusted,
      summary: autoLine,
    };
    ctx.print(
      terminalSafeJson({
        ...doctorJson(repo, reportsHere, { path, source, trusted, ignored }, activeContainment(), sandbox),
        autoCheck,
        share: { mechanism: shareSupport().kind, summary: describeShareSupport(shareSupport()) },
        setup,
        ...(image === null ? {} : { image }),
      }),
    );
  } else {
    const configLine = loaded.path
      ? displayPath(loaded.path, ctx.cwd)
      : 'none (defaults; see hydra.toml.example)';
    // Versions, warnings and errors quote what each CLI printed: sanitized for the terminal.
    const notes = configWarnings(loaded, ctx.cwd);
    const lines = renderDoctor(
      repo,
      sanitizeStrings(reportsHere),
      ctx.out,
      configLine,
      notes,
      activeContainment(),
      configuredRaceAgents(loaded.config, allowExperimental, ctx.cwd),
      image !== null && image.inContainers === 'all' ? { ...sandbox, allInContainers: true } : sandbox,
    );
    // In the config section, under the config file: what --check auto would run.
    const at = lines.indexOf(`  ${configLine}`);
    lines.splice(
      at < 0 ? lines.length : at + 1,
      0,
      `  --check auto: ${sanitize(autoLine)}`,
      // How `[setup] share` gives each worktree the checkout's directories here (issue 23).
      `  [setup] share: ${sanitize(describeShareSupport(shareSupport()))}`,
    );
    // After the config section, before the processes.
    const processes = lines.indexOf(ctx.out.bold('processes'));
    lines.splice(
      processes < 0 ? lines.length : processes,
      0,
      ...renderDoctorSetup(sanitizeStrings(setup), ctx.out),
      '',
    );
    if (image?.devcontainer !== undefined)
      lines.push(...renderDevcontainer(sanitizeStrings(image.devcontainer), image.host));
    if (image !== null && (image.agents.length > 0 || image.problems.length > 0))
      lines.push(...renderImage(sanitizeStrings(image)));
    for (const line of lines) ctx.print(line);
  }
  // Agents all in containers: the image's CLIs decide, not this machine's.
  const hostPasses = image?.inContainers === 'all' ? true : doctorPasses(reports);
  return hostPasses && (image === null || imagePasses(image)) ? EXIT.ok : EXIT.failed;
}

// Agents in containers: the CLIs probed inside the image (engine/probe/in-image.ts).
interface ImageReport {
  image: string;
  host: string;
  agents: AgentProbeReport[];
  /** `[container] devcontainer = true` with no image: its definition, image and state (doctor-devcontainer.ts). */
  devcontainer?: DevcontainerStatus;
  /** What stops a race on an engine of `[container] hosts` (engine-check.ts); the CLIs are probed on the first without one. */
  problems: EngineProblem[];
  /** Each engine's version and, for ssh://, how hydra reaches it. */
  engines: EngineFacts[];
  /** The CLIs that run in containers (their host report's command does not apply). */
  adapters: AdapterId[];
  /** Whether every agent runs in a container (`[race] runner`, no agent on this machine) or some. */
  inContainers: 'all' | 'some';
}

/** A container agent's report on this machine: its CLI is the image's, so no host command or binary is its. */
function inImageOnly(report: AgentProbeReport, image: ImageReport): AgentProbeReport {
  if (!image.adapters.includes(report.adapterId)) return report;
  return {
    ...report,
    command: null,
    warnings: [
      `runs in a container: its CLI is the one in the image ${image.image} (below), not this machine's`,
      ...report.warnings,
    ],
  };
}

/**
 * An engine that can run no agent fails doctor, as it stops a race; one of several hosts down only
 * warns, as a race places its agents on the others. A dev container the next race builds is not one.
 */
function imagePasses(report: ImageReport): boolean {
  if (report.devcontainer?.problem) return false;
  if (report.agents.length === 0 && report.problems.length > 0) return false;
  if (report.devcontainer !== undefined && !report.devcontainer.built) return true;
  return doctorPasses(report.agents);
}

/**
 * Where any agent runs in a container (`[race] runner` or an agent's `runner`), each adapter's
 * probe inside `[container] image` on the first engine of `[container] hosts` (or the
 * environment's); null otherwise. A dev container's image is built by the race, not here: doctor
 * says which file it builds and probes the image once it is built.
 */
async function imageReports(
  config: ReturnType<typeof loadConfig>['config'],
  plans: ReturnType<typeof planForDoctor>[],
  allowExperimental: boolean,
  env: NodeJS.ProcessEnv,
  repoRoot: string | null,
): Promise<ImageReport | null> {
  const inContainers =
    config.race?.runner === 'container' ||
    Object.values(config.agents ?? {}).some((agent) => agent.runner === 'container');
  const hosts = config.container?.hosts ?? ['default'];
  const host = hosts[0] ?? 'default';
  let image = config.container?.image;
  let devcontainer: DevcontainerStatus | undefined;
  if (inContainers && image === undefined && config.container?.devcontainer === true && repoRoot !== null) {
    devcontainer = await devcontainerStatus(repoRoot, host, env);
    if (!devcontainer.built || devcontainer.image === null)
      return {
        image: devcontainer.image ?? '',
        host,
        agents: [],
        devcontainer,
        problems: [],
        engines: [],
        adapters: [],
        inContainers: 'some',
      };
    image = devcontainer.image;
  }
  if (!inContainers || image === undefined) return null;
  const probed = plans.filter(
    (plan) => (config.agents?.[plan.adapterId]?.runner ?? config.race?.runner) === 'container',
  );
  // An engine that does not answer, or lacks the image, would fail every probe: say that instead.
  const network = config.container?.network;
  const checked = await Promise.all(hosts.map((one) => checkEngine(one, { image, network })));
  const problems = checked.filter((problem): problem is EngineProblem => problem !== null);
  const engines = (await Promise.all(hosts.map((one) => engineFacts(one)))).filter(
    (facts) => facts.version !== null,
  );
  const ready = hosts.find((one) => !problems.some((problem) => problem.host === one));
  // Probed as a race probes them, through its cache (by the image's id there): once per image.
  const imageId = ready === undefined ? null : await checkImage(ready, image).catch(() => null);
  const cacheDir = probeCacheDir(repoRoot, env);
  const agents =
    ready === undefined
      ? []
      : await probeAgentsInImage(probed, {
          image,
          host: ready,
          allowExperimental,
          env,
          ...(imageId === null ? {} : { cache: { dir: cacheDir, imageId } }),
        });
  const everyAgent = Object.values(config.agents ?? {}).every(
    (agent) => (agent.runner ?? config.race?.runner) === 'container',
  );
  return {
    image,
    host: ready ?? host,
    agents,
    problems,
    engines,
    adapters: probed.map((plan) => plan.adapterId),
    inContainers: config.race?.runner === 'container' && everyAgent ? 'all' : 'some',
    ...(devcontainer === undefined ? {} : { devcontainer }),
  };
}

/** The image's section: a line per CLI, and what to do about a missing one. */
function renderImage(report: ImageReport): string[] {
  const lines = ['', `in the image ${report.image} (engine: ${report.host}):`];
  for (const engine of report.engines) {
    lines.push(
      `  engine ${engine.host}: version ${engine.version ?? ''}${engine.connection === null ? '' : `, ${engine.connection}`}`,
    );
  }
  for (const problem of report.problems) {
    // One host of several down: a race places its agents on the others, and so says doctor.
    const others = report.agents.length > 0 ? ' (a race places its agents on the other engines)' : '';
    lines.push(`  ${problem.message}${others}`, `    hint: ${problem.hint}`);
  }
  if (report.agents.length === 0)
    lines.push('  the CLIs were not probed: no engine of [container] hosts can run the image');
  for (const agent of report.agents) {
    const state =
      agent.status === 'ready'
        ? `ok ${agent.version ?? ''}${agent.cached ? ' (cached probe)' : ''}`.trimEnd()
        : agent.status.replace(/-/g, ' ');
    lines.push(`  ${agent.agent}: ${state}`);
    if (agent.error !== null) {
      lines.push(`    ${agent.error.message}`);
      if (agent.error.hint !== undefined) lines.push(`    hint: ${agent.error.hint}`);
    }
  }
  return lines;
}

/**
 * The agents hydra.toml's `race.agents` lists, by name, as a race would expand them; undefined when
 * it lists none (the default race) or the list has problems (the config check says which).
 */
function configuredRaceAgents(
  config: ReturnType<typeof loadConfig>['config'],
  allowExperimental: boolean,
  cwd: string,
): RaceAgent[] | undefined {
  if (config.race?.agents === undefined) return undefined;
  try {
    return buildRaceOptions(config, { allowExperimental }, { repoPath: cwd, prompt: '' }).agents.map(
      (plan) => ({
        name: plan.name ?? plan.adapterId,
        adapterId: plan.adapterId,
      }),
    );
  } catch {
    return undefined;
  }
}

/** Adds the adapter's own warnings for this machine (running as root, ...) to an installed CLI's report. */
export function withDoctorWarnings(report: AgentProbeReport, machine: DoctorContext): AgentProbeReport {
  if (report.status === 'missing') return report;
  const warnings = adapterOf(report.adapterId).doctorWarnings?.(machine) ?? [];
  return warnings.length === 0 ? report : { ...report, warnings: [...report.warnings, ...warnings] };
}
