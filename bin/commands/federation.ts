import { systemClock } from '../../lib/clock.ts';
import {
  changeInstance,
  instanceActions,
  instanceNamed,
  listInstances,
  type InstanceAction,
} from '../../lib/federation/instances.ts';
import { administrator } from '../../lib/modlog/modlog.ts';
import { CommandFailure, UsageError, type CommandBody } from '../cli.ts';
import { utcMinute } from './args.ts';

/** The operator's instance lists (docs/OPERATIONS.md "Federation"), the same as the moderators' "Instanzen" on /mod. */
export const federationCommand: CommandBody = {
  help: `
An instance is its host as its URLs write it, with the port when it is not the default
(social.example, 127.0.0.1:8443); a URL such as https://social.example/ names it too.
allow: with BOARD_FEDERATION=allowlist, its people may follow and get deliveries.
block: nothing is sent there or taken from there, whatever the mode; its follows end and
its waiting deliveries are dropped. unblock: forgets the decision (open: admitted again;
allowlist: no longer allowed). Each change is logged in /modlog.
list: every instance with a decision, followers or deliveries: state, followers, waiting,
delivered, given up. The lists can be set while BOARD_FEDERATION is off.`,
  needsBoard: true,
  args: [1, 2],
  validate([action, instance]) {
    if (action === 'list') {
      if (instance !== undefined) throw new UsageError('list takes no instance');
      return;
    }
    if (!(instanceActions as readonly string[]).includes(action!))
      throw new UsageError(`the action must be one of ${instanceActions.join(', ')}, list`);
    if (instance === undefined) throw new UsageError(`${action} needs an instance, such as social.example`);
    if (!instanceNamed(instance)) throw new UsageError(`"${instance}" is not an instance, such as social.example`);
  },
  run({ args: [action, instance], db, print }) {
    if (action === 'list') {
      const rows = listInstances(db());
      if (rows.length === 0) print('no instances');
      for (const row of rows) {
        const since = row.changed_at ? ` since ${utcMinute(row.changed_at)}` : '';
        print(
          `${row.host}  ${row.state || 'no decision'}${since}  followers ${row.followers}  waiting ${row.queued}  delivered ${row.delivered}  given up ${row.failed}`,
        );
      }
      return 0;
    }
    const host = instanceNamed(instance!)!;
    if (!changeInstance(db(), host, action as InstanceAction, administrator, systemClock.now()))
      throw new CommandFailure(`${host} is ${action === 'unblock' ? 'not blocked' : `${action}ed`} already`);
    print(`${host}: ${action === 'allow' ? 'allowed' : action === 'block' ? 'blocked' : 'decision removed'}`);
    return 0;
  },
};
