// What a new account may not do yet, said in the composer before anyone types (docs/API.md
// "Trust levels", "Rate limits"): in its first minutes no links and no images at all, then level 0
// posts few of them; the note says what unlocks more. Up front, so nobody learns the first rule
// from a refused post with an image attached.
import { h } from '../dom.js';
import { inFirstMinutes, levelZeroRule, newAccountLinkRule } from '../rules.js';
import { me } from '../session.js';

/** The note for the composer; null for an account at level 1 (or nobody logged in). */
export function trustNote() {
  const user = me();
  if (user?.trust_level !== 0) return null;
  const first = inFirstMinutes(user.created_at) ? `${newAccountLinkRule} ` : '';
  return h('p', { class: 'muted small trust-note' }, `${first}${levelZeroRule}`);
}
