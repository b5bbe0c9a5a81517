import { codePoints } from '../http/fields.ts';

/** docs/API.md "Moderation": a reason has 1–500 characters (code points) after cleaning. */
export const maxModReasonLength = 500;

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
