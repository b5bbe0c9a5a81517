import { after } from 'node:test';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFakeSite, type FakeSite } from './previews.ts';
import { useBoard, type BoardSetup, type UsedBoard } from './use-board.ts';

export interface UsedWebhookBoard<M extends string> extends UsedBoard<M> {
  /** Every body the operator's webhook received, in order (plain text, as ntfy would get it). */
  webhookBodies: string[];
}

/**
 * useBoard with the operator's webhook (BOARD_NOTIFY_URL) pointing at a fake site on loopback
 * that records each POST's body and answers 200, and the notifier's gap between messages at 0,
 * so a test sees each message as soon as it is sent. The site closes after the board.
 */
export function useBoardWithWebhook<const M extends string = never>(setup: BoardSetup<M> = {}): UsedWebhookBoard<M> {
  let site: FakeSite | undefined;
  const bodies: string[] = [];
  const used = useBoard<M>({
    ...setup,
    prepare: async () => {
      site = await startFakeSite({ '/hook': (req, res) => record(req, res, bodies) });
      await setup.prepare?.();
    },
    env: () => ({
      ...(typeof setup.env === 'function' ? setup.env() : setup.env),
      BOARD_NOTIFY_URL: site!.url('/hook'),
    }),
    start: () => ({ notify: { gapMs: 0 }, ...(typeof setup.start === 'function' ? setup.start() : setup.start) }),
  }) as UsedWebhookBoard<M>;
  used.webhookBodies = bodies;
  after(() => site?.close());
  return used;
}

function record(req: IncomingMessage, res: ServerResponse, bodies: string[]): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    bodies.push(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200).end();
  });
}
