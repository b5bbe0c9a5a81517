import {
  arrayOf,
  field,
  integer,
  json,
  object,
  oneOfValues,
  requiredField,
  string,
  time,
  type Area,
  ref,
  type FieldSpec,
} from './kit.ts';

/** docs/API.md "Registration": the door, proof of work, invites, applications, trust levels. */

const mode = oneOfValues('open', 'approval', 'invite', 'closed');
const usernameStatus = (...values: string[]) => object({ username: string(), status: oneOfValues(...values) });

/** The `altcha` field of the endpoints that may need proof of work. */
export const altchaField: FieldSpec = field(
  'a solved challenge of GET /api/auth/challenge: base64 of JSON `{challenge, solution}` (ALTCHA v2); needed when BOARD_POW is on',
);

/** POST /api/auth/newuser's fields beyond SPEC's. */
export const admissionFields: Record<string, FieldSpec> = {
  application: field('approval mode: the answer to `question` of GET /api/auth/registration, 10–1000 characters', {
    type: 'string',
    maxLength: 1000,
  }),
  invite: field('an invite token (the part after # of /register#…); needed in invite mode, skips approval'),
  altcha: altchaField,
};

/** The 202 of a registration that waits for a moderator. */
export const pendingAnswer = json(
  'the account waits for a moderator (approval mode, or the surge gate closed the door)',
  usernameStatus('pending'),
  202,
);

const invite = object({
  id: integer(),
  created_at: time(),
  expires: time(),
  status: oneOfValues('open', 'used', 'expired', 'revoked'),
  used_by: string('the account it made, "" until used'),
  used_at: time('0 until used'),
});

export const registration: Area = {
  tag: 'Registration',
  description:
    "How people get in (BOARD_REGISTRATION: open, approval, invite, closed), proof of work, invites, the moderators' queue of applications, the surge gate and trust levels.",
  operations: {
    'GET /api/auth/registration': {
      id: 'registrationInfo',
      summary: 'What a registration needs now: the mode in force, the question to answer, proof of work',
      ok: json('the mode in force', ref('RegistrationInfo')),
    },
    'GET /api/auth/challenge': {
      id: 'powChallenge',
      summary: 'A proof-of-work challenge (ALTCHA v2), good for 10 minutes and one request',
      description:
        'Find the counter (from 0 up) whose PBKDF2 key starts with `keyPrefix`; send base64 of JSON `{challenge, solution: {counter, derivedKey}}` as `altcha`.',
      ok: json('a signed challenge', ref('PowChallenge')),
    },
    'POST /api/user/invites': {
      id: 'createInvite',
      summary: 'Make an invite (valid 7 days, single use); the token is shown only here',
      ok: json(
        'the invite; `url` carries the token in its fragment',
        object({ id: integer(), token: string(), url: string('<BOARD_ORIGIN>/register#<token>'), expires: time() }),
        201,
      ),
      errors: { 403: ['trust.required'], 429: ['rate.limited'] },
    },
    'GET /api/user/invites': {
      id: 'listInvites',
      summary: "One's own invites, newest first (at most 100)",
      ok: json('the invites', object({ invites: arrayOf(invite, 100), open: integer('open invites now') })),
    },
    'POST /api/user/invites/:id/revoke': {
      id: 'revokeInvite',
      summary: "Revoke one of one's own open invites",
      ok: json('revoked', object({ id: integer(), status: oneOfValues('revoked') })),
      errors: { 400: ['input.invalid'], 404: ['invite.not_found'], 409: ['invite.not_open'] },
    },
    'GET /api/mod/applications/:page': {
      id: 'applications',
      summary: 'The applications waiting, oldest first, 50 a page',
      ok: json('a page of applications', arrayOf(ref('Application'), 50)),
    },
    'POST /api/mod/applications/:username/approve': {
      id: 'approveApplication',
      summary: 'Approve an application: the account can log in',
      ok: json('approved', usernameStatus('approved')),
      errors: { 404: ['user.not_found', 'application.not_found'] },
    },
    'POST /api/mod/applications/:username/reject': {
      id: 'rejectApplication',
      summary: 'Reject an application; the applicant sees `reason` at login for 30 days, then the account goes',
      fields: { reason: field('optional, at most 500 characters', { type: 'string', maxLength: 500 }) },
      ok: json('rejected', usernameStatus('rejected')),
      errors: { 400: ['input.invalid'], 404: ['user.not_found', 'application.not_found'] },
    },
    'GET /api/mod/user/:username': {
      id: 'accountForModerators',
      summary: 'An account as moderators see it: status, trust level, inviter and invitees',
      ok: json(
        'the account',
        object({
          username: string(),
          created_at: time(),
          status: oneOfValues('active', 'pending', 'rejected'),
          role: string(),
          banned_until: integer(undefined, { minimum: -1 }),
          trust_level: oneOfValues(0, 1),
          invited_by: string('"" when none or the administrator'),
          invitees: arrayOf(object({ username: string(), created_at: time() }), 100),
        }),
      ),
      errors: { 404: ['user.not_found'] },
    },
    'GET /api/mod/registration': {
      id: 'registrationState',
      summary: 'The mode in force, who set it, the surge gate and the accounts of its last wave',
      ok: json('the door', ref('RegistrationState')),
    },
    'POST /api/mod/registration': {
      id: 'setRegistration',
      summary:
        'Set the registration mode; it stays until changed (the configured mode hands back to BOARD_REGISTRATION)',
      fields: { mode: requiredField('open, approval, invite or closed') },
      ok: json('the mode in force', object({ mode })),
      errors: { 400: ['input.invalid'] },
    },
    'POST /api/mod/user/:username/trust': {
      id: 'setTrust',
      summary: "Set an account's trust level (0 or 1); logged for moderators, never public",
      fields: { level: requiredField('0 or 1') },
      ok: json('the level set', object({ username: string(), trust_level: oneOfValues(0, 1) })),
      errors: { 400: ['input.invalid'], 403: ['mod.target_moderator'], 404: ['user.not_found'] },
    },
  },
};
