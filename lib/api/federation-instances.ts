import { requireModerator, type Ctx } from '../http/context.ts';
import { invalidField } from '../errors.ts';
import { textField } from '../http/fields.ts';
import { fieldMessages } from '../messages.ts';
import { reasonField } from './moderation.ts';
import {
  changeInstance,
  instanceActions,
  instanceNamed,
  listInstances,
  maxInstancesListed,
  type InstanceAction,
} from '../federation/instances.ts';
import { maxModReasonLength } from '../product.ts';
import { arrayOf, field, json, object, oneOfValues, ref, requiredField, type Operation } from '../openapi/kit.ts';

/** The moderators' "Instanzen" (docs/API.md "Federation"): the mode, and each instance with its followers and deliveries. */
export function instances(ctx: Ctx) {
  requireModerator(ctx);
  return { mode: ctx.app.config.federation, instances: listInstances(ctx.app.db) };
}
instances.doc = {
  id: 'federationInstances',
  summary: 'The federation mode and the instances with a decision, followers or deliveries',
  ok: json(
    'the mode and the instances',
    object({ mode: oneOfValues('allowlist', 'open'), instances: arrayOf(ref('Instance'), maxInstancesListed) }),
  ),
} satisfies Operation;

/** POST /api/mod/federation/instances {instance, action, reason?}: allow, block or unblock; logged. */
export async function changeInstanceState(ctx: Ctx) {
  const mod = requireModerator(ctx);
  const form = await ctx.form();
  const host = instanceNamed(textField(form, 'instance'));
  if (!host) throw invalidField('instance', fieldMessages.instance);
  const action = textField(form, 'action').trim().toLowerCase();
  if (!(instanceActions as readonly string[]).includes(action))
    throw invalidField('action', fieldMessages.instanceAction);
  const { db, clock } = ctx.app;
  changeInstance(db, host, action as InstanceAction, mod.uid, clock.now(), reasonField(form, false));
  return listInstances(db).find((row) => row.host === host) ?? { host, state: '' };
}
changeInstanceState.doc = {
  id: 'changeFederationInstance',
  summary: 'Allow, block or unblock an instance; a block ends its follows and drops its waiting deliveries',
  description:
    'A block also hides the entries its people wrote here until an unblock or allow: docs/API.md "Blocked instances".',
  fields: {
    instance: requiredField('the instance: its host, with the port when not the default (social.example)'),
    action: requiredField('allow, block or unblock'),
    reason: field(`a note for the moderation log, at most ${maxModReasonLength} characters`),
  },
  ok: json('the instance now', ref('Instance')),
  errors: { 400: ['input.invalid'] },
} satisfies Operation;
