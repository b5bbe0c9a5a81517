/**
 * What the test files of one process share, opened on first use: one Chromium instead of one per
 * suite. A file run alone closes it with each suite that used it (releaseShared in the suite's
 * `after`); `make test`'s lanes (.ci/test-lane.ts) run many files in one process, keep it open
 * and close it after their last file.
 */

interface Resource {
  value: Promise<unknown>;
  close(): Promise<void>;
}

const open = new Map<string, Resource>();
let keptOpen = false;

/** The resource `name`: the open one while `isAlive` says so (a file may have crashed it), else a new one. */
export async function shared<T>(
  name: string,
  openIt: () => Promise<T>,
  closeIt: (value: T) => Promise<void>,
  isAlive: (value: T) => boolean,
): Promise<T> {
  const known = (await open.get(name)?.value.catch(() => undefined)) as T | undefined;
  if (known !== undefined && isAlive(known)) return known;
  const value = openIt();
  open.set(name, { value, close: () => value.then(closeIt, () => {}) });
  return value;
}

/** For a lane: shared resources stay open until closeShared, not only for one suite. */
export function keepSharedOpen(): void {
  keptOpen = true;
}

/** A suite is done with its shared resources: closed now, unless a lane keeps them for its next files. */
export async function releaseShared(): Promise<void> {
  if (!keptOpen) await closeShared();
}

/** Closes the shared resource `name` now, also in a lane; the next ask opens a new one. */
export async function closeSharedNow(name: string): Promise<void> {
  const resource = open.get(name);
  open.delete(name);
  await resource?.close();
}

/** Closes every shared resource. */
export async function closeShared(): Promise<void> {
  const closing = [...open.values()].map((resource) => resource.close());
  open.clear();
  await Promise.all(closing);
}
