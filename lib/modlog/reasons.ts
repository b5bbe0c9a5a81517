import { maxModReasonLength } from '../product.ts';
import { codePoints } from '../text/code-points.ts';

export interface CleanedReason {
  text: string;
  error?: 'empty' | 'long';
}

/**
 * A moderation reason as stored and shown: public on the removed entry and in the log, so one
 * line: control characters and line breaks become spaces, runs of spaces one, ends trimmed.
 */
export function moderationReason(raw: string): CleanedReason {
  const text = raw
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
  if (!text) return { text, error: 'empty' };
  if (codePoints(text) > maxModReasonLength) return { text, error: 'long' };
  return { text };
}
