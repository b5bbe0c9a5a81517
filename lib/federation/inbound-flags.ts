import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { LimitStore } from '../limits/rate-limit.ts';
import { boardRateRules } from '../limits/rate-limit.ts';
import { reportEntry, reportReason } from '../moderation/reports.ts';
import type { Notifier } from '../outgoing/operator-webhook.ts';
import { maxReportReasonLength } from '../product.ts';
import { instanceOf } from './instances.ts';
import { entryNamed } from './remote-entries.ts';
import { remoteWriterAdmitted } from './remote-standing.ts';

/**
 * Reports from other servers (docs/API.md "Reports from other servers"): a `Flag`, as Mastodon
 * sends one (from its instance actor, `object` the reported statuses and account, `content` the
 * comment) and Lemmy (from the reporter, one post or comment, `summary` the reason), is an
 * anonymous report of each board entry it names, with its server named, through the report path a
 * member's report takes (lib/moderation/reports.ts reportEntry).
 */

export interface FlagDeps {
  db: Db;
  config: Config;
  limits: LimitStore;
  notifier?: Pick<Notifier, 'send'>;
}

export interface RemoteFlag {
  actorId: string;
  objectIds: string[];
  comment: string;
}

/**
 * Files the reports of a Flag; returns how many. Why a share per instance: an address may send
 * 10 reports a minute (boardRateRules.report), and a server speaks for many people but is one
 * sender, so its reports count as one address's; the ones past its share are dropped.
 */
export function takeRemoteFlag(deps: FlagDeps, flag: RemoteFlag, now: number): number {
  const { db, config, limits } = deps;
  const instance = instanceOf(flag.actorId);
  // A Flag names entries and accounts alike; only the entries become reports. A few times the share
  // of ids is looked at, so a Flag naming thousands costs no more.
  const rule = boardRateRules.report;
  const pids = new Set<number>();
  for (const id of flag.objectIds.slice(0, rule.limit * 4)) {
    const pid = entryNamed(db, config.origin, id);
    if (pid !== undefined) pids.add(pid);
  }
  const reason = [...reportReason(flag.comment)].slice(0, maxReportReasonLength).join('');
  let filed = 0;
  for (const pid of pids) {
    const counter = limits.keyed('federation_report', instance, rule, now);
    if (limits.peek([counter], now) > 0) break;
    const taken = db.tx(
      () =>
        remoteWriterAdmitted(db, config, flag.actorId, now) &&
        reportEntry(deps, pid, { uid: 0, instance }, reason, now),
    );
    if (!taken) continue;
    limits.hit([counter], now, false);
    filed++;
  }
  return filed;
}
