import { maxFollows } from '../follows/follows.ts';
import { maxEndpointLength, maxPushDevices } from '../push/devices.ts';
import {
  arrayOf,
  constant,
  field,
  integer,
  json,
  object,
  oneOfValues,
  ref,
  requiredField,
  status,
  string,
  time,
  type Area,
} from './kit.ts';

/** docs/API.md "Following threads" and "Web Push" (issue 34). */

const followAnswer = (following: 0 | 1) =>
  json('done (also when it was so already)', object({ status: constant('ok'), following: constant(following) }));
const followState = object({
  own_threads: oneOfValues(0, 1),
  pids: arrayOf(integer('a followed entry', { minimum: 1 }), maxFollows),
});

export const followAndPush: Area = {
  tag: 'Following and Web Push',
  description: 'Following an entry’s subtree, and push notifications to the own devices.',
  operations: {
    'POST /api/entry/:pid/follow': {
      id: 'followEntry',
      summary: 'Follow a live entry and everything below it: new replies there notify (thread_reply)',
      description: `At most ${maxFollows} follows per account (400 input.invalid, field pid).`,
      ok: followAnswer(1),
      errors: { 400: ['input.invalid'], 404: ['entry.not_found'] },
    },
    'POST /api/entry/:pid/unfollow': {
      id: 'unfollowEntry',
      summary: 'Stop following an entry (also when it was not followed, or is gone)',
      ok: followAnswer(0),
      errors: { 400: ['input.invalid'] },
    },
    'GET /api/user/following/state': {
      id: 'followingState',
      summary: 'Whether own new threads are followed, and every followed pid (for the menus)',
      ok: json('the state', followState),
    },
    'GET /api/user/following/:page': {
      id: 'following',
      summary: 'The followed entries, most recently followed first, 20 a page',
      ok: json(
        'one page',
        arrayOf(object({ pid: integer(undefined, { minimum: 1 }), followed_at: time(), entry: ref('Entry') }), 20),
      ),
      errors: { 400: ['input.invalid'] },
    },
    'POST /api/user/following/own-threads': {
      id: 'followOwnThreads',
      summary: 'Whether the account follows its own new threads (default 1); existing follows stay',
      fields: { follow: requiredField('1 or 0', { type: 'string', enum: ['0', '1'] }) },
      ok: json('the new state', followState),
      errors: { 400: ['input.invalid'] },
    },
    'GET /api/user/push': {
      id: 'pushState',
      summary: "The board's VAPID public key, and whether this session gets pushes",
      ok: json(
        'the state',
        object({
          public_key: string('base64url, the applicationServerKey to subscribe with'),
          subscribed: oneOfValues(0, 1),
        }),
      ),
    },
    'POST /api/user/push': {
      id: 'subscribePush',
      summary: "This session's browser gets push notifications (replaces its earlier subscription)",
      description: `The fields of the browser's PushSubscription. At most ${maxPushDevices} devices per account; the subscription ends with the session.`,
      fields: {
        endpoint: requiredField(`the push service's https URL, at most ${maxEndpointLength} characters`),
        p256dh: requiredField("the browser's P-256 public key, base64url"),
        auth: requiredField("the browser's auth secret, base64url (16 bytes)"),
      },
      ok: json('stored', status('ok')),
      errors: { 400: ['input.invalid'] },
    },
    'POST /api/user/push/delete': {
      id: 'unsubscribePush',
      summary: 'A device gets no more pushes: this session, or the session named by id',
      fields: { id: field('a session id of GET /api/user/sessions; absent: this session') },
      ok: json('done', status('ok')),
      errors: { 404: ['session.not_found'] },
    },
    'GET /sw.js': {
      id: 'serviceWorker',
      summary: 'The service worker that shows push notifications (scope /)',
      ok: { status: 200, description: 'the script', mediaType: 'text/javascript' },
    },
  },
};
