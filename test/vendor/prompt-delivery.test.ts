/**
 * Prompts are data: whatever the user typed reaches the model byte for byte through the command the
 * adapter builds, checked in the request body the fake model server received.
 */
import { describe, expect, it } from 'vitest';
import { RECORD_VERSIONS } from '../../scripts/vendor-cli.js';
import type { VendorAgent } from '../../scripts/vendor-cli.js';
import { runVendor, userTexts } from './harness.js';

/** Starts with a flag, holds quotes, backslashes, newlines, shell syntax and non-ASCII text. */
const HOSTILE_PROMPT = `-v --help fix it "double" 'single' \\back\nsecond line\n$(rm -rf /) \`id\` $HOME ünï 🙂 --\n`;
/** Over Linux's 128 KiB limit for one argument (MAX_ARG_STRLEN). */
const HUGE_PROMPT = `${'0123456789abcdef'.repeat(200 * 64)}\nEND OF A 200 KiB PROMPT`;
/** yargs reads a number here in a positional prompt (Qwen Code's turned it into "16"). */
const NUMERIC_PROMPT = '0x10';

const AGENTS: VendorAgent[] = ['claude', 'codex', 'gemini', 'qwen', 'opencode'];

/**
 * Qwen Code appends two newlines to a prompt it reads from stdin (`<stdin>\n\n`); every other
 * delivery of the latest versions is exact.
 */
const received = (agent: VendorAgent, texts: string[]): string[] =>
  agent === 'qwen' ? texts.map((text) => text.replace(/\n\n$/, '')) : texts;

describe.each(AGENTS)('%s prompt delivery', (agent) => {
  const version = RECORD_VERSIONS[agent];

  it('delivers a prompt that looks like flags and shell code unchanged', async () => {
    const run = await runVendor({ agent, version, scenario: 'reply-text', prompt: HOSTILE_PROMPT });

    if (run.built.stdinFile === undefined) {
      // As the last argument: after `--`, or as one `--prompt=<prompt>` argument.
      expect(run.built.args.at(-1)?.endsWith(HOSTILE_PROMPT)).toBe(true);
    } else {
      expect(run.built.files).toContainEqual({ path: run.built.stdinFile, content: HOSTILE_PROMPT });
    }
    expect(userTexts(agent, run.requests)).toContain(HOSTILE_PROMPT);
    expect(run.terminal.kind).toBe('completed');
  });

  it('delivers a prompt yargs would read as a number as the text it is', async () => {
    const run = await runVendor({ agent, version, scenario: 'reply-text', prompt: NUMERIC_PROMPT });

    expect(userTexts(agent, run.requests)).toContain(NUMERIC_PROMPT);
    expect(run.terminal.kind).toBe('completed');
  });

  it('delivers a 200 KiB prompt unchanged through stdin', async () => {
    const run = await runVendor({ agent, version, scenario: 'reply-text', prompt: HUGE_PROMPT });

    expect(run.built.stdinFile).toBeDefined();
    expect(run.built.args.join(' ')).not.toContain('END OF A 200 KiB PROMPT');
    expect(received(agent, userTexts(agent, run.requests))).toContain(HUGE_PROMPT);
    expect(run.terminal.kind).toBe('completed');
  });
});
