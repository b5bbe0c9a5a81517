import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** A bound on the files hashed, far above the front end's. */
const maxFiles = 2000;

const versions = new Map<string, Promise<string>>();

/**
 * The front end's version, read once per process: a hash over every file in web/static. Why: pages
 * name the files under it and caches keep them a year, so a returning reader loads no module again
 * until a deploy changes one.
 */
export function frontEndVersion(staticDir: string): Promise<string> {
  let version = versions.get(staticDir);
  if (!version) {
    version = hashFolder(staticDir);
    version.catch(() => versions.delete(staticDir));
    versions.set(staticDir, version);
  }
  return version;
}

export function versionedStatic(version: string): string {
  return `/static/v/${version}/`;
}

async function hashFolder(staticDir: string): Promise<string> {
  const files = (await readdir(staticDir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => relative(staticDir, join(entry.parentPath, entry.name)))
    .sort();
  if (files.length > maxFiles) throw new Error(`web/static: more than ${maxFiles} files`);
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(await readFile(join(staticDir, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}
