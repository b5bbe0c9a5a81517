import { newPasswords } from './auth.ts';
import { reauthentication } from './passkeys.ts';
import { arrayOf, imageFile, integer, json, object, ref, requiredField, status, string, type Area } from './kit.ts';

/** docs/API.md "Users" and "Account self-service". */

const account = requiredField('the account, looked up like a login (any letter case)');

export const users: Area = {
  tag: 'Users',
  description:
    'Profiles, and what an account can do about itself: rename, avatar, password, sessions, export, mutes, deletion.',
  operations: {
    'GET /api/u/:username/feed/:page': {
      id: 'userFeed',
      summary: "A page of a user's live entries, replies included, newest first",
      ok: json('the page; [] past the end', arrayOf(ref('Entry'), 20)),
      errors: { 404: ['user.not_found'] },
    },
    'GET /api/u/:username/info': {
      id: 'publicUserInfo',
      summary: "A user's public profile",
      ok: json('the profile', ref('PublicUser')),
      errors: { 404: ['user.not_found'] },
    },
    'GET /api/user/info': {
      id: 'ownUserInfo',
      summary: 'The own profile (with last_login; role for moderators)',
      ok: json('the profile', ref('OwnUser')),
    },
    'POST /api/user/rename': {
      id: 'rename',
      summary: 'Change the own username',
      fields: {
        user: requiredField('the new name, with the registration rules', {
          type: 'string',
          minLength: 3,
          maxLength: 32,
        }),
      },
      ok: json('the name as stored', object({ username: string() })),
      errors: { 400: ['input.invalid'], 409: ['user.name_taken'] },
    },
    'POST /api/user/avatar': {
      id: 'changeAvatar',
      summary: 'Upload a new avatar (cropped to 256×256)',
      fields: { avatar: imageFile('the image: JPEG, GIF, PNG or WebP', true) },
      ok: json('the new avatar path', object({ avatar: string(undefined, { pattern: '^a/[^/]+$' }) })),
      errors: { 400: ['input.invalid', 'upload.bad_type'] },
    },
    'POST /api/user/delete': {
      id: 'deleteAccount',
      summary: 'Delete the own account (the password or a passkey confirms; the rest follows in the background)',
      fields: reauthentication,
      ok: json('the account is gone and the cookie cleared', status('deleted')),
      errors: {
        400: ['input.invalid'],
        403: ['auth.bad_password', 'auth.bad_passkey'],
        429: ['rate.limited'],
        503: ['auth.busy'],
      },
    },
    'POST /api/user/password': {
      id: 'changePassword',
      summary: 'Change the own password (ends every other session and reset link)',
      fields: { pass: requiredField('the current password'), ...newPasswords },
      ok: json('changed', status('ok')),
      errors: { 400: ['auth.invalid'], 403: ['auth.bad_password'], 503: ['auth.busy'] },
    },
    'GET /api/user/sessions': {
      id: 'sessions',
      summary: 'The own live sessions, newest first (at most 100)',
      ok: json('the sessions', arrayOf(ref('SessionListItem'), 100)),
    },
    'POST /api/user/sessions/revoke-others': {
      id: 'revokeOtherSessions',
      summary: 'End every session but the calling one',
      ok: json('how many ended', object({ count: integer() })),
    },
    'POST /api/user/sessions/:id/revoke': {
      id: 'revokeSession',
      summary: 'End one session (the calling one: a logout)',
      ok: json('ended', status('ok')),
      errors: { 404: ['session.not_found'] },
    },
    'GET /api/user/export': {
      id: 'exportAccount',
      summary: 'Download the own data as a zip (account.json and media), 3 an hour',
      ok: { status: 200, description: 'the archive, streamed', mediaType: 'application/zip' },
    },
    'POST /api/user/mute': {
      id: 'mute',
      summary: "Mute an account (hiding its entries is the front end's job)",
      fields: { user: account },
      ok: json('muted (also when it was already)', status('ok')),
      errors: { 400: ['input.invalid'], 404: ['user.not_found'] },
    },
    'POST /api/user/unmute': {
      id: 'unmute',
      summary: 'Unmute an account',
      fields: { user: account },
      ok: json('unmuted (also when it was not muted)', status('ok')),
      errors: { 400: ['input.invalid'], 404: ['user.not_found'] },
    },
    'GET /api/user/mutes': {
      id: 'mutes',
      summary: 'The muted accounts, most recently muted first',
      ok: json('the list', arrayOf(ref('MutedAccount'), 1000)),
    },
  },
};
