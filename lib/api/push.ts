import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../errors.ts';
import { textField } from '../http/fields.ts';
import { fieldMessages } from '../messages.ts';
import {
  deletePushDevice,
  listPushDevices,
  savePushDevice,
  subscriptionProblem,
  type PushDeviceInfo,
} from '../push/devices.ts';
import { vapidKeys } from '../push/keys.ts';
import { maxEndpointLength, maxPushDevices } from '../product.ts';
import { field, json, object, oneOfValues, requiredField, status, string, type Operation } from '../openapi/kit.ts';

const problemMessages = {
  endpoint: fieldMessages.pushEndpoint,
  p256dh: fieldMessages.pushKey,
  auth: fieldMessages.pushKey,
} as const;

/**
 * GET /api/user/push: whether pushes are sent (BOARD_PUSH), the key a browser subscribes with, and
 * whether this session has a device, kept while pushes are off so they resume when the operator
 * turns them on.
 */
export function pushState(ctx: Ctx) {
  const me = requireUser(ctx);
  const { db, clock, config } = ctx.app;
  const subscribed = listPushDevices(db, me.uid).some((device) => device.session_id === me.id);
  return {
    enabled: config.pushEnabled ? 1 : 0,
    public_key: config.pushEnabled ? vapidKeys(db, clock.now()).publicKey : '',
    subscribed: subscribed ? 1 : 0,
  };
}
pushState.doc = {
  id: 'pushState',
  summary: 'Whether the board sends pushes, its VAPID public key, and whether this session gets them',
  ok: json(
    'the state',
    object({
      enabled: { ...oneOfValues(0, 1), description: 'whether the board sends pushes (0 with BOARD_PUSH=0)' },
      public_key: string(
        "the board's VAPID public key: base64url, the applicationServerKey to subscribe with; '' when enabled is 0",
      ),
      subscribed: { ...oneOfValues(0, 1), description: 'whether this session has a device' },
    }),
  ),
} satisfies Operation;

export async function subscribe(ctx: Ctx) {
  const me = requireUser(ctx);
  // Why refuse while off: a stored subscription would promise pushes that never come.
  if (!ctx.app.config.pushEnabled) throw new ApiError(403, 'push.off');
  const form = await ctx.form();
  const input = {
    endpoint: textField(form, 'endpoint'),
    p256dh: textField(form, 'p256dh'),
    auth: textField(form, 'auth'),
  };
  const { db, config, clock } = ctx.app;
  const problem = subscriptionProblem(input, { allow: config.previewAllow, ports: config.previewPorts });
  if (problem) throw invalidField(problem, problemMessages[problem]);
  const outcome = savePushDevice(db, { ...input, sessionId: me.id, uid: me.uid }, clock.now());
  if (outcome === 'full') throw invalidField('endpoint', fieldMessages.pushLimit);
  return { status: 'ok' };
}
subscribe.doc = {
  id: 'subscribePush',
  summary: "This session's browser gets push notifications (replaces its earlier subscription)",
  description: `The fields of the browser's PushSubscription. At most ${maxPushDevices} devices per account; the subscription ends with the session (docs/API.md "Web Push").`,
  fields: {
    endpoint: requiredField(`the push service's https URL, at most ${maxEndpointLength} characters`),
    p256dh: requiredField("the browser's P-256 public key, base64url"),
    auth: requiredField("the browser's auth secret, base64url (16 bytes)"),
  },
  ok: json('stored', status('ok')),
  errors: { 400: ['input.invalid'], 403: ['push.off'] },
  when: {
    'input.invalid': `\`field\` \`endpoint\`: not an \`https\` URL of at most ${maxEndpointLength} characters, a refused port or address (an IP literal the guard refuses, credentials in it), or the account has ${maxPushDevices} devices already (the message says so); plain \`http\` only inside BOARD_PREVIEW_ALLOW (tests). \`field\` \`p256dh\`: not a base64url uncompressed P-256 point. \`field\` \`auth\`: not 16 bytes of base64url`,
    'push.off': 'the operator turned Web Push off (BOARD_PUSH=0)',
  },
} satisfies Operation;

export async function unsubscribe(ctx: Ctx) {
  const me = requireUser(ctx);
  const form = await ctx.form();
  const id = textField(form, 'id');
  if (!deletePushDevice(ctx.app.db, me.uid, id || me.id) && id) throw new ApiError(404, 'session.not_found');
  return { status: 'ok' };
}
unsubscribe.doc = {
  id: 'unsubscribePush',
  summary: 'A device gets no more pushes: this session, or the session named by id',
  fields: { id: field('a session id of GET /api/user/sessions; absent: this session') },
  ok: json('done (also when this session had none)', status('ok')),
  errors: { 404: ['session.not_found'] },
  when: { 'session.not_found': 'a named session has no device' },
} satisfies Operation;

export function withPushDevice<T extends { id: string }>(session: T, devices: Map<string, PushDeviceInfo>) {
  const device = devices.get(session.id);
  return device ? { ...session, push: { service: device.service, created_at: device.created_at } } : session;
}

export function pushDevicesBySession(ctx: Ctx, uid: number): Map<string, PushDeviceInfo> {
  return new Map(listPushDevices(ctx.app.db, uid).map((device) => [device.session_id, device]));
}
