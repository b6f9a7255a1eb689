/**
 * Splits a byte stream into lines for the adapters: `\n` ends a line, a trailing `\r` is dropped
 * (CRLF tolerated), bytes are decoded as UTF-8 with replacement characters. A line longer than the
 * cap is not kept in memory: it is reported once with its size and a short head, and the stream
 * goes on with the next line.
 */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;
const CR = 0x0d;
const HEAD_BYTES = 200;

export interface LineSink {
  line(text: string): void;
  oversize(bytes: number, head: string): void;
}

const decode = (bytes: Buffer): string => {
  const text = bytes.toString('utf8');
  return text.endsWith('\r') ? text.slice(0, -1) : text;
};

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of an oversize line being skipped, or -1 when not skipping. */
  private skipped = -1;
  private skippedHead = '';

  constructor(
    private readonly sink: LineSink,
    private readonly maxBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    // A line begun in an earlier chunk is finished first, from its kept bytes.
    if (this.pendingBytes > 0 || this.skipped >= 0) {
      const newline = chunk.indexOf(NEWLINE);
      this.take(chunk.subarray(0, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last >= start) {
      if (last - start <= this.maxBytes) this.wholeLines(chunk, start, last);
      else this.eachLine(chunk, start, last);
      start = last + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  /**
   * The lines of `chunk[start, end)`, which ends at a newline and is no longer than a line may
   * be: decoded with one call, then cut at each "\n" (a byte 0x0a is always a newline in UTF-8,
   * and never part of a replaced invalid sequence). A flood of short lines costs one decode per
   * chunk instead of one per line.
   */
  private wholeLines(chunk: Buffer, start: number, end: number): void {
    const text = chunk.toString('utf8', start, end);
    let from = 0;
    for (;;) {
      const newline = text.indexOf('\n', from);
      const to = newline === -1 ? text.length : newline;
      this.sink.line(text.slice(from, to > from && text.charCodeAt(to - 1) === CR ? to - 1 : to));
      if (newline === -1) return;
      from = newline + 1;
    }
  }

  /** The lines of `chunk[start, end]` one at a time, so an oversize one is skipped, not decoded. */
  private eachLine(chunk: Buffer, start: number, end: number): void {
    let from = start;
    while (from <= end) {
      const newline = chunk.indexOf(NEWLINE, from);
      this.take(chunk.subarray(from, newline));
      this.endLine();
      from = newline + 1;
    }
  }

  /** Flushes a last line that had no newline. */
  end(): void {
    if (this.pendingBytes > 0 || this.skipped >= 0) this.endLine();
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.skipped >= 0) {
      this.skipped += part.length;
      return;
    }
    if (this.pendingBytes + part.length > this.maxBytes) {
      const head = Buffer.concat([...this.pending, part.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES);
      this.skippedHead = head.toString('utf8');
      this.skipped = this.pendingBytes + part.length;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    // Copy: the chunk's memory may be reused by the stream.
    this.pending.push(Buffer.from(part));
    this.pendingBytes += part.length;
  }

  private endLine(): void {
    if (this.skipped >= 0) {
      this.sink.oversize(this.skipped, this.skippedHead);
      this.skipped = -1;
      this.skippedHead = '';
      return;
    }
    const bytes = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.sink.line(decode(bytes));
  }
}

/** Keeps the last `maxBytes` of a text stream (stderr), decoded as UTF-8. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly maxBytes = 8 * 1024) {}

  push(chunk: Buffer): void {
    this.chunks.push(Buffer.from(chunk));
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes * 2) this.compact();
  }

  text(): string {
    this.compact();
    return this.chunks.length === 0 ? '' : Buffer.concat(this.chunks).toString('utf8');
  }

  private compact(): void {
    if (this.bytes <= this.maxBytes) return;
    const all = Buffer.concat(this.chunks);
    const kept = all.subarray(all.length - this.maxBytes);
    this.chunks = [kept];
    this.bytes = kept.length;
  }
}
