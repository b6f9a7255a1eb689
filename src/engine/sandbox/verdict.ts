/**
 * A race's decision, from its `[sandbox] mode` and what the machine can: its agents are sandboxed
 * (and by what), or they run unsandboxed (and why, to say in the header, doctor and the summary),
 * or, with `required` on a machine that cannot, the race is refused naming what is missing.
 */
import { EngineError } from '../errors.js';
import type { SandboxMechanism, SandboxSettings } from './settings.js';
import { prepareSandbox } from './support.js';

export type SandboxVerdict =
  | { sandboxed: true; mechanism: SandboxMechanism }
  /** `why` is null when the user turned the sandbox off. */
  | { sandboxed: false; why: string | null };

export async function sandboxVerdict(settings: SandboxSettings | undefined): Promise<SandboxVerdict> {
  if (settings === undefined || settings.mode === 'off') return { sandboxed: false, why: null };
  const support = await prepareSandbox();
  if (support.available) return { sandboxed: true, mechanism: support.mechanism };
  if (settings.mode === 'required')
    throw new EngineError({
      kind: 'Refused',
      message: `The sandbox is required (sandbox mode "required"), but agents cannot be sandboxed on this machine: ${support.reason}.`,
      hint: `${support.hint} Or race with --sandbox auto to run them unsandboxed where the machine cannot.`,
    });
  return { sandboxed: false, why: `${support.reason}. ${support.hint}` };
}

/** The warning an unsandboxed race in mode `auto` shows (header, output, summary). */
export const unsandboxedWarning = (why: string): string =>
  `Agents run unsandboxed (with your full powers): ${why}`;
