import { trustLevel, type TrustLevel } from '../accounts/trust.ts';
import { avatarSize, maxUsernameLength, minUsernameLength } from '../product.ts';
import { deleteAccount } from '../account-data/deletion.ts';
import { clearedSessionCookie } from '../http/cookies.ts';
import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../errors.ts';
import { fediverseHandle } from '../federation/handles.ts';
import { textField } from '../http/fields.ts';
import { removeMedia } from '../media/files.ts';
import { storeImage } from '../media/stored-images.ts';
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
import { confirmIdentity, reauthenticationFields, reauthenticationWhen, recheckIdentity } from './reauth.ts';
import { passwordBusy } from './auth.ts';
import {
  constant,
  imageFile,
  imageWhen,
  json,
  object,
  ref,
  requiredField,
  status,
  string,
  type Operation,
} from '../openapi/kit.ts';
import { normaliseUsername } from '../text/usernames.ts';

export function publicInfo(ctx: Ctx<'username'>) {
  const user = findPublicAccount(ctx.app.db, ctx.params.username);
  if (!user) throw new ApiError(404, 'user.not_found');
  return {
    uid: user.uid,
    username: user.username,
    created_at: user.created_at,
    avatar: user.avatar,
    ...banOf(ctx, user),
    ...fediverseOf(ctx, user),
  };
}
publicInfo.doc = {
  id: 'publicUserInfo',
  summary: "A user's public profile",
  description: 'With `banned_until` while a ban is in force; the role is never shown here.',
  ok: json('the profile', ref('PublicUser')),
  errors: { 404: ['user.not_found'] },
  when: { 'user.not_found': 'no public account has the name (docs/API.md "Which accounts are public")' },
} satisfies Operation;

function fediverseOf(ctx: Ctx, user: User): { fediverse?: string } {
  return ctx.app.config.federation === 'off' ? {} : { fediverse: fediverseHandle(ctx.app.config, user) };
}

function banOf(ctx: Ctx, user: User): { banned_until?: number } {
  const until = activeBanUntil(user, ctx.app.clock.now());
  return until ? { banned_until: until } : {};
}

export function ownInfo(ctx: Ctx) {
  const me = requireUser(ctx);
  const user = findUserById(ctx.app.db, me.uid);
  if (!user) throw new ApiError(401, 'auth.required');
  return { ...ownProfile(user, trustLevel(ctx.app.db, user.uid, ctx.app.clock.now())), ...fediverseOf(ctx, user) };
}
ownInfo.doc = {
  id: 'ownUserInfo',
  summary: 'The own profile (with last_login; role for moderators)',
  description: 'A banned account has no session to ask with.',
  ok: json('the profile', ref('OwnUser')),
} satisfies Operation;

export function whoami(ctx: Ctx) {
  const session = ctx.session();
  const user = session && findUserById(ctx.app.db, session.uid);
  // The trust level lets the composer say what is locked before anyone types (docs/API.md "Trust levels").
  // The settings learn from `fediverse` whether the board federates, without a request that answers 404.
  return user
    ? { ...ownProfile(user, trustLevel(ctx.app.db, user.uid, ctx.app.clock.now())), ...fediverseOf(ctx, user) }
    : { uid: 0 };
}
whoami.doc = {
  id: 'whoami',
  summary: 'Who is calling: the own profile, or `{uid: 0}` without a session (always 200)',
  description:
    "Always 200, also with an unknown, expired or malformed cookie: the front end asks on every page load, so a logged-out visitor's console shows no 401 (SPEC keeps the 401 of GET /api/auth/sessioninfo).",
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
  description:
    "Renaming to another letter case of one's own name is allowed, and so is a name that looks like one's own old name (it adds no new look-alike).",
  ok: json('the name as stored', object({ username: string() })),
  errors: { 400: ['input.invalid'], 409: ['user.name_taken'] },
  when: {
    'input.invalid': '`field` `user`: not a valid name',
    'user.name_taken':
      '`field` `user`: another account has the name in any letter case, or a name that looks like it (TR39 skeleton)',
  },
} satisfies Operation;

export async function changeAvatar(ctx: Ctx) {
  const me = requireUser(ctx);
  const form = await ctx.form();
  const file = form.files.get('avatar');
  if (!file) throw invalidField('avatar', fieldMessages.imageRequired);
  const { config, db } = ctx.app;
  const avatar = await storeImage(config, ctx.app.images, 'avatar', file.data);
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
  description:
    'The image is centre-cropped to a square, keeps its format and loses all metadata; the previous avatar file is removed.',
  fields: { avatar: imageFile('the image: JPEG, GIF, PNG or WebP', true) },
  ok: json('the new avatar path', object({ avatar: string(undefined, { pattern: '^a/[^/]+$' }) })),
  errors: { 400: ['input.invalid', 'upload.bad_type'] },
  when: { 'input.invalid': '`field` `avatar`: no file', ...imageWhen },
} satisfies Operation;

export async function deleteOwnAccount(ctx: Ctx) {
  const session = requireUser(ctx);
  const form = await ctx.form();
  const { db, config } = ctx.app;
  const user = findUserById(db, session.uid);
  if (!user) throw new ApiError(401, 'auth.required');
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
  description:
    'Passkeys and recovery codes go with the account. The answer comes once the account is gone, with the cookie cleared; what goes at once and what follows within seconds: docs/API.md "Deleting an account".',
  fields: reauthenticationFields,
  ok: json('the account is gone and the cookie cleared', status('deleted')),
  errors: {
    400: ['input.invalid'],
    403: ['auth.bad_password', 'auth.bad_passkey'],
    429: ['rate.limited'],
    503: ['auth.busy'],
  },
  when: {
    ...reauthenticationWhen,
    'auth.required':
      'also when the calling session was ended, or the account banned, while the request ran (nothing is deleted)',
    'auth.busy': passwordBusy,
  },
} satisfies Operation;
