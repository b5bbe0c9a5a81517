import type { FederationMode } from '../config.ts';
import type { Db } from '../db/db.ts';
import { ApiError } from '../errors.ts';
import type { Counter, LimitStore } from '../limits/rate-limit.ts';
import { scaledLimit, waitText } from '../limits/rate-limit.ts';
import { windowsText, type Windows } from '../limits/write-limits.ts';
import { inboxPace } from './inbox-pace.ts';
import { instanceAdmitted, instanceOf } from './instances.ts';

/**
 * The checks an activity POSTed to an inbox passes before its signature is verified
 * (docs/API.md "What comes in"): cheap ones, so a refused server costs the board a JSON parse and
 * an index lookup, never a key fetch. The signature itself is Fedify's, after these.
 */

const minute = 60;
const hour = 3600;

/**
 * Verified activities one instance, and one actor, may send (BOARD_LIMITS scales them, 0 lifts
 * them). Why per instance: one server's flood must not starve the others' or the readers'; why
 * per actor: one account there must not use up its whole server's share.
 */
export const inboxLimitRules = {
  instance: {
    counts: 'Aktivitäten von diesem Server',
    windows: [
      [300, minute],
      [3000, hour],
    ] as Windows,
  },
  actor: {
    counts: 'Aktivitäten von diesem Konto',
    windows: [
      [60, minute],
      [600, hour],
    ] as Windows,
  },
} as const;

const perWindowInEnglish: Record<number, string> = { [minute]: 'a minute', [hour]: 'an hour' };

/** A share in English as docs/API.md "What comes in" writes it („60 a minute and 600 an hour“), unscaled. */
export function inboxShareText(group: keyof typeof inboxLimitRules): string {
  return inboxLimitRules[group].windows
    .map(([limit, seconds]) => `${limit.toLocaleString('en')} ${perWindowInEnglish[seconds]}`)
    .join(' and ');
}

/** The longest actor id the door reads (docs/API.md "What comes in", step 2). */
export const maxActorIdChars = 2048;

export interface AdmittedActivity {
  instance: string;
  counters: Counter[];
}

/**
 * Activities past the door whose signature is still being verified, by counter key. They take
 * their place in the share until their verification ends, so many in flight at once cannot all
 * pass the peek before the first is counted; one that fails gives its place back.
 */
export type PendingActivities = Map<string, number>;

export interface DoorDeps {
  db: Db;
  limits: LimitStore;
  mode: FederationMode;
  limitsFactor: number;
  pending: PendingActivities;
}

const pendingKey = (counter: Counter) => counter.key.toString('latin1');

function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string')
    return (value as { id: string }).id;
  return undefined;
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? instanceOf(parsed) : undefined;
  } catch {
    return undefined;
  }
}

const ownObjectTypes = new Set(['Create', 'Update', 'Delete', 'Undo']);

/**
 * A refusal of an activity whose instance the door read: the board answers it at its own pace
 * (lib/federation/inbox-pace.ts), so a sender ignoring it cannot set the pace of its retries.
 */
export class InstanceRefusal extends ApiError {
  readonly instance: string;
  constructor(instance: string, ...refusal: ConstructorParameters<typeof ApiError>) {
    super(...refusal);
    this.instance = instance;
  }
}

const refused = (
  instance: string,
  status: number,
  code: 'federation.instance_refused' | 'federation.foreign_object',
  group: string,
) => new InstanceRefusal(instance, status, code, { limit: `federation/${group}` });

/**
 * Checks an inbox POST's body: its actor, its instance admitted, its ids on the actor's host, the
 * rates not used up, the activities pending verification included (docs/API.md "What comes in").
 * An admitted activity is pending until settleInboxActivity, which the caller must reach.
 */
