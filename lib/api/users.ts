import { deleteAccount } from '../accounts/deletion.ts';
import { clearedSessionCookie } from '../http/cookies.ts';
import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../http/errors.ts';
import { textField } from '../http/fields.ts';
import { removeMedia, saveMedia } from '../media/files.ts';
import { fieldMessages } from '../messages.ts';
import { activeBanUntil } from '../moderation/bans.ts';
import {
  findUserById,
  findUserByName,
  isValidUsername,
  moderatorRole,
  normaliseUsername,
  renameUser,
  setAvatar,
  type User,
} from '../accounts/users.ts';
import { confirmIdentity, recheckIdentity } from './reauth.ts';

/** GET /api/u/{username}/info */
export function publicInfo(ctx: Ctx) {
  const user = findUserByName(ctx.app.db, ctx.params.username!);
  if (!user) throw new ApiError(404, 'user.not_found');
  return {
    uid: user.uid,
    username: user.username,
    created_at: user.created_at,
    avatar: user.avatar,
    ...banOf(ctx, user),
  };
}

/** `banned_until` only while a ban is in force (new fields appear only when they have something to say). */
function banOf(ctx: Ctx, user: User): { banned_until?: number } {
  const until = activeBanUntil(user, ctx.app.clock.now());
  return until ? { banned_until: until } : {};
}

/** GET /api/user/info */
export function ownInfo(ctx: Ctx) {
  const me = requireUser(ctx);
  const user = findUserById(ctx.app.db, me.uid);
  if (!user) throw new ApiError(401, 'auth.required');
  return ownProfile(user);
}

/** GET /api/auth/whoami: always 200, so a logged-out page load logs no error; `{uid: 0}` without a session. */
export function whoami(ctx: Ctx) {
  const session = ctx.session();
  const user = session && findUserById(ctx.app.db, session.uid);
  return user ? ownProfile(user) : { uid: 0 };
}

/**
 * The account as its owner sees it (user info, whoami, the data export). No `banned_until`: a
 * banned account has no session to ask with.
 */
export function ownProfile(user: User) {
  // The role shows only here: the public info never tells who moderates.
  const role = user.role === moderatorRole ? { role: moderatorRole } : {};
  return {
    uid: user.uid,
    username: user.username,
    created_at: user.created_at,
    last_login: user.last_login,
    avatar: user.avatar,
    ...role,
  };
}

/** POST /api/user/rename */
export async function rename(ctx: Ctx) {
  const me = requireUser(ctx);
  const form = await ctx.form();
  const username = normaliseUsername(textField(form, 'user'));
  if (!isValidUsername(username)) throw invalidField('user', fieldMessages.username);
  if (!renameUser(ctx.app.db, me.uid, username, ctx.app.clock.now()))
    throw new ApiError(409, 'user.name_taken', { field: 'user' });
  return { username };
}

/** POST /api/user/avatar: 256×256 centre crop; the old file is removed once the new one is in place. */
export async function changeAvatar(ctx: Ctx) {
  const me = requireUser(ctx);
  const form = await ctx.form();
  const file = form.files.get('avatar');
  if (!file) throw invalidField('avatar', fieldMessages.imageRequired);
  const image = await ctx.app.images.avatar(file.data);
  const { config, db } = ctx.app;
  const avatar = await saveMedia(config, 'a', image.extension, image.data);
  let previous: string;
  try {
    previous = setAvatar(db, me.uid, avatar);
  } catch (err) {
    await removeMedia(config, [avatar]);
    throw err;
  }
  await removeMedia(config, [previous]);
  return { avatar };
}

/** POST /api/user/delete: password confirmation, then the account (at once) and its data (in the background). */
export async function deleteOwnAccount(ctx: Ctx) {
  const session = requireUser(ctx);
  const form = await ctx.form();
  const { db, config } = ctx.app;
  const user = findUserById(db, session.uid);
  if (!user) throw new ApiError(401, 'auth.required');
  // The password or one of the account's passkeys (lib/api/reauth.ts).
  const confirmation = await confirmIdentity(ctx, user, form);

  const media = db.tx(() => {
    recheckIdentity(ctx, session, confirmation);
    return deleteAccount(db, user.uid, ctx.app.clock.now());
  });
  ctx.app.accountRemoval?.wake(); // entries, votes and reports follow within seconds, in slices
  ctx.setCookie(clearedSessionCookie(config.origin.startsWith('https:')));
  await removeMedia(config, media);
  return { status: 'deleted' };
}
