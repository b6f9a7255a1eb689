/** `[setup]` in hydra.toml: how each new worktree is made ready to build and test (docs/setup.md). */

export interface SetupSettings {
  /**
   * Commands run in each worktree (and the baseline's) before its agent or checks start, in order
   * (`[setup] run`, a string or a list; or the repository's `.cursor/worktrees.json` when hydra.toml
   * has no `[setup] run`). Empty: nothing runs.
   */
  run: string[];
  /** Where `run` came from, for messages and doctor. */
  runSource: 'hydra.toml' | 'cursor' | null;
  /** `[setup] timeout_s`: the time limit of each setup command, in ms. */
  timeoutMs: number;
  /** `[setup] copy`: gitignore-syntax patterns of ignored files copied from the checkout (besides `.worktreeinclude`). */
  copy: string[];
  /** `[setup] share`: ignored directories of the checkout each worktree sees copy-on-write (`node_modules`, `.venv`). */
  share: string[];
}

/** The default time limit of one setup command. */
export const DEFAULT_SETUP_TIMEOUT_MS = 10 * 60_000;

export const NO_SETUP: SetupSettings = {
  run: [],
  runSource: null,
  timeoutMs: DEFAULT_SETUP_TIMEOUT_MS,
  copy: [],
  share: [],
};
