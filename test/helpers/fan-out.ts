import { countQueuedFanouts } from '../../lib/notifications/thread-replies.ts';
import type { TestBoard } from './board.ts';
import { eventually } from './eventually.ts';

/**
 * Waits until the board's fan-out job has told the followers of every reply queued so far
 * (lib/notifications/fan-out-job.ts): thread_reply notifications are written just after the
 * reply's 201, so a test reads them after this, never after a sleep.
 */
export async function followersTold(board: TestBoard): Promise<void> {
  await eventually('every queued reply’s followers told', () => countQueuedFanouts(board.app.services.db) === 0);
}
