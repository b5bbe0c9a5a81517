import { maxApplicationLength, minApplicationLength } from '../product.ts';
import { field, json, object, oneOfValues, string, type FieldSpec } from './kit.ts';

/**
 * The OpenAPI pieces that registration's fields add to other endpoints' operations (docs/API.md
 * "Registration"): newuser's extra fields and its 202, and the `altcha` field of the endpoints
 * that may need proof of work (registration, login, report).
 */

export const altchaField: FieldSpec = field(
  'a solved challenge of GET /api/auth/challenge: base64 of JSON `{challenge, solution}` (ALTCHA v2); needed for a registration or an anonymous report when BOARD_POW is on, and for a login while its name is under a guessing attack',
);

export const admissionFields: Record<string, FieldSpec> = {
  application: field(
    `approval mode: the answer to \`question\` of GET /api/auth/registration, ${minApplicationLength}–${maxApplicationLength} characters`,
    { type: 'string', maxLength: maxApplicationLength },
  ),
  invite: field('an invite token (the part after # of /register#…); needed in invite mode, skips approval'),
  altcha: altchaField,
};

export const usernameStatus = (...values: string[]) => object({ username: string(), status: oneOfValues(...values) });

export const pendingAnswer = json(
  'the account waits for a moderator (approval mode, or the surge gate closed the door)',
  usernameStatus('pending'),
  202,
);
