/**
 * The facts of one CLI that its probe, command, parser and hints all read: its names and hints,
 * where its models' prices are listed, how its failures read beyond what every CLI shares, and its tool table.
 */
import type { PriceListing } from '../types.js';
import type { ToolTable } from './tools.js';

/** A failure a CLI names (`error_max_turns`, `ProviderModelNotFoundError`) and what to say. */
export interface NamedFailure {
  label: RegExp;
  message: string;
  hint: string;
}

/** How one CLI's failures read, beyond what every CLI shares (see classifyFailure). */
export interface FailureQuirks {
  /** Its words for "no provider or sign-in set up at all". */
  notSignedIn?: RegExp;
  /** Its words (or its API's) for a rejected credential, besides the ones every CLI uses. */
  authText?: RegExp;
  /** What it already retried before giving up on a server error, for the hint. */
  retried?: string;
  named?: readonly NamedFailure[];
}

export interface CliFacts {
  readonly id: string;
  readonly displayName: string;
  /** How to install or upgrade it, as one command. */
  readonly installHint: string;
  /** How to sign it in, when it says it is not authenticated. */
  readonly signInHint: string;
  /** Where the price database lists its models, when not under their own names. */
  readonly priceListing?: PriceListing;
  readonly failures?: FailureQuirks;
  /** What the dashboard shows for a call of each of its tools. */
  readonly tools?: ToolTable;
}
