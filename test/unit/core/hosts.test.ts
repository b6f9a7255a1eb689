/**
 * Issue 35, case 7: one reading of a loopback host and of its allowlist entry, for the policy that
 * builds the allowlist and the failures that name the line allowing a refused host.
 */
import { describe, expect, it } from 'vitest';
import {
  allowEntry,
  allowsHost,
  canonicalHost,
  hostOfEntry,
  isLoopbackHost,
  targetAllowEntry,
  urlAllowEntry,
} from '../../../src/core/hosts.js';

describe('isLoopbackHost', () => {
  it('knows every spelling of this machine', () => {
    for (const host of [
      'localhost',
      'LOCALHOST',
      'gw.localhost',
      '127.0.0.1',
      '127.1',
      '127.0.0.53',
      '2130706433',
      '0x7f000001',
      '0177.0.0.1',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      // It reaches the machine's own listeners too.
      '0.0.0.0',
      '0',
    ])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      'api.openai.com',
      '10.0.0.1',
      '128.0.0.1',
      'localhost.example.com',
      '::2',
      '2147483648',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('spells a host as the proxy dials it', () => {
    expect(['127.1', '2130706433', '0x7f000001', '[::1]', 'API.Example.COM'].map(canonicalHost)).toEqual([
      '127.0.0.1',
      '127.0.0.1',
      '127.0.0.1',
      '::1',
      'api.example.com',
    ]);
  });
});

describe('allowlist entries', () => {
  it('gives a loopback host one port, never the whole address', () => {
    expect(urlAllowEntry('http://127.1:4000/v1')).toBe('127.0.0.1:4000');
    expect(urlAllowEntry('http://2130706433:4000')).toBe('127.0.0.1:4000');
    expect(urlAllowEntry('http://0x7f000001:4000')).toBe('127.0.0.1:4000');
    expect(urlAllowEntry('http://[::1]:4000/v1')).toBe('[::1]:4000');
    expect(urlAllowEntry('http://localhost/v1')).toBe('localhost:80');
    expect(urlAllowEntry('https://gw.localhost')).toBe('gw.localhost:443');
    expect(urlAllowEntry('https://user:pw@LLM.example:8443/v1')).toBe('llm.example');
    expect(urlAllowEntry('not a url')).toBeNull();
    expect(targetAllowEntry('127.1:4000')).toBe('127.0.0.1:4000');
    expect(targetAllowEntry('[::1]:4000')).toBe('[::1]:4000');
    expect(targetAllowEntry('::1')).toBe('[::1]:<port>');
    expect(targetAllowEntry('localhost')).toBe('localhost:<port>');
    expect(targetAllowEntry('llm.example:443')).toBe('llm.example');
    expect(allowEntry('0.0.0.0', '2375')).toBe('0.0.0.0:2375');
  });

  it('reads the host back out of an entry', () => {
    expect(['127.0.0.1:4000', '[::1]:4000', 'llm.example', '*.corp.example'].map(hostOfEntry)).toEqual([
      '127.0.0.1',
      '::1',
      'llm.example',
      '*.corp.example',
    ]);
  });

  it('lets a host through as the proxy does: its entry in any spelling, with that port or none, or a pattern', () => {
    const allow = ['api.openai.com', '127.0.0.1:4000', '[::1]:5000', '*.corp.example'];
    expect(allowsHost(allow, '127.1', '4000')).toBe(true);
    expect(allowsHost(allow, '2130706433', '4000')).toBe(true);
    expect(allowsHost(allow, '127.0.0.1', '5432')).toBe(false);
    expect(allowsHost(allow, '[::1]', '5000')).toBe(true);
    expect(allowsHost(allow, '::1', '4000')).toBe(false);
    expect(allowsHost(allow, 'API.openai.com', '443')).toBe(true);
    expect(allowsHost(allow, 'gw.corp.example', '443')).toBe(true);
    expect(allowsHost(allow, 'localhost', '4000')).toBe(false);
  });
});
