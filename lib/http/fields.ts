import { fieldMessages } from '../messages.ts';
import type { Form } from './body.ts';
import { invalidField } from '../errors.ts';

export function textField(form: Form, name: string): string {
  return form.fields.get(name) ?? '';
}

export function integerParam(raw: string | undefined, field: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) throw invalidField(field, fieldMessages.notInteger);
  const value = Number(raw);
  if (value < min || value > max) throw invalidField(field, fieldMessages.outOfRange);
  return value;
}

/**
 * A number in its one spelling (no sign, no leading zeros): the fast path serves a cached page
 * only under it, so the log counts one target per page (lib/http/hit-lines.ts); `01` takes the
 * pipeline, which reads it as 1.
 */
export function plainNumber(raw: string): boolean {
  return /^(0|[1-9]\d*)$/.test(raw);
}
