/**
 * The probe every CLI shares, driven by its flag table: run `--version` and the help that lists
 * the flags hydra uses, read the version, turn the table into capability features, refuse what
 * hydra cannot drive (a missing required flag, a version too old) and warn about the rest.
 */
import type { AdapterError } from '../errors.js';
import { compareVersions, hasFlag, optionText, parseHelpFlags, parseVersion } from '../help-flags.js';
import { probeError, runStep, unreadableVersion } from '../probe-steps.js';
import type { ProbeContext, StepResult } from '../probe-steps.js';
import type { Capabilities, ProbeResult, ProbeRunner } from '../types.js';
import type { CliFacts } from './facts.js';

/**
 * One row of a CLI's flag table: how the help shows that it has the feature, and what hydra uses it
 * for. `flags`: any of these spellings is defined; `says`/`saysNot`: and its help entry does (not)
 * mention this (a choice such as `stream-json`, a deprecation); `help`: the help text says this
 * anywhere (a subcommand, a sentence).
 */
export interface FlagRule {
  flags?: readonly string[];
  says?: RegExp;
  saysNot?: RegExp;
  help?: RegExp;
  /** What hydra uses it for. */
  means: string;
}

export type FlagTable<K extends string> = Readonly<Record<K, FlagRule>>;

/** A warning for a probed CLI that lacks something optional; `text` follows "<CLI> <version> ". */
export interface ProbeWarning<K extends string> {
  when: (features: Readonly<Record<K, boolean>>) => boolean;
  text: string;
}

export interface ProbeSpec<K extends string> {
  /** The help that lists the flags: `--help` (the default), or a subcommand's (`exec --help`). */
  helpArgs?: readonly string[];
  flags: FlagTable<K>;
  /** Each entry must be met by one of its features, or the CLI is refused (UnsupportedFlag). */
  requires: readonly (readonly NoInfer<K>[])[];
  /** Older releases are refused (UnsupportedVersion): what is wrong with them. */
  minVersion?: { version: string; problem: string };
  /** For an optional feature the help does not show, what the user goes without (a warning). */
  lacking?: Partial<Record<NoInfer<K>, string>>;
  /** Warnings on other conditions (a combination of features). */
  warnings?: readonly ProbeWarning<NoInfer<K>>[];
  /**
   * Flags taken from documentation, not a recorded run (Cursor): capabilities are `inferred` with
   * this warning, a version that cannot be read only warns, and the help must name the vendor.
   */
  inferred?: { warning: string; identifies: RegExp };
}

/** The features a flag table finds in a help text. */
const featuresOf = <K extends string>(
  table: FlagTable<K>,
  flags: readonly string[],
  help: string,
): Record<K, boolean> => {
  const features = {} as Record<K, boolean>;
  for (const [name, rule] of Object.entries(table) as [K, FlagRule][]) {
    const spellings = rule.flags ?? [];
    const entry = (): string => spellings.map((flag) => optionText(help, flag)).join('\n');
    features[name] =
      (spellings.length === 0 || hasFlag(flags, ...spellings)) &&
      (rule.says === undefined || rule.says.test(entry())) &&
      (rule.saysNot === undefined || !rule.saysNot.test(entry())) &&
      (rule.help === undefined || rule.help.test(help));
  }
  return features;
};

/** Log lines some CLIs print before their version when offline (opencode's models.dev fetch). */
const LOG_LINE = /^\s*(?:ERROR|WARN|INFO|DEBUG)\s+\d{4}-\d\d-\d\dT|migration/i;
const BARE_VERSION = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/;

/**
 * The version a `--version` step printed: the last line that is only a version number (so a Node
 * warning naming `v20.20.2` before it does not count), else the first version-like word of stdout,
 * then of stderr; log lines are passed over. Null when there is none.
 */
const readVersion = (step: Extract<StepResult, { ok: true }>): string | null => {
  const lines = (text: string): string[] => text.split(/\r?\n/).filter((line) => !LOG_LINE.test(line));
  const stdout = lines(step.output.stdout);
  const bare = stdout.map((line) => BARE_VERSION.exec(line.trim())?.[1]).findLast((v) => v !== undefined);
  return bare ?? parseVersion(stdout.join('\n')) ?? parseVersion(lines(step.text).join('\n'));
};

/** How a refusal names a flag: its spellings, or the long one and the choice (`--format json`). */
const shown = (rule: FlagRule): string =>
  rule.says === undefined ? (rule.flags ?? []).join('/') : `${rule.flags?.at(-1) ?? ''} ${rule.says.source}`;

/** The flags most CLIs spell the same way, meaning the same thing. */
export const MODEL_FLAG: FlagRule = {
  flags: ['-m', '--model'],
  means: 'the model hydra.toml or --model names',
};
export const resumeFlag = (...flags: string[]): FlagRule => ({
  flags,
  means: 'follow-up rounds in one session',
});

/**
 * The yargs options Gemini CLI and its fork Qwen Code share, as their `--help` lists them. Each
 * adapter adds its approval-mode rows (the modes' spellings differ) and what is its own.
 */
