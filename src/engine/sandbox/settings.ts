/** `[sandbox]` in hydra.toml and `--sandbox`: whether agents run sandboxed, and what more they may reach. */

/**
 * `auto`: sandboxed where the machine can (said plainly where it cannot); `required`: a race that
 * cannot be sandboxed is refused; `off`: agents run with the user's full powers, as before.
 */
export type SandboxMode = 'auto' | 'required' | 'off';

export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'required', 'off'];

/** What isolates a sandboxed agent: bubblewrap on Linux, Seatbelt (`sandbox-exec`) on macOS. */
export type SandboxMechanism = 'bubblewrap' | 'sandbox-exec';

export interface SandboxSettings {
  mode: SandboxMode;
  /** Hosts every agent may reach besides its CLI's API (`[sandbox] allow_hosts`). */
  allowHosts: string[];
  /** Paths every agent may write besides its own trees (`[sandbox] allow_write`, `~/` allowed). */
  allowWrite: string[];
}

export const DEFAULT_SANDBOX: SandboxSettings = { mode: 'auto', allowHosts: [], allowWrite: [] };
