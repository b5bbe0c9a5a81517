import { trustLevel, type TrustLevel } from '../accounts/trust.ts';
import { avatarSize, maxUsernameLength, minUsernameLength } from '../product.ts';
import { deleteAccount } from '../account-data/deletion.ts';
import { clearedSessionCookie } from '../http/cookies.ts';
import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../errors.ts';
import { fediverseHandle } from '../federation/handles.ts';
import { textField } from '../http/fields.ts';
import { removeMedia, saveMedia } from '../media/files.ts';
import { fieldMessages } from '../messages.ts';
import { activeBanUntil } from '../accounts/bans.ts';
import {
  findPublicAccount,
  findUserById,
  isValidUsername,
  moderatorRole,
  renameUser,
  setAvatar,
  type User,
} from '../accounts/users.ts';
import { confirmIdentity, recheckIdentity, reauthenticationFields } from './reauth.ts';
import {
  constant,
  imageFile,
  json,
  object,
  ref,
  requiredField,
  status,
  string,
  type Operation,
} from '../openapi/kit.ts';
import { normaliseUsername } from '../text/usernames.ts';

/** GET /api/u/{username}/info */
export function publicInfo(ctx: Ctx<'username'>) {
  const user = findPublicAccount(ctx.app.db, ctx.params.username);
  if (!user) throw new ApiError(404, 'user.not_found');
  return {
    uid: user.uid,
    username: user.username,
    created_at: user.created_at,
    avatar: user.avatar,
    ...banOf(ctx, user),
    // How to follow from another server (docs/API.md "Federation"), while federation is on.
    ...(ctx.app.config.federation === 'off' ? {} : { fediverse: fediverseHandle(ctx.app.config, user) }),
  };
}
publicInfo.doc = {
  id: 'publicUserInfo',
  summary: "A user's public profile",
  ok: json('the profile', ref('PublicUser')),
  errors: { 404: ['user.not_found'] },
} satisfies Operation;

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
  return ownProfile(user, trustLevel(ctx.app.db, user.uid, ctx.app.clock.now()));
}
ownInfo.doc = {
  id: 'ownUserInfo',
  summary: 'The own profile (with last_login; role for moderators)',
  ok: json('the profile', ref('OwnUser')),
} satisfies Operation;

/** GET /api/auth/whoami: always 200, so a logged-out page load logs no error; `{uid: 0}` without a session. */
export function whoami(ctx: Ctx) {
  const session = ctx.session();
  const user = session && findUserById(ctx.app.db, session.uid);
  // The trust level lets the composer say what is locked before anyone types (docs/API.md "Trust levels").
  return user ? ownProfile(user, trustLevel(ctx.app.db, user.uid, ctx.app.clock.now())) : { uid: 0 };
}
whoami.doc = {
  id: 'whoami',
  summary: 'Who is calling: the own profile, or `{uid: 0}` without a session (always 200)',
  ok: json('the own profile, or uid 0', { oneOf: [ref('OwnUser'), object({ uid: constant(0) })] }),
} satisfies Operation;

/**
 * The account as its owner sees it (user info, whoami, the data export). No `banned_until`: a
 * banned account has no session to ask with. The trust level is the owner's to know (the composer
 * says what it locks), never public (docs/API.md "Trust levels").
 */
export function ownProfile(user: User, trust: TrustLevel) {
  // The role shows only here: the public info never tells who moderates.
  const role = user.role === moderatorRole ? { role: moderatorRole } : {};
  return {
    uid: user.uid,
    username: user.username,
    created_at: user.created_at,
    last_login: user.last_login,
    avatar: user.avatar,
    ...role,
    trust_level: trust,
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
rename.doc = {
  id: 'rename',
  summary: 'Change the own username',
  fields: {
    user: requiredField('the new name, with the registration rules', {
      type: 'string',
      minLength: minUsernameLength,
      maxLength: maxUsernameLength,
    }),
  },
  ok: json('the name as stored', object({ username: string() })),
  errors: { 400: ['input.invalid'], 409: ['user.name_taken'] },
} satisfies Operation;

/** POST /api/user/avatar: an avatarSize square centre crop; the old file is removed once the new one is in place. */
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
    await removeMedia(config, [avatar], ctx.app.log);
    throw err;
  }
  await removeMedia(config, [previous], ctx.app.log);
  return { avatar };
}
changeAvatar.doc = {
  id: 'changeAvatar',
  summary: `Upload a new avatar (cropped to ${avatarSize}×${avatarSize})`,
  fields: { avatar: imageFile('the image: JPEG, GIF, PNG or WebP', true) },
  ok: json('the new avatar path', object({ avatar: string(undefined, { pattern: '^a/[^/]+$' }) })),
  errors: { 400: ['input.invalid', 'upload.bad_type'] },
} satisfies Operation;

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
  await removeMedia(config, media, ctx.app.log);
  return { status: 'deleted' };
}
deleteOwnAccount.doc = {
  id: 'deleteAccount',
  summary: 'Delete the own account (the password or a passkey confirms; the rest follows in the background)',
  fields: reauthenticationFields,
  ok: json('the account is gone and the cookie cleared', status('deleted')),
  errors: {
    400: ['input.invalid'],
    403: ['auth.bad_password', 'auth.bad_passkey'],
    429: ['rate.limited'],
    503: ['auth.busy'],
  },
} satisfies Operation;
