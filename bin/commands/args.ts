import { maxModReasonLength } from '../../lib/product.ts';
import { moderationReason } from '../../lib/modlog/reasons.ts';
import { UsageError, type CommandContext } from '../cli.ts';

/** The argument forms several commands share: numbers, --reason, times. Each check throws UsageError. */

/** A whole number from the command line (a pid, a report id, a page), or a UsageError naming it. */
export function wholeNumber(raw: string, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d{1,15}$/.test(raw) || Number(raw) > max)
    throw new UsageError(`${what} must be a whole number${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}`);
  return Number(raw);
}

/** --reason: required, cleaned and limited like the API's field (it is public, on the entry and in the log). */
export function reasonOption(options: CommandContext['options']): string {
  const reason = moderationReason(typeof options.reason === 'string' ? options.reason : '');
  if (reason.error === 'empty') throw new UsageError('needs --reason TEXT');
  if (reason.error === 'long') throw new UsageError(`the reason may have at most ${maxModReasonLength} characters`);
  return reason.text;
}

/** Unix seconds as `2026-11-21 06:30` (UTC), the command line's one time format. */
export function utcMinute(seconds: number): string {
  return utcSecond(seconds).slice(0, 16);
}

/** Unix seconds as `2026-11-21 06:30:15` (UTC). */
function utcSecond(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

const agoUnits: Record<string, number> = { m: 60, h: 3600, d: 86_400 };

/**
 * A point in time on the command line, as Unix seconds: a UTC date (`2026-11-21`, its 00:00), a
 * time (`2026-11-21 06:30` or `2026-11-21T06:30:15`; UTC, like everything board-admin prints,
 * unless it ends in `Z` or an offset such as `+01:00`), or a time ago (`90m`, `2h`, `3d`).
 */
export function pointInTime(raw: string, what: string, now: number): number {
  const text = raw.trim();
  const ago = /^(\d{1,6})([mhd])$/.exec(text);
  if (ago) return now - Number(ago[1]) * agoUnits[ago[2]!]!;
  const at = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d))?(Z|[+-]\d\d:\d\d)?)?$/.exec(text);
  if (at) {
    const [year, month, day, hour = '00', minute = '00', second = '00', zone = 'Z'] = at.slice(1);
    const utc =
      Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) / 1000;
    // Date.UTC rolls 2026-02-30 over into March: only a time that comes back the same is one.
    if (utcSecond(utc) === `${year}-${month}-${day} ${hour}:${minute}:${second}`) return utc - zoneSeconds(zone);
  }
  throw new UsageError(
    `${what} must be a date (2026-11-21), a UTC time (2026-11-21 06:30, or with Z or +01:00) or a time ago (90m, 2h, 3d)`,
  );
}

/** `Z`, `+01:00`, `-05:30` as seconds east of UTC. */
function zoneSeconds(zone: string): number {
  if (zone === 'Z') return 0;
  return (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
}
