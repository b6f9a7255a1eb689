/**
 * Shared pieces of the attack tests: Claude's recorded success stream with hostile text put in its
 * first message and its result, and small shell wrappers used as configured binaries.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli-helpers.js';

const SUCCESS = path.join(ROOT, 'fixtures', 'adapters', 'claude', 'streams', 'success-edit.jsonl');

/** The recorded Claude success stream, with `message` as its first text and `result` as its result. */
export function claudeStreamSaying(message: string, result: string): string[] {
  const lines = readFileSync(SUCCESS, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  return lines.map((line) => {
    const value = JSON.parse(line) as Record<string, unknown>;
    const content = (value['message'] as { content?: Array<Record<string, unknown>> } | undefined)?.content;
    const text = content?.find((part) => part['type'] === 'text');
    if (value['type'] === 'assistant' && text !== undefined && text['text'] === 'I will create the file.')
      text['text'] = message;
    if (value['type'] === 'result') value['result'] = result;
    return JSON.stringify(value);
  });
}

const PARTIAL = path.join(ROOT, 'fixtures', 'adapters', 'claude', 'streams', 'partial-messages.jsonl');

/**
 * The recorded Claude stream with partial messages, its first text streamed as `deltas` (one
 * text_delta line each) instead of the recorded one.
 */
export function claudeStreamStreaming(deltas: readonly string[]): string[] {
  const lines = readFileSync(PARTIAL, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  const first = lines.findIndex((line) => line.includes('"text_delta"'));
  const template = JSON.parse(lines[first] ?? '{}') as { event: { delta: { text: string } } };
  const streamed = deltas.map((text) => {
    template.event.delta.text = text;
    return JSON.stringify(template);
  });
  return [...lines.slice(0, first), ...streamed, ...lines.slice(first + 1)];
}

/** An executable sh script at `file` with `body` (no shebang needed). */
export function writeScript(file: string, body: string): string {
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** Quotes one word for sh. */
export const sh = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;
