import { maxMutes } from '../product.ts';
import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../errors.ts';
import { textField } from '../http/fields.ts';
import { fieldMessages } from '../messages.ts';
import { listMutes, muteAccount, unmuteAccount } from '../accounts/mutes.ts';
import { findPublicAccount, type User } from '../accounts/users.ts';
import { arrayOf, json, ref, requiredField, status, type Operation } from '../openapi/kit.ts';

const accountField = requiredField('the account, looked up like a login (any letter case)');

/** POST /api/user/mute: 200 also when already muted; the muted account is never told. */
export async function mute(ctx: Ctx) {
  const me = requireUser(ctx);
  const target = await targetAccount(ctx);
  // Muting oneself would only hide one's own entries: surely a mistake.
  if (target.uid === me.uid) throw invalidField('user', fieldMessages.muteSelf);
  if (!muteAccount(ctx.app.db, me.uid, target.uid, ctx.app.clock.now()))
    throw invalidField('user', fieldMessages.muteLimit);
  return { status: 'ok' };
}
mute.doc = {
  id: 'mute',
  summary: "Mute an account (hiding its entries is the front end's job)",
  description: `The feed and thread answers stay the same for every reader (they are shared, cached answers): the front end hides the muted account's entries with the reader's mute list. The muted account learns nothing: no answer but the reader's own mute list shows a mute. At most ${maxMutes} mutes an account (the front end filters with the whole list).`,
  fields: { user: accountField },
  ok: json('muted (also when it was already)', status('ok')),
  errors: { 400: ['input.invalid'], 404: ['user.not_found'] },
  when: {
    'input.invalid': `\`field\` \`user\`: missing or empty; the reader's own account; ${maxMutes} mutes already`,
    'user.not_found': 'no public account has that name',
  },
} satisfies Operation;

export async function unmute(ctx: Ctx) {
  const me = requireUser(ctx);
  const target = await targetAccount(ctx);
  if (target.uid === me.uid) throw invalidField('user', fieldMessages.muteSelf);
  unmuteAccount(ctx.app.db, me.uid, target.uid, ctx.app.clock.now());
  return { status: 'ok' };
}
unmute.doc = {
  id: 'unmute',
  summary: 'Unmute an account',
  fields: { user: accountField },
  ok: json('unmuted (also when it was not muted)', status('ok')),
  errors: { 400: ['input.invalid'], 404: ['user.not_found'] },
  when: {
    'input.invalid': "`field` `user`: missing or empty, or the reader's own account",
    'user.not_found': 'no public account has that name',
  },
} satisfies Operation;

export function mutes(ctx: Ctx) {
  const me = requireUser(ctx);
  return listMutes(ctx.app.db, me.uid);
}
mutes.doc = {
  id: 'mutes',
  summary: 'The muted accounts, most recently muted first',
  description:
    "With their current names; `[]` when none. An account's deletion removes its mutes both ways (its own and those of it).",
  ok: json('the list', arrayOf(ref('MutedAccount'), maxMutes)),
} satisfies Operation;

async function targetAccount(ctx: Ctx): Promise<User> {
  const form = await ctx.form();
  const name = textField(form, 'user');
  if (!name) throw invalidField('user', fieldMessages.required);
  const user = findPublicAccount(ctx.app.db, name);
  if (!user) throw new ApiError(404, 'user.not_found');
  return user;
}
