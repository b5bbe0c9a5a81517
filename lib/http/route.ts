import type { RateGroup } from '../limits/rate-limit.ts';
import type { WriteGroup } from '../limits/write-limits.ts';
import type { Handler } from './context.ts';

/** One entry of the route table (lib/routes.ts): what the pipeline checks before the handler runs. */
export interface Route {
  method: 'GET' | 'POST';
  path: string;
  handler: Handler;
  /** A valid session is required, else 401 auth.required. */
  auth?: boolean;
  /** A moderator's session is required: 401 auth.required, then 403 mod.required before any path 400 or 404. */
  mod?: boolean;
  /** Per-IP rate-limit group (lib/limits/rate-limit.ts); every request to the group counts. */
  rateLimit?: RateGroup;
  /** Write-limit group, per account and per address (lib/limits/write-limits.ts), checked after the session; export's too. */
  writeLimit?: WriteGroup;
}
