import { sharpImages, type Images } from '../../lib/media/images.ts';
import { callGate, type HeldRequest } from './gate.ts';

/**
 * Real sharp with a gate behind it (test/helpers/gate.ts): `holdNext('entry')` holds the next
 * entry image after it was scaled, `holdNext('avatar')` the next avatar, until `release()`.
 */
export function imageGate(): { images: Images; holdNext(kind: keyof Images): HeldRequest; releaseAll(): void } {
  const gate = callGate<keyof Images>(['entry', 'avatar']);
  return {
    images: {
      async entry(data) {
        const image = await sharpImages.entry(data);
        await gate.pass('entry');
        return image;
      },
      async avatar(data) {
        const image = await sharpImages.avatar(data);
        await gate.pass('avatar');
        return image;
      },
    },
    holdNext: gate.holdNext,
    releaseAll: gate.releaseAll,
  };
}
