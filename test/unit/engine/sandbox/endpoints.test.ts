import { describe, expect, it } from 'vitest';
import { assignedUrls } from '../../../../src/engine/sandbox/endpoints.js';

describe('assignedUrls', () => {
  it("finds the endpoints of Codex's -c values and config.toml, settings.json env blocks and .env files", () => {
    expect(assignedUrls('model_providers.local.base_url="http://127.0.0.1:4000/v1"')).toEqual([
      'http://127.0.0.1:4000/v1',
    ]);
    expect(
      assignedUrls('model_providers.gw={name="gw", base_url="https://gw.example/v1", env_key="K"}'),
    ).toEqual(['https://gw.example/v1']);
    expect(assignedUrls('[model_providers.x]\nname = "x"\nbase_url = "https://x.example/v1"\n')).toEqual([
      'https://x.example/v1',
    ]);
    expect(
      assignedUrls('{"env":{"ANTHROPIC_BASE_URL":"http://localhost:8080","OTHER":"https://no.example"}}'),
    ).toEqual(['http://localhost:8080']);
    expect(assignedUrls('{"provider":{"a":{"options":{"baseURL":"https://a.example/api"}}}}')).toEqual([
      'https://a.example/api',
    ]);
    expect(assignedUrls('GOOGLE_GEMINI_BASE_URL=https://proxy.example\nGEMINI_API_KEY=k\n')).toEqual([
      'https://proxy.example',
    ]);
  });

  it('finds nothing in a URL that names no endpoint', () => {
    expect(assignedUrls('homepage = "https://example.com"\nmodel = "gpt-5"')).toEqual([]);
  });
});
