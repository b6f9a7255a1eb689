/** The fixture normalizer makes re-recordings diff-stable without breaking links between lines. */
import { describe, expect, it } from 'vitest';
import {
  FIXTURE_PORT,
  FIXTURE_TIMESTAMP,
  createContext,
  normalizeArgv,
  normalizeText,
} from '../../../scripts/normalize-fixture.js';

describe('normalizeText', () => {
  it('maps the same UUID to the same placeholder across stdout and argv, and distinct ones apart', () => {
    const context = createContext([]);
    const session = '3f1b2c4d-1111-4222-8333-abcdefabcdef';
    const other = '01a206e2-5aea-78e1-9fe1-6c12216cb4af';

    const stdout = normalizeText(
      `{"session_id":"${session}"}\n{"uuid":"${other}","session_id":"${session.toUpperCase()}"}`,
      context,
    );
    const argv = normalizeArgv(['--resume', session], context);

    expect(stdout).toBe(
      '{"session_id":"00000000-0000-4000-8000-000000000001"}\n' +
        '{"uuid":"00000000-0000-4000-8000-000000000002","session_id":"00000000-0000-4000-8000-000000000001"}',
    );
    expect(argv).toEqual(['--resume', '00000000-0000-4000-8000-000000000001']);
  });

  it('replaces temp paths, their dash-slug form, the server port, timestamps and durations', () => {
    const context = createContext([['/tmp/hydra-rec-Ab12', '/tmp/hydra-fixture']], 41234);

    const out = normalizeText(
      '{"cwd":"/tmp/hydra-rec-Ab12/repo","memory":"/h/projects/-tmp-hydra-rec-Ab12-repo/","url":"http://127.0.0.1:41234/v1",' +
        '"timestamp":"2026-01-02T03:04:05.678Z","duration_ms":1234,"ttft_ms":56,"duration":{"secs":1,"nanos":42}}',
      context,
    );

    expect(out).toBe(
      '{"cwd":"/tmp/hydra-fixture/repo","memory":"/h/projects/-tmp-hydra-fixture-repo/",' +
        `"url":"http://127.0.0.1:${FIXTURE_PORT}/v1","timestamp":"${FIXTURE_TIMESTAMP}","duration_ms":100,"ttft_ms":100,` +
        '"duration":{"secs":0,"nanos":100000000}}',
    );
  });

  it('sorts the keys of the codex 0.2x config summary line only', () => {
    const out = normalizeText(
      '{"workdir":"/w","model":"m","approval":"never"}\n{"type":"x","workdir":"/w","a":1}',
      createContext([]),
    );

    expect(out).toBe('{"approval":"never","model":"m","workdir":"/w"}\n{"type":"x","workdir":"/w","a":1}');
  });
});
