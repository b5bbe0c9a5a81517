import type { Images } from '../../lib/media/images.ts';
import { gateAfter } from './gate.ts';

/**
 * The board's sharp with a gate behind it (test/helpers/gate.ts): `holdNext('entry')` holds the
 * next entry image after it was scaled, `holdNext('avatar')` the next avatar, until `release()`.
 * `images` wraps the board's own (createApp's AppOptions.images), so its image slots stay the board's.
 */
export function imageGate() {
  const gate = gateAfter<Images, 'entry' | 'avatar'>(['entry', 'avatar']);
  return { images: gate.wrap, holdNext: gate.holdNext, releaseAll: gate.releaseAll };
}
