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

/** The text of `bytes[start, end)`, without the CR of a CRLF. */
const decode = (bytes: Buffer, start = 0, end = bytes.length): string =>
  bytes.toString('utf8', start, end > start && bytes[end - 1] === CR ? end - 1 : end);

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
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      // A whole line inside the chunk (the common case) is decoded where it lies: no copy.
      if (newline !== -1 && this.pendingBytes === 0 && this.skipped < 0 && newline - start <= this.maxBytes) {
        this.sink.line(decode(chunk, start, newline));
        start = newline + 1;
        continue;
      }
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
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
