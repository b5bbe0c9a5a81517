import { maxModReasonLength, moderationReason } from '../../lib/moderation/reasons.ts';
import { UsageError, type CommandContext } from '../cli.ts';

/** The argument forms several commands share: numbers, --reason, times. Each check throws UsageError. */

/** A whole number from the command line (a pid, a report id, a page), or a UsageError naming it. */
export function wholeNumber(raw: string, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d{1,15}$/.test(raw) || Number(raw) > max) throw new UsageError(`${what} must be a whole number${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}`);
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
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}
