import { altchaField } from '../openapi/registration.ts';
import { powCost, useSolvedChallenge } from '../registration/pow.ts';
import { findLiveEntry } from '../entries/entries.ts';
import type { Ctx } from '../http/context.ts';
import { ApiError } from '../errors.ts';
import { integerParam, textField } from '../http/fields.ts';
import { reportEntry, reportReason } from '../moderation/reports.ts';
import { maxReportReasonLength } from '../product.ts';
import { field, json, status, type Operation } from '../openapi/kit.ts';
import { codePoints } from '../text/code-points.ts';

/** POST /api/entry/{pid}/report: open to everyone; without a session the reporter is anonymous (uid 0). */
export async function report(ctx: Ctx<'pid'>) {
  const pid = integerParam(ctx.params.pid, 'pid');
  const form = await ctx.form();
  const { db, clock } = ctx.app;
  if (!findLiveEntry(db, pid)) throw new ApiError(404, 'entry.not_found');
  const reason = reportReason(textField(form, 'reason'));
  if (codePoints(reason) > maxReportReasonLength) throw new ApiError(400, 'report.too_long', { field: 'reason' });
  // Anonymous reports are free to send from many addresses: with BOARD_POW on, each costs a solved challenge.
  if (!ctx.session() && powCost(ctx.app.config) > 0)
    await useSolvedChallenge(db, textField(form, 'altcha'), clock.now());
  if (!reportEntry(ctx.app, pid, { uid: ctx.session()?.uid ?? 0 }, reason, clock.now()))
    throw new ApiError(404, 'entry.not_found');
  return { status: 'reported' };
}
report.doc = {
  id: 'report',
  summary: 'Report an entry (anonymous without a session)',
  description:
    'A logged-in reporter who already has an open report on the entry gets the same answer, and no second report is stored; anonymous reports (reporter 0) are all kept. Authors may report their own entries. Moderators work the open reports in their queue; the administrator lists and closes them with `board-admin reports` and `report-close <id>`.',
  fields: {
    reason: field(`optional; bidi controls dropped, trimmed, then at most ${maxReportReasonLength} characters`, {
      type: 'string',
      maxLength: maxReportReasonLength,
    }),
    altcha: altchaField,
  },
  ok: json('reported (a repeated open report of the same account stores nothing)', status('reported')),
  errors: { 400: ['report.too_long', 'pow.invalid'], 404: ['entry.not_found'] },
  when: {
    'rate.limited': 'more than 10 reports a minute from the address',
    'entry.not_found': 'unknown, deleted or removed entry',
    'report.too_long': `\`field\` \`reason\`: more than ${maxReportReasonLength} characters`,
    'pow.invalid': 'BOARD_POW is on and an anonymous report has no good solved challenge (docs/API.md "Proof of work")',
  },
} satisfies Operation;
