/** What probing says of an agent: doctor's and the probing phase's view of one adapter. */
import type { ErrorInfo } from '../core/events.js';
import type { AdapterId, Capabilities, Tier } from '../adapters/types.js';
import type { AgentName } from './agent-name.js';

/** Doctor's and the probing phase's view of one adapter. */
export type AdapterStatus = 'ready' | 'missing' | 'unsupported' | 'disabled' | 'needs-opt-in';

export interface AgentProbeReport {
  /** The agent probed for (its binary is probed once however many agents share it). */
  agent: AgentName;
  adapterId: AdapterId;
  displayName: string;
  tier: Tier;
  status: AdapterStatus;
  /** Resolved absolute path of the binary, or null when none was found. */
  binary: string | null;
  version: string | null;
  capabilities: Capabilities | null;
  /** The exact command a race would run for a sample prompt (argument array), when ready. */
  command: string[] | null;
  warnings: string[];
  error: ErrorInfo | null;
  /** Whether the result came from the capability cache. */
  cached: boolean;
}
