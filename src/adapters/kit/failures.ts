/**
 * The one classifier of a failed model call, for every CLI: a missing sign-in, a rejected
 * credential, the CLI's own named failures (its quirks, declared as data), an API it could not
 * reach, a server error, another API error, anything else. Each CLI says what it knows (the status, the text, the CLI's label for
 * the failure); the rules and their wording live here.
 */
import type { ErrorInfo } from '../../core/events.js';
import { urlAllowEntry } from '../../core/hosts.js';
import { inParens, oneLine } from '../../core/text.js';
import { looksLikeAuthFailure } from '../finish.js';
import type { CliFacts } from './facts.js';

/**
 * The command that shows a run's record. Parsers do not know the run's id; finishRun puts it in
 * place of `<run>` in the final event, so the hint a user reads names the exact command.
 */
const SHOW_RUN = 'hydra show <run>';

/** What a CLI reported about one failure. */
export interface Failure {
  text: string;
  /** The HTTP status, when the CLI names it in a field; otherwise it is read from the text. */
  status?: number;
  /** The CLI's own name for the failure (a result subtype, an error class). */
  label?: string;
  /** The stream already said the credential was refused. */
  auth?: boolean;
}

/** `[API Error: 401 ...]`, `{"code": 400}`, `status 500`, `HTTP 503`: the status a text names. */
export const statusIn = (text: string): number | undefined => {
  const match =
    /\[API Error:\s*(\d{3})\b/.exec(text) ??
    /"code":\s*(\d{3})\b/.exec(text) ??
    /\b(?:status|HTTP)[: ]+(\d{3})\b/i.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
};

/** A call that never reached the API: the words of Node, curl-like clients and the CLIs for it. */
const UNREACHABLE =
  /\bConnection refused\b|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|getaddrinfo|ECONNRESET|socket hang up|ENETUNREACH|EHOSTUNREACH|\bfetch failed\b|Unable to connect|network is unreachable|could not resolve host/i;

/**
 * The answer of hydra's sandbox proxy to a host outside the allowlist (sandbox-runtime: a 403 whose
 * body says so, `X-Proxy-Error: blocked-by-allowlist`): a refusal of the jail, not of a credential.
 */
const SANDBOX_BLOCKED = /connection blocked by network allowlist|X-Proxy-Error:\s*blocked-by-/i;
const URL_IN_TEXT = /\bhttps?:\/\/(?:[^@/\s'"]*@)?(\[[^\]\s]+\]|[^/:\s'"(),]+)(?::(\d+))?/i;

/** The allowlist entry (core/hosts.ts: a loopback host with its port) of the URL a text names. */
const blockedEntry = (text: string): string | undefined => {
  const match = URL_IN_TEXT.exec(text);
  return match === null ? undefined : (urlAllowEntry(match[0]) ?? undefined);
};

/** A CLI's label that names no failure (Claude Code ends a failed call with subtype "success"). */
const SAYS_NOTHING = /^success$/i;

export const classifyFailure = (cli: CliFacts, failure: Failure): ErrorInfo => {
  const { displayName: name, signInHint } = cli;
  const rules = cli.failures ?? {};
  const { text, label } = failure;
  const status = failure.status ?? statusIn(text);
  const detail = text.trim() === '' ? '' : `: ${oneLine(text, 240)}`;
  const http = status === undefined ? '' : ` (HTTP ${status})`;
  if (SANDBOX_BLOCKED.test(text)) {
    const entry = blockedEntry(text);
    return {
      kind: 'Unreachable',
      message: `${name} could not reach ${entry ?? 'its model API'}: hydra's sandbox refused the connection (not on its network allowlist)${detail}`,
      hint: `If ${name} should reach it, add under [sandbox] in hydra.toml: allow_hosts = ["${entry ?? '<host>'}"] (docs/sandbox.md).`,
    };
  }
  if (rules.notSignedIn?.test(text) === true)
    return { kind: 'AuthMissing', message: `${name} is not signed in${detail}`, hint: signInHint };
  const authText = rules.authText?.test(`${text} ${label ?? ''}`) === true;
  if (status === 401 || status === 403 || failure.auth === true || authText || looksLikeAuthFailure(text))
    return {
      kind: 'AuthMissing',
      message: `${name} could not authenticate${http}${detail}`,
      hint: signInHint,
    };
  const named = label === undefined ? undefined : rules.named?.find((rule) => rule.label.test(label));
  if (named !== undefined)
    return { kind: 'AgentFailed', message: `${name} ${named.message}${detail}`, hint: named.hint };
  if (status === undefined && UNREACHABLE.test(text))
    return {
      kind: 'Unreachable',
      message: `${name} could not reach its model API${detail}`,
      hint: `Nothing answered at the API's address: check the network (a proxy or firewall), and the base URL ${name} is pointed at if one is set (a *_BASE_URL variable in the environment or in hydra.toml [agents.<name>.env]); then retry.`,
    };
  if (status !== undefined && status >= 500)
    return {
      kind: 'AgentFailed',
      message: `${name} hit an API server error${http}${detail}`,
      hint: `The model provider failed${rules.retried === undefined ? '' : ` (${rules.retried})`}; try again later.`,
    };
  if (status !== undefined)
    return {
      kind: 'AgentFailed',
      message: `${name} hit an API error${http}${detail}`,
      hint: `The full response is shown by \`${SHOW_RUN}\`.`,
    };
  return {
    kind: 'AgentFailed',
    message: `${name} reported an error${inParens(label !== undefined && SAYS_NOTHING.test(label) ? undefined : label)}${detail}`,
    hint: `The agent's output is shown by \`${SHOW_RUN}\`; retry if the provider had a passing fault.`,
  };
};
