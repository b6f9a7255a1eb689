/**
 * Repairing a ref store an agent damaged, without guessing: `packed-refs` lines that are not a ref
 * dropped, and a HEAD git cannot read written again from the snapshot (refs.ts, ref-restore.ts).
 */
import { lstat, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { RefSnapshot } from './ref-state.js';

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * What hydra can repair without guessing: lines of `packed-refs` that are not a ref (git refuses
 * the whole file for one) are dropped, and a HEAD that names nothing git can read is written again
 * from the snapshot. Returns what it repaired.
 */
export async function repairRefStore(root: string, snapshot: RefSnapshot): Promise<string[]> {
  const dirs = snapshot.gitDir;
  if (dirs === undefined) return [];
  const repaired: string[] = [];
  const packed = path.join(dirs.commonDir, 'packed-refs');
  const text = await readFile(packed, 'utf8').catch(() => null);
  if (text !== null) {
    const kept: string[] = [];
    let afterRef = false;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const [oid = '', ref = ''] = line.split(' ');
      const isRef = OID.test(oid) && /^refs\/[^\s\0]+$/.test(ref) && line.split(' ').length === 2;
      const isPeel = line.startsWith('^') && OID.test(line.slice(1)) && afterRef;
      const isHeader = line.startsWith('# pack-refs with:') && kept.length === 0;
      if (isRef || isPeel || isHeader) kept.push(line);
      afterRef = isRef;
    }
    const next = kept.length === 0 ? '' : `${kept.join('\n')}\n`;
    if (next !== text) {
      await replaceLocked(packed, next);
      repaired.push('packed-refs');
    }
  }
  const headFile = path.join(dirs.gitDir, 'HEAD');
  const head = await readFile(headFile, 'utf8').catch(() => null);
  const readable = head !== null && (/^ref: refs\/\S+\n?$/.test(head) || OID.test(head.trim()));
  if (!readable && snapshot.head !== null) {
    await replaceLocked(
      headFile,
      snapshot.head.startsWith('refs/') ? `ref: ${snapshot.head}\n` : `${snapshot.head}\n`,
    );
    repaired.push('HEAD');
  }
  return repaired;
}

/** Replaces a file of git's as git does: under its `.lock`, so no git command reads it half-written. */
async function replaceLocked(file: string, text: string): Promise<void> {
  const lock = `${file}.lock`;
  const handle = await open(lock, 'wx');
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  try {
    const stat = await lstat(file).catch(() => null);
    if (stat?.isSymbolicLink() === true) await rm(file);
    await rename(lock, file);
  } catch (error) {
    await rm(lock, { force: true });
    throw error;
  }
}
