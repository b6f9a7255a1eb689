/** The OS sandbox around every process hydra starts for an agent: its policy, the machine's support, the runtime. */
export {
  CREDENTIAL_PATHS,
  PROTECTED_PATHS,
  agentPolicy,
  isProtectedAtTop,
  isProtectedPath,
  racePolicy,
  treePolicy,
} from './policy.js';
export { absentPaths, removeSandboxStubs } from './stubs.js';
export { STATE_DIR, agentStateDir, cliStatePlan, cliStateReady, ensureCliState } from './cli-state.js';
export type { CliStatePlan } from './cli-state.js';
export { configuredEndpoints, configuredVariables } from './endpoints.js';
export type { AgentPolicyInput, RacePolicyInput, SandboxPolicy } from './policy.js';
export { DEFAULT_SANDBOX, SANDBOX_MODES } from './settings.js';
export type { SandboxMechanism, SandboxMode, SandboxSettings } from './settings.js';
export { describeSandbox, prepareSandbox } from './support.js';
export type { SandboxSupport } from './support.js';
export {
  discardPrewrapped,
  holdSandbox,
  prewrapSandboxed,
  sandboxedCommand,
  watchRefusals,
} from './runtime.js';
export type { SandboxedCommand } from './runtime.js';
export { HELPER_ENV, endOrphanedHelpers, helperMarker } from './helper-marker.js';
export { SANDBOX_PATH_ENV, findExecutable } from './tools.js';
export { sandboxVerdict, unsandboxedWarning } from './verdict.js';
export type { SandboxVerdict } from './verdict.js';
