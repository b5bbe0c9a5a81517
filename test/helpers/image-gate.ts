import type { Images } from '../../lib/media/images.ts';
import { callGate, type HeldRequest } from './gate.ts';

type Held = 'entry' | 'avatar';

/**
 * The board's sharp with a gate behind it (test/helpers/gate.ts): `holdNext('entry')` holds the
 * next entry image after it was scaled, `holdNext('avatar')` the next avatar, until `release()`.
 * `images` wraps the board's own (createApp's AppOptions.images), so its image slots stay the board's.
 */
export function imageGate(): {
  images: (sharp: Images) => Images;
  holdNext(kind: Held): HeldRequest;
  releaseAll(): void;
} {
  const gate = callGate<Held>(['entry', 'avatar']);
  return {
    images: (sharp) => ({
      ...sharp,
      async entry(data) {
        const image = await sharp.entry(data);
        await gate.pass('entry');
        return image;
      },
      async avatar(data) {
        const image = await sharp.avatar(data);
        await gate.pass('avatar');
        return image;
      },
    }),
    holdNext: gate.holdNext,
    releaseAll: gate.releaseAll,
  };
}
