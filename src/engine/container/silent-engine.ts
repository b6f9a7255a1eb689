/**
 * An agent on a remote engine that ended well (exit 0) having printed nothing at all, neither a
 * line on stdout nor on stderr, was most likely not silent: its output was lost on the way. A TCP
 * proxy in front of the engine that closes a connection once docker half-closes its side (socat
 * without `-t`) does that to every container. The adapter can only blame the CLI ("check that it
 * supports its JSON output"); this says what `hydra doctor` would find (engine-check.ts).
 */
import type { CompletedEvent, FailedEvent } from '../../core/events.js';
import type { ContainerLaunch } from './types.js';

export interface AgentSilence {
  container: Pick<ContainerLaunch, 'host' | 'remote'> | null;
  /** Lines the agent printed on stdout (any, parsed or not). */
  lines: number;
  stderrTail: string;
  exitCode: number | null;
}

/** `terminal` with the engine named as the likely cause when its output was lost on the way, else as it is. */
export function blameSilentEngine<T extends CompletedEvent | FailedEvent>(
  terminal: T,
  silence: AgentSilence,
): T {
  const { container } = silence;
  if (terminal.kind !== 'failed' || terminal.error.kind !== 'StreamParseError') return terminal;
  if (container?.remote !== true || silence.lines > 0 || silence.stderrTail.trim() !== '') return terminal;
  if (silence.exitCode !== 0) return terminal;
  return {
    ...terminal,
    error: {
      ...terminal.error,
      hint:
        `It ran in a container on the engine at ${container.host}, which sent back no output at all: ` +
        'a TCP proxy in front of the engine that closes half-closed connections loses every ' +
        "container's output (with socat, give it `-t 86400`; or reach the engine by ssh:// or its own TLS " +
        'port). `hydra doctor` checks the engine.',
    },
  };
}