export const GEMINI_FAMILY_FLAGS = {
  // Qwen Code 0.1.x offers only text and json; Gemini CLI before 0.11 has no stream-json.
  streamJson: { flags: ['-o', '--output-format'], says: /stream-json/, means: 'to follow the run' },
  yolo: { flags: ['-y', '--yolo'], means: 'to approve everything (--unsafe)' },
  promptFlag: { flags: ['-p', '--prompt'], means: 'the prompt as one `--prompt=` argument' },
  model: MODEL_FLAG,
  resume: resumeFlag('-r', '--resume'),
} as const satisfies FlagTable<string>;

/** A CLI's probe, from its flag table and what it requires. */
export const probeCli =
  <K extends string>(cli: CliFacts, spec: ProbeSpec<K>) =>
  async (binary: string, run: ProbeRunner): Promise<ProbeResult> => {
    const { helpArgs = ['--help'], inferred } = spec;
    const context: ProbeContext = { ...cli, adapterId: cli.id, binary };
    const [versionStep, helpStep] = await Promise.all([
      runStep(context, run, ['--version']),
      runStep(context, run, helpArgs),
    ]);
    if (!versionStep.ok && inferred === undefined) return { ok: false, error: versionStep.error };
    if (!helpStep.ok) return { ok: false, error: helpFailure(cli, helpArgs, context, helpStep.error) };
    const refuse = (kind: 'UnsupportedFlag' | 'UnsupportedVersion', message: string, hint: string) =>
      probeError(context, kind, message, hint, helpArgs, helpStep.output);
    if (inferred !== undefined && !inferred.identifies.test(helpStep.text)) {
      const message = `${binary} does not identify itself as ${cli.displayName} in its ${helpArgs.join(' ')}`;
      const hint = `Install ${cli.displayName} (${cli.installHint}) or point hydra.toml [agents.${cli.id}] binary at it.`;
      return { ok: false, error: refuse('UnsupportedVersion', message, hint) };
    }
    const version = versionStep.ok ? readVersion(versionStep) : null;
    const flags = parseHelpFlags(helpStep.text);
    const features = featuresOf(spec.flags, flags, helpStep.text);
    const capabilities: Capabilities = {
      adapterId: cli.id,
      binary,
      version,
      flags,
      features,
      confidence: inferred === undefined ? 'verified' : 'inferred',
      warnings: inferred === undefined ? [] : [inferred.warning],
    };
    if (version === null && versionStep.ok && inferred === undefined)
      return { ok: false, capabilities, error: unreadableVersion(context, versionStep.output) };
    const who = version === null ? `${cli.displayName} at ${binary}` : `${cli.displayName} ${version}`;
    const missing = spec.requires.filter((anyOf) => !anyOf.some((name) => features[name]));
    if (missing.length > 0) {
      const needs = missing.map((anyOf) =>
        anyOf.map((name) => `${shown(spec.flags[name])} (${spec.flags[name].means})`).join(' or '),
      );
      const message = `${who} lacks what hydra needs: ${needs.join('; ')}`;
      return {
        ok: false,
        capabilities,
        error: refuse(
          'UnsupportedFlag',
          message,
          `Install or upgrade ${cli.displayName}: ${cli.installHint}`,
        ),
      };
    }
    const minimum = spec.minVersion;
    if (version !== null && minimum !== undefined && compareVersions(version, minimum.version) < 0) {
      const message = `${who} ${minimum.problem}; hydra needs ${minimum.version} or later`;
      const error = probeError(
        context,
        'UnsupportedVersion',
        message,
        `Upgrade it: ${cli.installHint}`,
        ['--version'],
        versionStep.ok ? versionStep.output : undefined,
      );
      return { ok: false, capabilities, error };
    }
    for (const [feature, text] of Object.entries(spec.lacking ?? {}) as [K, string][])
      if (!features[feature]) capabilities.warnings.push(`${who} ${text}`);
    for (const warning of spec.warnings ?? [])
      if (warning.when(features)) capabilities.warnings.push(`${who} ${warning.text}`);
    if (version === null && inferred !== undefined)
      capabilities.warnings.push(`could not read ${cli.displayName}'s version from \`${binary} --version\`.`);
    return { ok: true, capabilities };
  };

/** A subcommand's help that fails means the subcommand is missing, not that the CLI is broken. */
const helpFailure = (
  cli: CliFacts,
  helpArgs: readonly string[],
  context: ProbeContext,
  error: AdapterError,
): AdapterError => {
  const command = helpArgs.join(' ');
  if (error.kind !== 'UnsupportedVersion' || helpArgs.length < 2) return error;
  return probeError(
    context,
    'UnsupportedVersion',
    `this ${cli.displayName} has no working \`${helpArgs[0] ?? ''}\` subcommand (\`${context.binary} ${command}\` failed)`,
    `Upgrade it: ${cli.installHint}`,
    helpArgs,
  );
};
