/**
 * Renders the dashboard app for component tests.
 *
 * `renderApp` uses ink-testing-library (100 columns). `renderAppAt` renders at any terminal size
 * through Ink's own render with a sized fake stdout (ink-testing-library's is fixed at 100
 * columns and has no rows), the same way ink-testing-library does it (debug mode: every frame is
 * written whole).
 */
import { EventEmitter } from 'node:events';
import { render as inkRender } from 'ink';
import { render } from 'ink-testing-library';
import { App } from '../../src/ui/components/app.js';
import { createTheme } from '../../src/ui/text/theme.js';
import type { Outcome } from '../../src/ui/state/view-state.js';
import type { FakeHandle } from './ui-fixtures.js';

export interface RenderOptions {
  interactive?: boolean;
  ascii?: boolean;
  color?: boolean;
  keepWorktrees?: boolean;
  /** How long the snapshot store coalesces engine updates (default 5 ms). */
  throttleMs?: number;
}

export interface Rendered {
  lastFrame(): string;
  press(keys: string): void;
  outcomes: Outcome[];
  unmount(): void;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001B\[[0-9;]*m/g;
export const plain = (text: string): string => text.replace(ANSI, '');

const element = (handle: FakeHandle, options: RenderOptions, outcomes: Outcome[]) => (
  <App
    handle={handle}
    theme={createTheme({ ascii: options.ascii ?? false, color: options.color ?? false })}
    keepWorktrees={options.keepWorktrees ?? false}
    interactive={options.interactive ?? true}
    throttleMs={options.throttleMs ?? 5}
    onExit={(outcome) => outcomes.push(outcome)}
  />
);

export const renderApp = (handle: FakeHandle, options: RenderOptions = {}): Rendered => {
  const outcomes: Outcome[] = [];
  const instance = render(element(handle, options, outcomes));
  return {
    lastFrame: () => instance.lastFrame() ?? '',
    press: (keys) => instance.stdin.write(keys),
    outcomes,
    unmount: () => instance.unmount(),
  };
};

export class SizedStdout extends EventEmitter {
  frames: string[] = [];
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (frame: string): boolean => {
    this.frames.push(frame);
    return true;
  };
  lastFrame = (): string => this.frames.at(-1) ?? '';
}

export class FakeStdin extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  write = (data: string): void => {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  };
  read = (): string | null => {
    const data = this.data;
    this.data = null;
    return data;
  };
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

export const renderAppAt = (
  handle: FakeHandle,
  size: { columns: number; rows: number },
  options: RenderOptions = {},
): Rendered & { resize(columns: number, rows: number): void } => {
  const outcomes: Outcome[] = [];
  const stdout = new SizedStdout(size.columns, size.rows);
  const stdin = new FakeStdin();
  const instance = inkRender(element(handle, options, outcomes), {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  return {
    lastFrame: stdout.lastFrame,
    press: (keys) => stdin.write(keys),
    outcomes,
    unmount: () => instance.unmount(),
    resize: (columns, rows) => {
      stdout.columns = columns;
      stdout.rows = rows;
      stdout.emit('resize');
    },
  };
};
