/**
 * What an agent CLI gets of hydra's environment: an allowlist, never the whole of it. General
 * variables (where things are, the locale, the terminal, the proxy and certificate settings, the
 * toolchains' homes), the variables its own adapter declares (its keys, base URLs and families:
 * adapters/environment.ts), and nothing else: another CLI's key, a forge or cloud token
 * (`GH_TOKEN`, `AWS_SECRET_ACCESS_KEY`) stay out. What `[agents.<name>] env` and the adapter's
 * command set is added over it by the caller. Issue 35, case 6.
 *
 * And what a command that runs code an agent could have written gets (a check, the contract's run,
 * a cross-test, their setup: commandEnvironment): all of hydra's environment but its credentials,
 * by the same rule (isCredentialVariable), except those the user passes (`[race] check_pass_env`).
 */
import { readsEnv } from '../../adapters/environment.js';
import type { AgentAdapter } from '../../adapters/types.js';

/** Variables any program may need to run as it does in the user's shell. */
const GENERAL = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'HOSTNAME',
  'LANG',
  'LANGUAGE',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'CI',
  'EMAIL',
  // Proxies and certificates: what reaching an allowed host through the user's network needs.
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'NODE_USE_ENV_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'GIT_SSL_CAINFO',
  // Toolchains: where the project's build and tests find their runtimes and caches.
  'NODE_OPTIONS',
  'NODE_PATH',
  'NVM_DIR',
  'NVM_BIN',
  'VOLTA_HOME',
  'PNPM_HOME',
  'BUN_INSTALL',
  'DENO_DIR',
  'JAVA_HOME',
  'GOPATH',
  'GOROOT',
  'GOPROXY',
  'GOFLAGS',
  'GOCACHE',
  'GOMODCACHE',
  'CARGO_HOME',
  'RUSTUP_HOME',
  'PYENV_ROOT',
  'PYTHONPATH',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'GEM_HOME',
  'GEM_PATH',
  // Who commits, when the agent's own git does.
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
]);

/** Families of general variables: the locale's, the XDG directories, hydra's own settings. */
const GENERAL_PREFIXES = ['LC_', 'XDG_', 'HYDRA_'];

/** A name that says it holds a secret: never passed as a general variable, whatever its family. */
const SECRET_NAME = /TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|KEY|PRIVATE|AUTH|COOKIE|(?:^|_)PASS(?:$|_)/i;

/**
 * Names that hold or pick a credential without saying so: a cloud account's variables (an AWS
 * profile picks its keys, `AWS_ACCESS_KEY_ID` is half of one), git configuration given in the
 * environment (it can carry an `http.extraHeader` with a token), a Kerberos ticket's cache.
 */
const CREDENTIAL_NAME =
  /^(?:AWS_|AZURE_|ARM_|CLOUDSDK_|GOOGLE_CLOUD_|GCLOUD_)|^GIT_CONFIG_(?:PARAMETERS$|COUNT$|KEY_|VALUE_)|^KRB5CCNAME$/i;

/** Whether `name` holds a credential (or picks one): what no command of an agent's gets unasked. */
export const isCredentialVariable = (name: string): boolean =>
  SECRET_NAME.test(name) || CREDENTIAL_NAME.test(name);

/** Whether `name` is a general variable every agent gets. */
export const isGeneralVariable = (name: string): boolean =>
  !isCredentialVariable(name) &&
  (GENERAL.has(name) || GENERAL_PREFIXES.some((prefix) => name.startsWith(prefix)));

/**
 * The part of `env` an agent running `adapter` gets: the general variables, those its adapter
 * declares and those its own configuration names (`configured`: a provider's `env_key`). The caller adds the command's and the agent's configured variables over it.
 */
export function agentEnvironment(
  adapter: AgentAdapter,
  env: NodeJS.ProcessEnv = process.env,
  configured: readonly string[] = [],
): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isGeneralVariable(name) || readsEnv(adapter, name) || configured.includes(name)) passed[name] = value;
  }
  return passed;
}

/**
 * What a command gets of hydra's environment besides its own variables (checks/runner.ts,
 * setup/run.ts). `pass`: credentials the user lets through by name (`[race] check_pass_env`; an
 * entry ending in `*` names a family, `AWS_*`). `whole`: all of it, for a command that runs only
 * trusted content (the baseline's checks and setup, an agent's setup on the base).
 */
export interface CommandEnvironment {
  pass: readonly string[];
  whole?: boolean;
}

/** Whether `name` is one the user passes: a name of `pass`, or in a family it ends with `*`. */
const passed = (name: string, pass: readonly string[]): boolean =>
  pass.some((entry) => (entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry));

/**
 * The part of `env` a command gets under `rule`: everything but the credentials (isCredentialVariable)
 * and those `rule.pass` names; the whole of it for `rule.whole`. No rule: no credential at all.
 */
export function commandEnvironment(
  rule: CommandEnvironment | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (rule?.whole === true || !isCredentialVariable(name) || passed(name, rule?.pass ?? []))
      kept[name] = value;
  }
  return kept;
}

/**
 * The variables of `env` that `rule.pass` names: all a command in a container gets of this
 * machine's environment (its image has its own PATH and HOME; container/exec.ts passes these with `-e`).
 */
export function passedVariables(
  rule: CommandEnvironment | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const kept: Record<string, string> = {};
  const pass = rule?.pass ?? [];
  if (pass.length === 0) return kept;
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && passed(name, pass)) kept[name] = value;
  return kept;
}
