import { maxPushTextLength } from '../product.ts';
import type { NotificationKind } from '../notifications/notifications.ts';

/**
 * The text of a push (docs/API.md "Web Push"): what the notifications page shows of the same
 * notification and no more: who, what kind, the entry's text, and where it is. Why no more: a
 * push passes through a push service and shows on a lock screen.
 */

/** What a kind says after the author's name; mirrors `kinds` in web/static/views/notifications.js. */
export const kindTexts: Record<NotificationKind, string> = {
  reply: 'hat dir geantwortet',
  mention: 'hat dich erwähnt',
  thread_reply: 'hat in einem Thread geantwortet, dem du folgst',
};

export interface PushedNotification {
  kind: NotificationKind;
  pid: number;
  username: string;
  content: string;
  filepath: string;
}

export interface PushPayload {
  title: string;
  body: string;
  url: string;
  /** One notification per entry on the device: a repeat replaces, never stacks. */
  tag: string;
}

export function pushPayload(n: PushedNotification): PushPayload {
  const chars = [...n.content.trim()];
  const text = chars.length > maxPushTextLength ? `${chars.slice(0, maxPushTextLength).join('')}…` : chars.join('');
  return {
    title: `${n.username || 'Ein gelöschtes Konto'} ${kindTexts[n.kind]}`,
    body: text || (n.filepath ? 'Ein Bild' : ''),
    url: `/e/${n.pid}`,
    tag: `e${n.pid}`,
  };
}