export function checkInboxActivity(deps: DoorDeps, body: Buffer, now: number): AdmittedActivity {
  let activity: Record<string, unknown>;
  try {
    activity = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ApiError(400, 'input.invalid');
  }
  if (!activity || typeof activity !== 'object' || Array.isArray(activity)) throw new ApiError(400, 'input.invalid');
  const actor = idOf(activity.actor);
  const instance = hostOf(actor);
  // The actor's id is the key of its share: a real one is a short URL.
  if (!actor || !instance || actor.length > maxActorIdChars)
    throw new ApiError(400, 'input.invalid', { field: 'actor' });
  if (!instanceAdmitted(deps.db, deps.mode, instance))
    throw refused(instance, 403, 'federation.instance_refused', 'instance');
  // An actor speaks for its own server only, so one server cannot put words in another's mouth;
  // an Accept names another's Follow and an Announce relays others' posts, so those may be elsewhere.
  if (activity.id !== undefined && hostOf(idOf(activity.id)) !== instance)
    throw refused(instance, 400, 'federation.foreign_object', 'object_host');
  const object = activity.object;
  if (ownObjectTypes.has(String(activity.type)) && object && typeof object === 'object' && !Array.isArray(object)) {
    const objectId = idOf(object);
    if (objectId !== undefined && hostOf(objectId) !== instance)
      throw refused(instance, 400, 'federation.foreign_object', 'object_host');
  }
  const counters = inboxCounters(deps, instance, actor);
  for (const group of ['instance', 'actor'] as const) {
    const wait = deps.limits.peek(
      counters.filter((counter) => counter.group === group),
      now,
      (counter) => deps.pending.get(pendingKey(counter)) ?? 0,
    );
    if (wait > 0) throw rateRefusal(deps, instance, group, wait);
  }
  for (const counter of counters) {
    const key = pendingKey(counter);
    deps.pending.set(key, (deps.pending.get(key) ?? 0) + 1);
  }
  return { instance, counters };
}

/**
 * Ends an admitted activity's pending: a verified one counts, a refused one (a forged signature)
 * gives its place back. Only what passed the signature counts, so a forger naming a server
 * cannot use up that server's share.
 */
export function settleInboxActivity(deps: DoorDeps, admitted: AdmittedActivity, verified: boolean, now: number): void {
  if (verified && admitted.counters.length) deps.limits.hit(admitted.counters, now, false);
  for (const counter of admitted.counters) {
    const key = pendingKey(counter);
    const left = (deps.pending.get(key) ?? 1) - 1;
    if (left > 0) deps.pending.set(key, left);
    else deps.pending.delete(key);
  }
}

type InboxGroup = keyof typeof inboxLimitRules;

function inboxCounters(deps: DoorDeps, instance: string, actor: string): (Counter & { group: InboxGroup })[] {
  if (deps.limitsFactor === 0) return [];
  const counters: (Counter & { group: InboxGroup })[] = [];
  for (const [group, subject] of [
    ['instance', instance],
    ['actor', actor],
  ] as const) {
    for (const [limit, windowSeconds] of inboxLimitRules[group].windows) {
      const rule = { limit: scaledLimit(limit, deps.limitsFactor), windowSeconds };
      // Hosts and actor ids are public names, no one's address: a plain key, so a refusal costs no hash.
      counters.push({ ...deps.limits.named(`federation_${group}/${windowSeconds}`, subject, rule), group });
    }
  }
  return counters;
}

function rateRefusal(deps: DoorDeps, instance: string, group: InboxGroup, wait: number): InstanceRefusal {
  const rule = inboxLimitRules[group];
  return new InstanceRefusal(instance, 429, 'rate.limited', {
    headers: { 'Retry-After': String(wait) },
    limit: `federation/${group}_rate`,
    message: `Zu viele ${rule.counts}: höchstens ${windowsText(rule.windows, deps.limitsFactor)}. Bitte warte noch ${waitText(wait)}.`,
  });
}

export function busyRefusal(instance: string): InstanceRefusal {
  const wait = inboxPace.busyRetrySeconds;
  return new InstanceRefusal(instance, 429, 'rate.limited', {
    headers: { 'Retry-After': String(wait) },
    limit: 'federation/instance_busy',
    message: `Zu viele ${inboxLimitRules.instance.counts} auf einmal. Bitte warte noch ${waitText(wait)}.`,
  });
}
