/**
 * How hydra reads an `ssh://` engine address for its one SSH connection (engine/process/ssh-connection.ts):
 * the same user, host and port the docker CLI gives ssh; every other address is not its business.
 */
import { describe, expect, it } from 'vitest';
import {
  forwardedSocket,
  openSshConnection,
  sshConnectionNote,
  sshTarget,
} from '../../../src/engine/process/index.js';

describe('an ssh:// engine address', () => {
  it('gives ssh the user, host and port the docker CLI would', () => {
    expect(sshTarget('ssh://buildbox')).toEqual({ user: undefined, host: 'buildbox', port: undefined });
    expect(sshTarget('ssh://me@10.0.0.5:2222')).toEqual({ user: 'me', host: '10.0.0.5', port: '2222' });
    expect(sshTarget('ssh://root@[::1]:22')).toEqual({ user: 'root', host: '::1', port: '22' });
  });

  it('is not one when it is another scheme, has a path (docker refuses it) or is missing', () => {
    expect(sshTarget('tcp://10.0.0.5:2376')).toBeNull();
    expect(sshTarget('unix:///var/run/docker.sock')).toBeNull();
    expect(sshTarget('ssh://buildbox/var/run/docker.sock')).toBeNull();
    expect(sshTarget(undefined)).toBeNull();
  });

  it('opens no connection for another scheme, nor with HYDRA_SSH_REUSE=0, and doctor says which', async () => {
    await openSshConnection('tcp://127.0.0.1:1');
    await openSshConnection('ssh://nobody@127.0.0.1:1', { HYDRA_SSH_REUSE: '0' });

    expect(forwardedSocket('tcp://127.0.0.1:1')).toBeUndefined();
    expect(forwardedSocket('ssh://nobody@127.0.0.1:1')).toBeUndefined();
    expect(sshConnectionNote('tcp://127.0.0.1:1')).toBeNull();
    expect(sshConnectionNote('ssh://nobody@127.0.0.1:1', { HYDRA_SSH_REUSE: '0' })).toBe(
      'an SSH connection per docker call (HYDRA_SSH_REUSE=0)',
    );
  });
});
